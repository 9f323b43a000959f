// The probe key reader (probe/probe_key.h): hex text from --key-file or
// HPNCTL_PROBE_KEY. A key it accepts has a length in the documented range,
// and an error never quotes the text (it may be a secret).
#include <string>

#include "probe/probe_key.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = hpn::fuzz::text_of(data, size);
  auto key = hpn::probe::parse_probe_key(text, "fuzz.key");
  if (key) {
    HPN_FUZZ_CHECK(key->bytes.size() >= hpn::probe::kMinProbeKeyBytes &&
                   key->bytes.size() <= hpn::probe::kMaxProbeKeyBytes);
  } else if (size >= 8 && text.find_first_not_of("0123456789abcdefABCDEF \t\r\n") == std::string_view::npos) {
    // Text that looks like a key (hex and white space) is never echoed.
    HPN_FUZZ_CHECK(key.error().message.find(text) == std::string::npos);
  }
  return 0;
}
