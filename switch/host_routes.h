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
//   - every 5 s, a host once heard with its MAC (confirmed, or announced)
//     on a port with carrier that is not confirmed there now is asked
//     again (rdnbrd's keepalive), so a host back after a fault, or whose
//     first answer was missed, is routed without having to speak again.
//   - a neighbour outside every accepted prefix is refused: logged once,
//     never routed;
//   - at start it reads the routes it owns (its table and protocol) and
//     keeps each one still valid: its neighbour confirmed, or heard and
//     asked again, or gone from the neighbour table and asked again (an
//     unanswered ask withdraws it). It withdraws at start only a route
//     out of a port that is not host-facing or has no carrier, or to an
//     address outside the prefixes, or whose neighbour is FAILED. A
//     stopped agent withdraws nothing: its routes stay while it restarts.
//   - a configured port that does not exist is logged and the others are
//     routed; if it appears later it is watched from then on.
// `hpnctl switch agent` (hpnctl-switch(1)) runs it on a ToR, in the
// switch's own namespace, and `lab up` starts that same command in each
// lab ToR (spawn_switch_agent). One event loop can serve several
// namespaces (a netlink socket opened in each); the command uses one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "switchconfig/agent_config.h"

namespace hpn::lab {

struct HostRouteTarget {
  std::string netns;                 // "" for the agent's own namespace
  std::vector<std::string> ports;    // host-facing interfaces
  std::vector<std::string> pools;    // prefixes a host address must be in ("fd48:504e::/40")
  std::uint32_t table = switchconfig::kHostRouteTable;
  int protocol = switchconfig::kHostRouteProtocol;
};

// The target of an agent configuration file, in the agent's namespace.
HostRouteTarget host_route_target(const switchconfig::AgentConfig& config);

// How many hosts the agents route, over every target.
struct HostRouteCount {
  int ipv4 = 0, ipv6 = 0;  // host routes installed
  int ports = 0;           // configured host-facing ports present
  int missing_ports = 0;   // configured ports that do not exist
};

struct AgentHooks {
  bool verbose = false;  // log every ask and route change, not only errors and refusals
  // Each log line (without a newline); stderr when unset.
  std::function<void(const std::string&)> log;
  // Called once every target has read its state and settled its owned
  // routes (`ready`), then on each change of the count.
  std::function<void(const HostRouteCount&, bool ready)> status;
};

// Runs until SIGTERM or SIGINT (which return ok, leaving the routes in
// place). Errors: a bad prefix, a namespace or socket that cannot be
// opened.
Status run_host_route_agent(const std::vector<HostRouteTarget>& targets, const AgentHooks& hooks);

// A switch's agent started the way hpnctl-switch-agent.service starts it
// (Type=notify): `BINARY switch agent --config CONFIG` in namespace
// `netns`, detached, stderr appended to `log`, $NOTIFY_SOCKET on a socket
// of the caller's; it returns once the agent said READY=1 (its pid), or
// with the agent's exit and the end of its log if it stopped first, or
// after `ready_timeout`.
struct SwitchAgentLaunch {
  std::string netns;
  std::string binary;  // hpnctl
  std::string config;  // switch-agent.json
  std::string log;
  std::chrono::milliseconds ready_timeout{10000};
};
Result<int> spawn_switch_agent(const SwitchAgentLaunch& launch);

}  // namespace hpn::lab
