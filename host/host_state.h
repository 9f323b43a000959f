// The network state of one host (or one network namespace) as the kernel
// reports it through rtnetlink: links, addresses, policy rules, routes with
// all their next hops, neighbours, and the sysctls asked for. Plain data, so
// the change plan (host_apply.h) is a pure function of profile and state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "system/sysctl.h"
#include "blueprint/host_network.h"

namespace hpn::host {

// A bond's options as the kernel reports them (IFLA_INFO_DATA of kind
// "bond"): what `host apply` compares with the profile's bond.
struct BondState {
  std::string mode;              // "balance-xor", "802.3ad", "active-backup", ...
  std::string xmit_hash_policy;  // "layer2", "layer3+4", ...
  int miimon_ms = 0;
  int arp_interval_ms = 0;
  std::vector<std::string> arp_targets;  // IPv4, in the kernel's order
};

struct LinkState {
  std::string name;
  int ifindex = 0;
  std::string kind;      // IFLA_INFO_KIND: "bond", "veth", ...; empty for a plain device
  std::string mac;       // "02:4e:10:00:00:01"; empty without one
  int mtu = 0;
  bool up = false;       // IFF_UP
  std::string master;    // the bond (or bridge) it is enslaved to; empty for none
  std::optional<BondState> bond = std::nullopt;  // kind "bond" only
};

struct AddressState {
  std::string ifname;
  IpPrefix prefix;
  bool link_scope = false;       // fe80::/10 and the like: the kernel's own, made again with the link
  bool no_prefix_route = false;  // IFA_F_NOPREFIXROUTE
};

struct NextHopState {
  std::string gateway;  // canonical; empty for a direct route
  std::string ifname;
  bool onlink = false;
  friend bool operator==(const NextHopState&, const NextHopState&) = default;
};

struct RouteState {
  int family = 4;
  IpPrefix to;
  int table = 254;
  int protocol = 0;
  int metric = 0;  // RTA_PRIORITY, as the kernel stores it (IPv6 makes 0 into 1024)
  std::vector<NextHopState> nexthops;  // sorted
};

// RTPROT_KERNEL and RTPROT_STATIC: the kernel's own routes (a prefix route,
// fe80::/64), and the protocol `host apply` gives its routes.
inline constexpr int kKernelProtocol = 2, kStaticProtocol = 4;

// The protocols of routes (RTPROT_*) as iproute2 names them: "kernel",
// "boot", "static", "dhcp", "ra", ...; a number for others.
std::string protocol_name(int protocol);
// rtnetlink's metric for a route given `metric` (IPv6 stores 0 as 1024).
inline int kernel_metric(int family, int metric) { return family == 6 && metric == 0 ? 1024 : metric; }

struct RuleState {
  int family = 4;
  IpPrefix from;  // length 0: any source
  int table = 0;
  int priority = 0;
};

struct NeighbourState {
  std::string ifname;
  int family = 4;
  std::string address;
  std::string mac;
  bool permanent = false;
};

struct HostState {
  std::vector<LinkState> links;
  std::vector<AddressState> addresses;
  std::vector<RuleState> rules;
  std::vector<RouteState> routes;  // unicast routes of every table but local (255)
  std::vector<NeighbourState> neighbours;
  std::map<std::string, std::string> sysctls;  // dotted key -> value; a key the kernel lacks is absent

  const LinkState* link(const std::string& name) const;
};

// Reads the state of the calling thread's network namespace (run it inside
// lab::run_in_netns for another one), with the values of `sysctl_keys`.
Result<HostState> read_host_state(const std::vector<std::string>& sysctl_keys);

}  // namespace hpn::host
