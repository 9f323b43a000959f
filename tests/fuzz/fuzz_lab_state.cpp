// The lab's record (dataplane/lab_state.h), read back by `lab down` and
// `lab status` from /run after crashes: any bytes, parsed as LabStateFile::load
// does. A record accepted survives a write and a read unchanged.
#include <nlohmann/json.hpp>

#include "lab/lab_state.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto json = nlohmann::json::parse(hpn::fuzz::text_of(data, size), nullptr, false);
  if (json.is_discarded()) return 0;
  auto state = hpn::lab::state_from_json(json);
  if (!state) return 0;
  const auto written = hpn::lab::to_json(state.value());
  auto again = hpn::lab::state_from_json(written);
  HPN_FUZZ_CHECK(again.ok());
  HPN_FUZZ_CHECK(hpn::lab::to_json(again.value()) == written);
  return 0;
}
