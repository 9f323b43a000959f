// What each namespace of the lab is told before its routing starts. A
// switch gets the kernel settings of its switch configuration
// (switchconfig/linux_sysctl.h: forwarding, ECMP, IOAM IDs, the ToR's
// neighbour behaviour), its IOAM namespace, the lab's link-local address
// on every port and its links up; FRR does the rest from frr.conf. A host
// gets only its ports' link-local addresses and its hash seed: the rest is
// its profile's, which lab up applies as `host apply` does. Both get their
// faults of the first phase (faults.h). Pure, so every sysctl and address is checked
// without root.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "host/host_profile.h"
#include "lab/lab_topology.h"
#include "lab/network_ops.h"
#include "lab/routing.h"
#include "switchconfig/linux_sysctl.h"
#include "switchconfig/switch_config.h"

namespace hpn::lab {

// The switch configuration of each node (nullopt for hosts), from the
// blueprint as `hpnctl config` makes it; and in `topology` the ToRs'
// host-facing ports take the pair's gateway MAC, as the configuration
// gives them.
Result<std::vector<std::optional<switchconfig::SwitchConfig>>> switch_configs(const Blueprint& bp,
                                                                              LabTopology& topology);

// Pointers into switch_configs(), for namespace_configs().
std::vector<const switchconfig::SwitchConfig*> config_pointers(
    const std::vector<std::optional<switchconfig::SwitchConfig>>& configs);

// One entry per topology node. `switches` holds, per node, its switch
// configuration (nullptr for hosts).
std::vector<NamespaceConfig> namespace_configs(const Blueprint& bp, const LabTopology& topology,
                                               const std::vector<const switchconfig::SwitchConfig*>& switches);

// Every lab host's profile by node, made and read back as `hpnctl profile`
// writes it and `hpnctl host apply` reads it: lab up applies them, so the
// lab's hosts run the production configuration, not one of the lab's own.
Result<std::map<int, host::ApplyProfile>> host_profiles(const Blueprint& bp, const LabTopology& topology);

// The sysctl of a kernel setting, or nullopt when it names an interface
// this namespace does not have (a planned port with no cable in the lab).
std::optional<Sysctl> lab_sysctl(const switchconfig::KernelSetting& setting, const std::vector<std::string>& ifnames);

}  // namespace hpn::lab
