// Every file of one host's profile, rendered, with where it goes:
//
//   profile.json                     the whole profile (schemas/host-profile.schema.json)
//   networkd/10-BOND.netdev          systemd-networkd: the bond     -> /etc/systemd/network/
//   networkd/10-BOND.network         its addresses, routes, rules
//   networkd/20-BOND-ports.network   its two member ports: Bond=BOND
//   netplan/60-hpnctl.yaml           the same for netplan           -> /etc/netplan/
//   sysctl.d/90-hpnctl.conf          the sysctls                    -> /etc/sysctl.d/
//   nccl.env                         NCCLX and NCCL variables (an EnvironmentFile=)
//   ncclx-topology                   NCCLX's topology file          -> /etc/hpnctl/ncclx-topology
//
// networkd/ and netplan/ describe the same network: install one of them.
//
// One host's profile (`profile HOST -o DIR`) adds what names its ports
// (profile_links.cpp): link/10-hpnctl-PORT.link for udev (with networkd;
// netplan's set-name does the same) and udev/60-hpnctl-rdma.rules for the
// RDMA devices. Without a NIC map they are templates (.in).
#pragma once

#include <string>
#include <vector>

#include "hostconfig/profile.h"

namespace hpn {

struct ProfileFile {
  std::string path;     // relative to the host's directory
  std::string content;
  int mode = 0644;
};

std::vector<ProfileFile> networkd_files(const HostProfile& profile);
std::string netplan_yaml(const HostProfile& profile);
std::string sysctl_conf(const HostProfile& profile);
std::string nccl_env(const HostProfile& profile);
std::string ncclx_topology_file(const HostProfile& profile);

// All of the above, plus profile.json.
std::vector<ProfileFile> profile_files(const HostProfile& profile);

std::vector<ProfileFile> link_files(const HostProfile& profile);
bool link_files_are_templates(const HostProfile& profile);  // some port has no NIC map entry

}  // namespace hpn
