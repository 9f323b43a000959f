// Observations as tests edit them: the set (probe/observation.h) holds each
// record as it was added, so a test that drops or changes records copies
// them out as owning records and puts them back into a set for the readers.
#pragma once

#include <vector>

#include "probe/observation.h"

namespace hpn::test {

inline std::vector<probe::ObservationRecord> records_of(const probe::ObservationSet& set) {
  return {set.begin(), set.end()};
}

inline probe::ObservationSet set_of(const std::vector<probe::ObservationRecord>& records) {
  probe::ObservationSet set;
  set.add_all(records);
  return set;
}

}  // namespace hpn::test
