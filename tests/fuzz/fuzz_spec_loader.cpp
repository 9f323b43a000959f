// The pod-spec loader (planner/spec_loader.h) on arbitrary text: a spec is a
// file people edit by hand. A loaded spec then goes through the design check,
// which must judge any values the loader let through.
#include "planner/design_check.h"
#include "planner/spec_loader.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto spec = hpn::load_spec(hpn::fuzz::text_of(data, size), "fuzz.yaml");
  if (!spec) {
    HPN_FUZZ_CHECK(!spec.error().message.empty());
    return 0;
  }
  (void)hpn::check_design(spec.value());
  return 0;
}
