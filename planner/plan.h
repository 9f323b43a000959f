// The whole of `hpnctl plan` below the command line: spec -> checked ->
// expanded -> summarized. Writing is plan_output.h.
#pragma once

#include <optional>
#include <string>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "planner/spec.h"
#include "planner/summary.h"

namespace hpn {

struct Plan {
  Spec spec;
  Blueprint blueprint;
  PlanSummary summary;
};

// The spec at `path`, or the built-in default pod when none is given.
Result<Spec> load_plan_spec(const std::optional<std::string>& path);

// Design check, then expansion. Errors are rendered, located diagnostics.
Result<Plan> make_plan(Spec spec, const std::string& tool_version);

}  // namespace hpn
