// The `hpnctl-paths` file reader (hostconfig/profile_paths.h) that
// `hpnctl profile --paths` takes: JSON written by verify, maybe edited.
// What it accepts keeps the promised order: ports ascending and distinct.
#include "hostconfig/profile_paths.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto paths = hpn::parse_paths(hpn::fuzz::text_of(data, size), "fuzz.json");
  if (!paths) return 0;
  for (const auto& [host, entries] : paths->hosts) {
    for (const auto& e : entries) {
      for (std::size_t i = 1; i < e.udp_source_ports.size(); ++i) {
        HPN_FUZZ_CHECK(e.udp_source_ports[i - 1] < e.udp_source_ports[i]);
      }
    }
  }
  return 0;
}
