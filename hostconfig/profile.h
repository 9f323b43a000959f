// Host profiles: what one GPU host needs on day one, derived from the
// blueprint alone. Its network, the one type host apply acts on too
// (blueprint/host_network.h): per NIC a bond of its two ports (HPN dual-ToR:
// one port per ToR, one IP and one MAC, RoCE LAG underneath) with ARP
// monitoring toward both ToR gateways, its addresses, routes and sysctls.
// Beside it what only the planner has: where the host stands, per path class
// the transport settings (path_class.h, dqplb.h) and the NCCL/NCCLX
// environment that carries them. The model is plain data; profile_json.h (in
// the format blueprint/host_profile_format.h describes) and profile_files.h
// (networkd, netplan, sysctl.d, NCCL, .link files) render it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blueprint/host_network.h"
#include "blueprint/host_profile_format.h"
#include "blueprint/model.h"
#include "blueprint/result.h"
#include "hostconfig/dqplb.h"
#include "hostconfig/nic_map.h"
#include "hostconfig/path_class.h"
#include "hostconfig/profile_paths.h"
#include "planner/spec.h"

namespace hpn {

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

// The network part (source, host, node ID, bonds, sysctls) is what host
// apply reads back from profile.json, and what the lab applies as it is.
struct HostProfile : HostNetwork {
  State state = State::active;
  int hall = 0, pod = 0, segment = 0;
  std::string rack;
  int ru = 0;
  std::string spec_name, tool_version;
  BondMode mode = BondMode::balance_xor;  // every bond's
  std::vector<ClassProfile> classes;
  NcclxTopology topology;
  std::vector<EnvVar> env;           // NCCLX's variables, then stock NCCL's
  std::optional<std::string> paths_source;  // the --paths file, if one was given
  std::vector<MeasuredPorts> source_ports;  // this host's entries in it
  // The --nic-map the members' matches came from: the .link files match a
  // real device by its burnt-in MAC (NicPort::permanent), which profile.json
  // does not record.
  std::optional<NicMap> nic_map;
};

// The host's ports in plan order, bond by bond: what a NIC map maps.
std::vector<std::string> planned_ports(const HostProfile& profile);
// Gives each member its interface in `map` (which maps every planned port),
// and keeps the map for the .link files.
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
