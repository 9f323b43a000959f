// Spec -> blueprint: every device, port, cable, address and core rule.
#pragma once

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "planner/spec.h"
#include "planner/topology.h"

namespace hpn {

// Expands a spec that passed check_design(). Errors that only show while
// expanding (two devices given one name, a cable no media rule covers) are
// rendered located diagnostics, like the design check's.
// `topology` is derive_topology(spec), as the check had it.
Result<Blueprint> expand(const Spec& spec, const Topology& topology, const std::string& tool_version);

}  // namespace hpn
