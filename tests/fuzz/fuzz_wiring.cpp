// The wiring file reader (dataplane/wiring.h), a hand-edited CSV, against
// the lab pod's blueprint (planned once, at start-up). Every cable it
// accepts names devices of the blueprint.
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "lab/wiring.h"
#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "fuzz_util.h"

namespace {

std::optional<hpn::Plan> lab_plan;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::ifstream in(HPN_SOURCE_DIR "/examples/lab-pod.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  auto spec = hpn::load_spec(text.str(), "lab-pod.yaml");
  if (!spec) std::abort();
  auto plan = hpn::make_plan(std::move(spec.value()), "fuzz");
  if (!plan) std::abort();
  lab_plan.emplace(std::move(plan.value()));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& bp = lab_plan->blueprint;
  auto wiring = hpn::lab::parse_wiring(hpn::fuzz::text_of(data, size), "fuzz.csv", bp);
  if (!wiring) {
    HPN_FUZZ_CHECK(wiring.error().message.starts_with("fuzz.csv"));
    return 0;
  }
  const auto devices = static_cast<int>(bp.devices.size());
  for (const auto& c : wiring->cables) {
    HPN_FUZZ_CHECK(c.a_device >= 0 && c.a_device < devices);
    HPN_FUZZ_CHECK(c.z_device >= 0 && c.z_device < devices);
    hpn::lab::Fault back;
    HPN_FUZZ_CHECK(hpn::lab::parse_fault(c.fault.to_string(), back) && back == c.fault);
  }
  return 0;
}
