// The observation reader (probe/observation.h): JSON lines from probe agents,
// a file copied from hosts. Whatever it accepts it writes back the same way:
// a record read, written and read again gives the same line.
#include <sstream>
#include <string>

#include "probe/observation.h"
#include "fuzz_util.h"

using namespace hpn::probe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(hpn::fuzz::text_of(data, size))};
  auto observations = read_observations(in, "fuzz.jsonl");
  if (!observations) {
    HPN_FUZZ_CHECK(observations.error().message.starts_with("fuzz.jsonl"));
    return 0;
  }
  for (const auto& o : observations.value()) {
    const std::string line = to_json_line(o);
    std::istringstream again_in(line);
    auto again = read_observations(again_in, "again.jsonl");
    HPN_FUZZ_CHECK(again.ok() && again->size() == 1);
    HPN_FUZZ_CHECK(to_json_line(again->front()) == line);
  }
  return 0;
}
