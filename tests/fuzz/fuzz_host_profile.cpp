// The host-profile reader of `host apply` (host/host_profile.h): a
// profile copied to a host, maybe edited by hand, read as root.
#include "host/host_profile.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto profile = hpn::host::parse_apply_profile(hpn::fuzz::text_of(data, size), "fuzz.json");
  if (!profile) HPN_FUZZ_CHECK(profile.error().message.starts_with("fuzz.json"));
  return 0;
}
