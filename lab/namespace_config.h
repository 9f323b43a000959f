// What each namespace of the lab is told before its routing starts, beside
// what the shipped commands make. A switch is made what its file set says
// by switch apply's code (forwarding, ECMP, IOAM IDs and namespace, the
// ToR's neighbour behaviour, MACs, MTUs, addresses, admin state) and FRR
// does the rest from frr.conf: the lab adds only what no switch ships
// (hpnctl-lab(1)): the ICMPv6 rate limit and its faults. A host gets only
// its ports' link-local addresses and its hash seed: the rest is its
// profile's, which lab up applies as `host apply` does. Both get their
// faults of the first phase (faults.h). Pure, so every sysctl and address
// is checked without root.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/host_network.h"
#include "lab/lab_topology.h"
#include "lab/network_ops.h"
#include "lab/routing.h"
#include "switchconfig/switch_config.h"

namespace hpn::lab {

// The switch configuration of each node (nullopt for hosts), from the
// blueprint as `hpnctl config --bring-up` makes it; in `topology` the ToRs'
// host-facing ports get the EUI-64 link-local of the pair's gateway MAC
// (which switch apply gives them), and every port of a switch's
// configuration that the wiring leaves without a cable is unplugged.
Result<std::vector<std::optional<switchconfig::SwitchConfig>>> switch_configs(const Blueprint& bp,
                                                                              LabTopology& topology);

// Pointers into switch_configs(), for namespace_configs().
std::vector<const switchconfig::SwitchConfig*> config_pointers(
    const std::vector<std::optional<switchconfig::SwitchConfig>>& configs);

// One entry per topology node. `switches` holds, per node, its switch
// configuration (nullptr for hosts).
std::vector<NamespaceConfig> namespace_configs(const Blueprint& bp, const LabTopology& topology,
                                               const std::vector<const switchconfig::SwitchConfig*>& switches);

// Every lab host's network by node, as `hpnctl profile` builds it (the
// network part of its profile, which `hpnctl host apply` reads back from
// profile.json as the same value: tests/hostconfig/profile_round_trip_test.cpp):
// lab up applies them, so the lab's hosts run the production configuration,
// not one of the lab's own.
Result<std::map<int, HostNetwork>> host_profiles(const Blueprint& bp, const LabTopology& topology);

}  // namespace hpn::lab
