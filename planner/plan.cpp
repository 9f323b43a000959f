#include "planner/plan.h"

#include "planner/design_check.h"
#include "planner/expand.h"
#include "planner/spec_loader.h"

namespace hpn {

Result<Spec> load_plan_spec(const std::optional<std::string>& path) {
  return path ? load_spec_file(*path) : default_spec();
}

Result<Plan> make_plan(Spec spec, const std::string& tool_version) {
  // Derived once: the check, the expansion and the summary count the same
  // fabric.
  const Topology topology = derive_topology(spec);
  if (auto st = check_design(spec, topology); !st) return st.error();
  auto bp = expand(spec, topology, tool_version);
  if (!bp) return bp.error();
  Plan plan;
  plan.summary = summarize(spec, topology, bp.value());
  plan.blueprint = std::move(bp.value());
  plan.spec = std::move(spec);
  return plan;
}

}  // namespace hpn
