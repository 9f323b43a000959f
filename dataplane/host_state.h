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
#include "dataplane/host_profile.h"

namespace hpn::host {

struct LinkState {
  std::string name;
  int ifindex = 0;
  std::string kind;      // IFLA_INFO_KIND: "bond", "veth", ...; empty for a plain device
  std::string mac;       // "02:4e:10:00:00:01"; empty without one
  int mtu = 0;
  bool up = false;       // IFF_UP
  std::string master;    // the bond (or bridge) it is enslaved to; empty for none
};

struct AddressState {
  std::string ifname;
  Prefix prefix;
};

struct NextHopState {
  std::string gateway;  // canonical; empty for a direct route
  std::string ifname;
  bool onlink = false;
  friend bool operator==(const NextHopState&, const NextHopState&) = default;
};

struct RouteState {
  int family = 4;
  Prefix to;
  int table = 254;
  int protocol = 0;
  std::vector<NextHopState> nexthops;  // sorted
};

struct RuleState {
  int family = 4;
  Prefix from;  // length 0: any source
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

// /proc/sys path of a dotted key: "net.ipv4.conf.bond1.arp_announce" ->
// "/proc/sys/net/ipv4/conf/bond1/arp_announce".
std::string sysctl_path(const std::string& key);

// Reads the state of the calling thread's network namespace (run it inside
// lab::run_in_netns for another one), with the values of `sysctl_keys`.
Result<HostState> read_host_state(const std::vector<std::string>& sysctl_keys);

}  // namespace hpn::host
