// A switch's interfaces as systemd-networkd files (systemd.link(5),
// systemd.network(5), systemd 252 as in Debian 12), beside frr.conf and
// sysctl.conf in each switch's directory of `config --all`:
//
//   networkd/10-hpn-lo.network          the loopback's /32 and /128
//   networkd/20-hpn-host-ports.link     a ToR's host-facing ports: the rail's
//                                       gateway MAC, shared by both ToRs
//   networkd/30-hpn-PORT.network        a port's MTU, admin state
//                                       (ActivationPolicy=) and link addresses
//   networkd/30-hpn-host-ports.network  ports that say the same share a file
//   networkd/30-hpn-down-ports.network  ([Match] Name= takes a list): a ToR's
//                                       host ports (the gateway /32 and /128),
//                                       the ports that stay down
//
// Every [Match] names the switch (Host=), so a file copied to another
// switch matches nothing there, and `hpnctl switch apply` refuses it. Why
// networkd: Debian's systemd has it, with no package to add to a switch;
// ifupdown2 is a package of its own. `switch apply` (switch/switch_set.h)
// reads exactly these files back.
#pragma once

#include <string>
#include <vector>

#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

struct SwitchFile {
  std::string path;  // relative to the switch's directory: "networkd/30-hpn-etp1.network"
  std::string text;
};

inline constexpr const char* kNetworkdDir = "networkd";

std::vector<SwitchFile> networkd_files(const SwitchConfig& config);

}  // namespace hpn::switchconfig
