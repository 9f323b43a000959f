// A run's observations resolved against the blueprint once: the devices,
// ports and addresses they name as indexes. The diff's passes over a pod's
// million and more records then compare integers instead of hashing the
// same names again and again (diagnosis_bench: string look-ups were over
// 40% of the diff's time).
#pragma once

#include <compare>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blueprint/fabric_index.h"
#include "probe/huge_pages.h"
#include "probe/observation.h"

namespace hpn::probe {

struct ResolvedObservation {
  std::int32_t src = -1, dst = -1;            // devices, -1: not in the plan (or no sender named)
  std::int32_t src_port = -1, rx_port = -1;   // port_by_name() at src and at dst
  // FabricIndex::address_number(), or for an address the plan lacks a
  // number after those (the same text, the same number).
  std::int32_t src_address = -1, dst_address = -1;
};

// A probe as both ends name it: run id (run_id_of(), as a listener writes
// it), number, and the sender's address number and source port.
struct ProbeId {
  std::uint64_t run = 0, probe = 0;
  std::int32_t address = 0, port = 0;
  friend auto operator<=>(const ProbeId&, const ProbeId&) = default;
};

class ObservationIndex {
 public:
  // Views `observations`, which must outlive the index.
  ObservationIndex(const FabricIndex& fabric, const ObservationSet& observations);

  const ObservationSet& observations() const { return obs_; }
  const ResolvedObservation& operator[](std::size_t i) const { return resolved_[i]; }
  std::size_t index_of(const Observation& o) const { return o.position; }
  const ResolvedObservation& of(const Observation& o) const { return resolved_[index_of(o)]; }

  // FabricIndex::nic_of_address() of a numbered address.
  int nic_of_address(int device, std::int32_t address) const;

  // Port `name` of `device`: the resolved one when the record names that
  // device itself (as it almost always does), else looked up.
  int src_port(int device, const Observation& o) const;
  int rx_port(int device, const Observation& o) const;

 private:
  std::int32_t unplanned_address(std::string_view text);  // its number, a new one if not seen yet

  const FabricIndex& f_;
  const ObservationSet& obs_;
  HugeVector<ResolvedObservation> resolved_;
  std::unordered_map<std::string_view, std::int32_t> unplanned_;  // views the set's interned text
};

}  // namespace hpn::probe
