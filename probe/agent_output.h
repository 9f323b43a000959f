// Writing a run's observations.
#pragma once

#include <string>
#include <vector>

#include "blueprint/result.h"
#include "probe/observation.h"

namespace hpn::probe {

// One JSON line each, written to a temporary file beside `path` and renamed
// over it: a reader (or a crash) never sees half a run, and a failed write
// leaves an older file untouched.
hpn::Status write_observation_file(const std::string& path, const std::vector<ObservationRecord>& observations);
hpn::Status write_observation_set_file(const std::string& path, const ObservationSet& observations);

}  // namespace hpn::probe
