// What each namespace of the lab is told: a switch becomes an IPv6 router
// and IOAM transit node (FIELD.md §3), a host carries its bond addresses on
// its NIC ports; both get their routes (routing.h) and faults (faults.h).
// Pure, so every sysctl and address is checked without root.
#pragma once

#include <vector>

#include "blueprint/model.h"
#include "dataplane/lab_topology.h"
#include "dataplane/network_ops.h"
#include "dataplane/routing.h"

namespace hpn::lab {

// One entry per topology node.
std::vector<NamespaceConfig> namespace_configs(const Blueprint& bp, const LabTopology& topology,
                                               const std::vector<NodeRoutes>& routes);

}  // namespace hpn::lab
