// The probe agent's --port-names-file reader (probe/agent_options.h): a lab
// status document, or any JSON of that shape, mapping interfaces to the
// blueprint's port names.
#include <string>

#include "probe/agent_options.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hpn::probe::PortNames names;
  (void)hpn::probe::port_names_from_status(hpn::fuzz::text_of(data, size), "host-p0-s00-h000", "fuzz.json",
                                           names);
  return 0;
}
