// `hpnctl lab up --ssh`: the lab as a fleet that Ansible reaches as it
// reaches real hosts and switches. A management namespace (PREFIX + "mgmt")
// holds a bridge; every lab device has an interface `mgmt0` on it with an
// IPv4 address of the management range, and so has the machine
// (`hpnm-ID`), so that ssh from the machine reaches every device. sshd
// (Debian's openssh-server) runs inside every device namespace with a host
// key and a client key the lab makes; the namespaces share the machine's
// one file system, which is why the inventory (lab_inventory) gives every
// host a profile path of its own.
//
// The range is the first /16 of 198.18.0.0/15, set aside for benchmarking
// (RFC 2544): the machine's routes are read first, and a route into it
// (another lab's, or anything of the machine's) refuses the lab.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "blueprint/export_ansible.h"
#include "blueprint/model.h"
#include "blueprint/result.h"
#include "lab/lab_state.h"
#include "lab/network_ops.h"

namespace hpn::lab {

inline constexpr const char* kSshd = "/usr/sbin/sshd";
inline constexpr const char* kSshKeygen = "/usr/bin/ssh-keygen";
inline constexpr const char* kSshdPrivsepDir = "/run/sshd";
inline constexpr const char* kSshPackage = "openssh-server";
inline constexpr const char* kLabHostKey = "host_key";    // in the ssh directory, with .pub
inline constexpr const char* kLabClientKey = "lab_key";   // likewise: the controller's identity
inline constexpr const char* kLabKnownHosts = "known_hosts";
// Beside them, each device's interfaces by blueprint port, in the shape of
// `lab status --format json` that the probe agents' --ports-from reads.
inline constexpr const char* kLabPortNames = "ports.json";
inline constexpr const char* kManagementIfname = "mgmt0";
inline constexpr const char* kManagementBridge = "mgmt0";
inline constexpr std::uint32_t kManagementBase = 0xC6120000;  // 198.18.0.0
inline constexpr int kManagementPrefixLen = 16;

// The machine's end of lab `id`'s management network: "hpnm-" + ID.
std::string management_ifname(const std::string& id);

// The management network of a lab about to get one: pure, from the record.
struct ManagementNetwork {
  std::string netns;              // PREFIX + "mgmt"
  std::string controller_ifname;  // the machine's end: management_ifname(ID)
  std::string controller_address; // 198.18.0.1
  std::string ssh_dir;            // ROUTING_DIR/ssh
  // Per device of state.devices, in order: its address (198.18.1.0 on).
  std::vector<std::string> addresses;
};
Result<ManagementNetwork> plan_management(const LabState& state);

// Refuses when a route of the machine's (IPv4, any table) reaches into the
// management range other than the default route, naming it.
Status check_management_range(const std::vector<RouteState>& machine_routes);

// The sshd_config every device's sshd reads: keys from `ssh_dir`, root by
// key only, no PAM, no passwords; the address and pid file are given per
// device on the command line.
std::string sshd_config(const std::string& ssh_dir);

// Brings the management network up for a lab that is up otherwise: checks
// the range, makes the namespace, the bridge, each device's veth and
// address, the keys and known_hosts, and starts sshd in every device
// namespace. The record (`state`, written by `record`) names the
// namespace and every address before any of it is made, so `lab down`
// removes it all whatever fails.
Status bring_up_management(LabState& state, NetworkOps& ops, const std::function<Status()>& record);

// The inventory of a running lab with a management network (`hpnctl lab
// inventory`): the plan's groups (export_ansible.h) over the lab's
// devices, each at its mgmt0 address, reached as root with the lab's key
// and known_hosts. Per host its own profile path (hpnctl_profile_path,
// under the lab's directory: the namespaces share one file system) and
// `host apply --netns NETNS` (the lab host's identity is its namespace's
// name; `--no-bond` unless the lab has real bonds); per switch its FRR
// pathspace and frr.conf. `hpnctl` is the binary the devices run.
Result<Inventory> lab_inventory(const Blueprint& bp, const LabState& state, const std::string& hpnctl);

// The pid file of the sshd of `device`.
std::string sshd_pid_file(const std::string& ssh_dir, const std::string& device);

}  // namespace hpn::lab
