// HPN's non-stacked dual-ToR on a Linux ToR (HPN §4): each ToR learns on
// its own which hosts it reaches, from what the hosts announce (gratuitous
// ARP, unsolicited NA: `hpnctl host announce`), and turns each into a host
// route (/32, /128) that bgpd advertises upward. FRR has no neighbour
// redistribution of its own; this is the piece that does it, as Cumulus's
// rdnbrd does:
//   - a neighbour of a back-end address on a host-facing port becomes a
//     route to that address out of that port, kernel protocol 80
//     (switchconfig::kHostRouteProtocol), which zebra sees as a "kernel"
//     route and bgpd redistributes through the HOST-ROUTES route-map;
//   - a neighbour heard but not confirmed (STALE, from an announcement) is
//     confirmed at once (NUD probe): only a host that answers is routed to;
//   - a neighbour that fails (its solicitations unanswered) or whose port
//     loses carrier takes its route with it, so BGP withdraws the host from
//     that ToR and traffic reaches it through the other plane's ToR;
//   - a neighbour the kernel deletes on its own (the garbage collector,
//     past gc_thresh2 entries in all namespaces together, takes any not
//     updated for 5 s) keeps its route and is asked again at once: a host
//     that pins its gateways' MACs never solicits the ToR, so forgetting
//     it would black-hole it here;
//   - every 5 s, a host once confirmed on a port with carrier that is not
//     confirmed there now is asked again (rdnbrd's keepalive), so a host
//     back after a fault is routed again without having to speak first.
// One event loop serves several namespaces (the lab's ToRs): a netlink
// socket opened in each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::lab {

struct HostRouteTarget {
  std::string netns;
  std::vector<std::string> ports;    // host-facing interfaces
  std::vector<std::string> pools;    // prefixes a host address must be in ("fd48:504e::/40")
};

// Runs until SIGTERM or SIGINT (which return ok). Errors: a namespace or
// socket that cannot be opened. Writes one line per route change to
// stderr when `verbose`.
Status run_host_route_agent(const std::vector<HostRouteTarget>& targets, bool verbose);

// Forks a detached process running the agent (stderr to `log`), named
// "hpn-host-routes" (ps -e, pgrep -x); its pid.
Result<int> spawn_host_route_agent(const std::vector<HostRouteTarget>& targets, const std::string& log);

}  // namespace hpn::lab
