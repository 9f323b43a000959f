// The kernel settings a Linux-based NOS needs beside frr.conf: the IOAM
// node and interface IDs per-hop telemetry stamps (FIELD.md §3), forwarding
// and five-tuple ECMP, and on a ToR's host-facing ports the neighbour
// behaviour that turns what hosts announce into host routes (host_routes.h).
// Rendered as a sysctl.d(5) file; the lab writes the same keys into each
// switch namespace.
#pragma once

#include <string>
#include <vector>

#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

struct KernelSetting {
  std::string key;    // sysctl(8) form, dots: "net.ipv6.conf.etp1a.ioam6_id"
  std::string value;
  bool optional = false;  // kept off kernels that lack it (a newer key)
};

std::vector<KernelSetting> linux_sysctls(const SwitchConfig& config);

// The sysctl.d file, with the IOAM namespace (not a sysctl: `ip ioam
// namespace add N`) stated in its header.
std::string sysctl_conf(const SwitchConfig& config);

// The set's ioam.conf: the IOAM namespace the switch stamps, which is a
// kernel object made through generic netlink (`ip ioam namespace add N`),
// not a sysctl. One "namespace N" line; `hpnctl switch apply` reads it
// (switch/switch_set.h) and adds the namespace where it is missing.
inline constexpr const char* kIoamConfFile = "ioam.conf";
std::string ioam_conf(const SwitchConfig& config);

}  // namespace hpn::switchconfig
