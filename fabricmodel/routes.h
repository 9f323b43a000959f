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
// design (hostconfig/profile.h), which the lab's hosts run; there the next hop
// is the planned ToR's gateway address, answered by whichever ToR the port
// is cabled to (one gateway MAC for the fabric).
// Next hops are the peers' link-local addresses (lab_topology.h), so no
// link needs the blueprint's /127 to forward, and each names its device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <map>

#include "blueprint/fabric_index.h"
#include "blueprint/model.h"
#include "lab/lab_topology.h"
#include "lab/routing.h"

namespace hpn::fabricmodel {

// The routes above at the level of devices and ports, over a blueprint and
// a wiring: the one route computation, which compute_routes renders as the
// lab's routes and FabricModel (forwarding_model.h) hashes each flow over.
class FabricRoutes {
 public:
  FabricRoutes(const FabricIndex& fabric, const std::vector<lab::WiredCable>& wiring);

  // The ports of `device` its route to `prefix` (a host bond's or a
  // switch loopback's address) leaves by, sorted, several for ECMP; at the
  // ToR that learned a host, the ports cabled to it. Empty: no route.
  const std::vector<int>& toward(int device, const std::string& prefix) const;
  // Every prefix announced, sorted.
  std::vector<std::string> prefixes() const;

 private:
  struct Session {
    int peer = 0;  // device
    int port = 0;  // this device's port it runs over
  };
  struct Best {  // a device's best route to one prefix
    bool valid = false;
    std::vector<std::int64_t> as_path;  // as advertised onward, without this device's AS
    std::vector<int> ports;
    friend bool operator==(const Best&, const Best&) = default;
  };
  struct Origin {
    std::map<int, std::vector<int>> at;  // originating device -> its ports to the prefix (may be none)
    size_t solution = 0;                 // index into solutions_
  };
  std::int64_t asn(int device) const;
  std::vector<Best> solve(const Origin& origin) const;
  Best choose(int device, const std::vector<Best>& best) const;

  const Blueprint& bp_;
  std::vector<std::vector<Session>> sessions_;  // by device, in wiring order
  std::map<std::string, Origin> prefixes_;
  std::vector<int> switch_index_;  // by device: its place among the switches, or -1
  int switches_ = 0;
  // By set of originating devices, then switch: the ports toward the prefix.
  std::vector<std::vector<std::vector<int>>> solutions_;
};

struct NodeRoutes {
  std::vector<lab::Route> routes;  // sorted by table, then prefix
  std::vector<lab::SourceRule> rules;
};

// One entry per topology node (LabTopology::nodes order).
std::vector<NodeRoutes> compute_routes(const Blueprint& bp, const lab::LabTopology& topology);

// May this cable carry a BGP session or teach a host address?
bool carries_routing(const lab::Fault& fault);

}  // namespace hpn::fabricmodel
