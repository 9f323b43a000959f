// The routes the fabric's routing converges to on the lab's *actual* wiring:
// the forwarding model of what FRR, running the switch configurations
// (switchconfig/), converges to in the lab. The lab itself is routed by
// FRR, which needs none of this file at run time; this model is what the
// lab's routing tests hold FRR's routes against (tests/lab), test support
// like the rest of fabricmodel/.
//
// The model is HPN's (and RFC 7938's) eBGP fabric with unnumbered sessions:
//  - every cable between two switches of different AS numbers carries a BGP
//    session over the link-local addresses, whichever ports it joins. A
//    miswired cable therefore still forms a session (as unnumbered BGP does),
//    and traffic crosses it, which is what per-hop telemetry must reveal;
//  - a ToR learns the hosts cabled to it by neighbour discovery and
//    announces each host's bond address as a /128 (switchconfig's host
//    routes); switches announce their loopback; nobody announces a subnet
//    or a default, so a host whose cable to one ToR is down is reached
//    through the other plane alone;
//  - best path = shortest AS path, ECMP over every equal one (multipath
//    relax); a path with the receiver's own AS number is refused. With the
//    blueprint's numbering (one AS per plane's aggregation switches, one for
//    the core) this makes paths valley-free, like the real fabric;
//  - a cable that is `down` or drops either direction carries no session
//    (BFD would take it down) and teaches no host; a lossy one still does.
// Hosts do not run BGP: each back-end NIC's bond address selects, by a
// source rule, a table whose route spreads over every port of that NIC that
// has link (the bond's hash), toward whatever it is cabled to; the main
// table's default uses the lowest-numbered NIC. That is the host profile's
// design (planner/profile.h), which the lab's hosts run; there the next hop
// is the planned ToR's gateway address, answered by whichever ToR the port
// is cabled to (one gateway MAC for the fabric).
// Next hops are the peers' link-local addresses (lab_topology.h), so no
// link needs the blueprint's /127 to forward, and each names its device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "lab/lab_topology.h"
#include "lab/routing.h"

namespace hpn::fabricmodel {

struct NodeRoutes {
  std::vector<lab::Route> routes;  // sorted by table, then prefix
  std::vector<lab::SourceRule> rules;
};

// One entry per topology node (LabTopology::nodes order).
std::vector<NodeRoutes> compute_routes(const Blueprint& bp, const lab::LabTopology& topology);

// May this cable carry a BGP session or teach a host address?
bool carries_routing(const lab::Fault& fault);

}  // namespace hpn::fabricmodel
