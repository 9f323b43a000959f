// The LLDP dump reader (validator/lldp.h): `lldpcli -f json0 show neighbors
// details` output copied from switches and hosts. It promises never to throw
// and to name the source in every error.
#include "validator/lldp.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto neighbours = hpn::validator::parse_lldp_json(hpn::fuzz::text_of(data, size), "fuzz.json");
  if (!neighbours) HPN_FUZZ_CHECK(neighbours.error().message.starts_with("fuzz.json"));
  return 0;
}
