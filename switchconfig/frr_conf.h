// frr.conf for FRR 8.4 (Debian 12) on a Linux-based NOS, the form the lab
// runs: zebra holds the interfaces' addresses and states, bgpd the
// unnumbered fabric sessions, pbrd a core's port-to-pod rules. Interface
// names are the Linux ones (switch_config.h). Deterministic: the same
// blueprint gives the same bytes.
#pragma once

#include <string>

#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

// The whole file.
std::string frr_conf(const SwitchConfig& config);

// Only a core's pbr-maps and the interfaces' pbr-policy lines, for loading
// through vtysh once the links are up: pbrd installs nothing for a map
// whose next hops were unreachable when it read its configuration (FIELD.md
// §7). Empty for a switch without active rules.
std::string frr_pbr_conf(const SwitchConfig& config);

// The kernel routing protocol number the ToR's host routes carry
// (host_routes.h): zebra takes routes of an unknown protocol as "kernel"
// routes, which bgpd redistributes through the HOST-ROUTES route-map.
inline constexpr int kHostRouteProtocol = 80;

}  // namespace hpn::switchconfig
