// The side effects of the lab, behind one narrow interface (STYLE.md §2):
// named network namespaces, veth pairs between them, one declarative
// configuration per namespace, and reading interfaces back. netlink_ops.h
// is the real one (libnl); tests use a fake that records what it is asked.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "blueprint/result.h"
#include "lab/frr.h"
#include "blueprint/host_network.h"
#include "switch/host_routes.h"
#include "lab/lab_topology.h"
#include "lab/routing.h"
#include "switchconfig/interfaces_file.h"

namespace hpn::lab {

// One end of a veth pair to create, in an existing named namespace, or in
// this process's own namespace when `netns` is empty (the management
// network's end on the machine, hpnctl lab up --ssh).
struct VethEnd {
  std::string netns;
  std::string ifname;
  Mac mac{};
};

// A /proc/sys entry, as a path below /proc/sys ("net/ipv6/conf/etp5/ioam6_id"):
// slashes, not sysctl(8)'s dots, because interface names may hold dots.
struct Sysctl {
  std::string key;
  std::string value;
  bool optional = false;  // skipped where this kernel does not have the key
};

struct AddressConfig {
  std::string ifname;
  std::string address;  // without length
  int prefix_len = 64;
  // IFA_F_NOPREFIXROUTE: the address without its on-link prefix route (a
  // host's bond address on each member port, reached only through a ToR).
  bool no_prefix_route = false;
};

struct NeighbourConfig {
  std::string ifname;
  std::string address;
  Mac mac{};
};

// Everything inside one namespace, applied in this order: sysctls,
// bridges, bridge ports, addresses, links up (with "lo"), links down,
// permanent neighbours, source rules, routes, nftables. An empty namespace
// name is this process's own.
struct NamespaceConfig {
  std::vector<Sysctl> sysctls;
  std::vector<std::string> bridges;                             // created, as `ip link add NAME type bridge`
  std::vector<std::pair<std::string, std::string>> bridge_ports;  // {port, bridge}: the port joins the bridge
  std::vector<AddressConfig> addresses;
  std::vector<std::string> links_up;
  std::vector<std::string> links_down;
  std::vector<NeighbourConfig> neighbours;
  std::vector<SourceRule> rules;
  std::vector<Route> routes;
  std::string nft_script;  // empty: none
};

// An interface as the kernel reports it.
struct InterfaceState {
  std::string ifname;
  std::string mac;                     // "02:01:00:00:00:50"
  bool up = false;                     // administratively up
  bool carrier = false;                // lower layer up (the veth peer is up)
  std::vector<std::string> addresses;  // "fd48:504e::10/64", IPv6 only
};

// A route as the kernel holds it (main table unless said otherwise).
struct RouteState {
  int family = 6;
  std::string prefix;  // "fd48:504e::10/128"
  std::uint32_t table = kMainTable;
  int protocol = 0;    // RTPROT_*: 186 bgp, 80 the ToR host-route agent
  std::vector<std::string> nexthop_ifnames;  // sorted
  friend bool operator==(const RouteState&, const RouteState&) = default;
};

// A policy rule: what pbrd installs for a core rule ("iif etp1 to PREFIX lookup T").
struct RuleState {
  int family = 6;
  std::string iif;
  std::string dst;  // "fd48:504e:0:6::/63", empty for any
  std::uint32_t table = 0;
  std::uint32_t priority = 0;
};

class NetworkOps {
 public:
  virtual ~NetworkOps() = default;
  // As `ip netns add NAME`: a bind mount under /run/netns.
  virtual Status create_namespace(const std::string& name) = 0;
  // As `ip netns del NAME`; a name that does not exist is not an error.
  virtual Status delete_namespace(const std::string& name) = 0;
  // Every named namespace (the names under /run/netns).
  virtual Result<std::vector<std::string>> namespaces() = 0;
  virtual Status add_veth(const VethEnd& a, const VethEnd& z) = 0;
  virtual Status configure(const std::string& netns, const NamespaceConfig& config) = 0;
  virtual Result<std::vector<InterfaceState>> interfaces(const std::string& netns) = 0;

  // The lab's routing (frr.h, host_routes.h). check_routing: FRR is
  // installed (with pbrd when `pbrd`), or an error naming the package.
  // start_routing, bgpd_show and routes are called from several threads at once.
  virtual Status check_routing(bool pbrd) = 0;
  virtual Status start_routing(const RoutingDaemons& daemons, const std::string& frr_conf) = 0;
  virtual Status stop_routing(const std::vector<RoutingDaemons>& daemons) = 0;
  // Empty while the set's daemons run, else what is wrong (frr.h).
  virtual std::string routing_problem(const RoutingDaemons& daemons) = 0;
  // What the switch's bgpd answers to a show command (ask_daemon, frr.h).
  virtual Result<std::string> bgpd_show(const std::string& netns, const std::string& command) = 0;
  virtual Status vtysh_apply(const RoutingDaemons& daemons, const std::string& name, const std::string& lines) = 0;
  // A ToR's host-route agent, as its unit starts it: `config_text` (its
  // switch-agent.json) written to launch.config, then spawn_switch_agent()
  // (host_routes.h); its pid once it is ready.
  virtual Result<int> start_switch_agent(const SwitchAgentLaunch& launch, const std::string& config_text) = 0;
  // SIGTERM, then SIGKILL if it is still there after a moment; a pid that
  // is gone is not an error.
  virtual Status stop_process(int pid) = 0;
  // Each of the machine's own sysctls (its first namespace, where hpnctl
  // runs) raised to at least the value given; one already higher is left,
  // and one the kernel lacks is skipped. Nothing is lowered, at lab down
  // either: another lab may be up.
  virtual Status raise_machine_sysctls(const std::map<std::string, long>& at_least) = 0;
  virtual Result<std::vector<RouteState>> routes(const std::string& netns) = 0;
  virtual Result<std::vector<RuleState>> rules(const std::string& netns) = 0;
  // A lab host, configured as a real one is: `hpnctl host apply --netns
  // NETNS [--no-bond]` with its profile, by the same code (host_apply.h).
  // A profile that conflicts with what the namespace holds is refused; a
  // failed apply is rolled back. Returns the number of changes made.
  virtual Result<size_t> apply_host(const std::string& netns, const HostNetwork& profile, bool no_bond) = 0;
  // A lab switch, configured as a real one is: its file set (`files`, as
  // `hpnctl config --all --bring-up` writes them for it) written into
  // `dir`, then `hpnctl switch apply DIR --netns NETNS` by the same code
  // (switch/switch_apply.h). Another switch's set, or a conflict with what
  // the namespace holds, is refused; a failed apply is rolled back.
  // Returns the number of changes made.
  virtual Result<size_t> apply_switch(const std::string& netns, const std::string& dir,
                                      const std::vector<switchconfig::SwitchFile>& files) = 0;
  // `hpnctl host announce --netns NETNS`: a gratuitous ARP and an
  // unsolicited neighbour advertisement out of every member port
  // (host_announce.h), but the `dark` ones: ports whose cable is down or
  // missing, where nothing would leave.
  virtual Status announce_host(const std::string& netns, const HostNetwork& profile,
                               const std::set<std::string>& dark) = 0;
  // Removes a directory the lab made (FRR's files), with what it holds.
  virtual Status remove_tree(const std::string& path) = 0;
  // Makes `path` (its parent made as needed); false when it already
  // exists. The lab's id is claimed this way (its FRR directory) before
  // any namespace is named after it: two `lab up`s with different records
  // that drew the same id cannot both have it.
  virtual Result<bool> claim_directory(const std::string& path) = 0;

  // The management network's SSH (lab_fleet.h). make_ssh_keys: a fresh
  // host key and client key in `dir` (made, mode 0700), as ssh-keygen
  // writes them; returns the host key's public line ("ssh-ed25519 AAAA...").
  // Debian's sshd is installed, or an error naming the package.
  virtual Status check_ssh() = 0;
  virtual Result<std::string> make_ssh_keys(const std::string& dir, const std::string& comment) = 0;
  // Starts Debian's sshd inside the namespace with these arguments after
  // the program (-f CONFIG -o ...); it daemonizes and writes `pid_file`,
  // whose pid is returned.
  virtual Result<int> start_sshd(const std::string& netns, const std::vector<std::string>& args,
                                 const std::string& pid_file) = 0;
  // SIGTERM, then SIGKILL, to every process whose network namespace is one
  // of these named ones (sshd and its sessions, which outlive their master):
  // a namespace is gone only once nothing runs in it. The number signalled.
  virtual Result<int> stop_processes_in(const std::vector<std::string>& netns) = 0;
};

}  // namespace hpn::lab
