// Host profiles: what one GPU host needs on day one, derived from the
// blueprint alone. Per NIC a bond of its two ports (HPN dual-ToR: one port
// per ToR, one IP and one MAC, RoCE LAG underneath) with ARP monitoring
// toward both ToR gateways, its addresses, routes and sysctls; per path
// class the transport settings (path_class.h, dqplb.h); and the NCCL/NCCLX
// environment that carries them. The model is plain data; profile_json.h
// (in the format blueprint/host_profile_format.h describes),
// profile_networkd.h, profile_netplan.h and profile_env.h render it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blueprint/host_profile_format.h"
#include "blueprint/model.h"
#include "blueprint/result.h"
#include "hostconfig/dqplb.h"
#include "hostconfig/nic_map.h"
#include "hostconfig/path_class.h"
#include "hostconfig/profile_paths.h"
#include "planner/spec.h"

namespace hpn {

inline constexpr int kMainTable = 254;

struct BondMember {
  std::string port;             // the host port: the blueprint names the netdev
  int speed_gbps = 0;
  std::string cable;            // empty: not cabled
  std::string peer, peer_port;  // the switch and port at the far end
  int plane = kNone;
  std::string gateway_ipv4, gateway_ipv6;  // the far switch's gateway toward this host
  std::string gateway_mac;                 // what it answers with (addressing.gateway_mac)
  // With --nic-map (nic_map.h): the interface that is this port on the real
  // host. `host apply` renames it to `port`; the .link files do at boot.
  std::optional<NicPort> match;
};

struct BondRoute {
  int family = 4;
  std::string to;                // prefix
  std::vector<std::string> via;  // next hops, one per ToR
  int table = kMainTable;
};

struct BondRule {
  int family = 4;
  std::string from;  // the bond's address as a host prefix
  int table = 0;
  int priority = 0;
};

struct Bond {
  std::string name;
  int nic = 0;
  bool backend = true;               // false: the front-end NIC 0
  std::vector<BondMember> members;
  std::string mac;
  int mtu = 0;
  std::string ipv4, ipv6;            // without the prefix length
  int ipv4_len = 0, ipv6_len = 0;
  BondMode mode = BondMode::balance_xor;
  // ARP monitoring (arp_interval, arp_ip_target) toward the members' gateways;
  // 802.3ad refuses it and gets MII monitoring instead.
  bool arp_monitor = false;
  int arp_interval_ms = 0;
  std::vector<std::string> arp_targets;
  // "all" in balance-xor: each member probes its own ToR and counts only
  // that ToR's replies. "active" in active-backup: only the active member
  // probes, and the backup, on the other ToR, shares no L2 domain with it to
  // see those probes (non-stacked ToRs), so validating it would keep it down.
  std::string arp_validate;
  int miimon_ms = 0;
  int speed_gbps = 0;                // what the bond can send: both ports, or one in active-backup
  int table = kMainTable;
  std::vector<BondRoute> routes;
  std::vector<BondRule> rules;
  std::string rdma_device;           // the RoCE LAG device's name, back end only
};

struct Sysctl {
  std::string key, value;
};

// A path class with its DQPLB setting and where NCCLX reads it. NCCLX has
// fewer levels than there are classes (cross-rail and same-segment are both
// "same rack" to it, profile_nccl.h), so a level's variables carry the
// setting of its class with the largest window: `ncclx_setting` is that
// class, this one or another.
struct ClassProfile {
  PathClass path;
  DqplbSetting dqplb;
  std::string ncclx_peer;            // NCCLX's connection type: same-rack, same-zone, same-dc, diff-dc
  std::vector<std::string> env;      // the variables that carry it
  PathScope ncclx_setting = PathScope::same_segment;
};

// NCCLX's topology file (NCCL_TOPO_FILE_PATH): DEVICE_NAME and
// DEVICE_BACKEND_NETWORK_TOPOLOGY=<dc>/<zone>/<su>/<rtsw>.
struct NcclxTopology {
  std::string path;                  // where the env file says it is installed
  std::string dc, zone, su, rtsw;
  std::string value() const { return dc + "/" + zone + "/" + su + "/" + rtsw; }
};

struct EnvVar {
  std::string name, value;
};

struct HostProfile {
  std::string host;
  uint32_t node_id = 0;
  State state = State::active;
  int hall = 0, pod = 0, segment = 0;
  std::string rack;
  int ru = 0;
  std::string spec_name, tool_version;
  BondMode mode = BondMode::balance_xor;
  std::vector<Bond> bonds;           // NIC 0 (front end) first, then 1..N
  std::vector<Sysctl> sysctls;
  std::vector<ClassProfile> classes;
  NcclxTopology topology;
  std::vector<EnvVar> env;           // NCCLX's variables, then stock NCCL's
  std::optional<std::string> paths_source;  // the --paths file, if one was given
  std::vector<MeasuredPorts> source_ports;  // this host's entries in it
};

// The host's ports in plan order, bond by bond: what a NIC map maps.
std::vector<std::string> planned_ports(const HostProfile& profile);
// Gives each member its interface in `map` (which maps every planned port).
void apply_nic_map(HostProfile& profile, const NicMap& map);

struct ProfileOptions {
  std::optional<BondMode> mode;      // default: transport.bond_mode of the spec
  std::optional<int> mtu;            // back-end MTU; default: transport.mtu
  const PathsFile* paths = nullptr;  // disjoint source ports from the verify step
};

// Builds profiles of one blueprint. create() reads the blueprint's own spec
// (its transport section, back-end prefixes), indexes the blueprint once and
// works out the fabric's path classes, which every host shares: NCCLX needs
// both ends of a connection to agree on its QPs.
class ProfileBuilder {
 public:
  static Result<ProfileBuilder> create(const Blueprint& bp, const ProfileOptions& options);

  const std::vector<int>& hosts() const { return hosts_; }  // device indexes, blueprint order
  std::optional<int> find_host(std::string_view name) const;
  std::vector<std::string> host_names() const;
  const std::vector<ClassProfile>& classes() const { return classes_; }
  const Spec& spec() const { return spec_; }
  const Blueprint& blueprint() const { return *bp_; }

  // `device` must be one of hosts().
  HostProfile build(int device) const;

 private:
  ProfileBuilder() = default;
  Bond make_bond(int host, const Interface& row) const;

  const Blueprint* bp_ = nullptr;
  Spec spec_;
  BondMode mode_ = BondMode::balance_xor;
  int mtu_ = 0;
  const PathsFile* paths_ = nullptr;
  std::vector<int> hosts_;
  std::unordered_map<std::string, int> host_index_;
  std::vector<std::vector<int>> host_cables_;  // per device: cables whose a-end it is
  std::vector<std::vector<int>> host_rows_;    // per device: its "host" interfaces
  std::vector<int> gateway_;                   // per device: its gateway interface, or -1
  std::vector<ClassProfile> classes_;
};

}  // namespace hpn
