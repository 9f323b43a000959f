#include "probe/agent_output.h"

#include "blueprint/atomic_file.h"

namespace hpn::probe {

hpn::Status write_observation_file(const std::string& path, const std::vector<ObservationRecord>& observations) {
  return hpn::write_file_atomic(path, [&](std::ostream& out) {
    for (const auto& o : observations) out << to_json_line(o) << '\n';
  });
}

hpn::Status write_observation_set_file(const std::string& path, const ObservationSet& observations) {
  return hpn::write_file_atomic(path, [&](std::ostream& out) {
    for (const auto& o : observations) out << to_json_line(o) << '\n';
  });
}

}  // namespace hpn::probe
