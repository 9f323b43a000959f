// The BGP dump reader (validator/bgp.h): FRR's `show bgp neighbors json`
// copied from switches. It promises never to throw, to refuse a dump past
// its size and shape bounds before parsing it, and to name the source in
// every error.
#include "validator/bgp.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto sessions = hpn::validator::parse_bgp_neighbors(hpn::fuzz::text_of(data, size), "fuzz.json");
  if (!sessions) HPN_FUZZ_CHECK(sessions.error().message.starts_with("fuzz.json"));
  return 0;
}
