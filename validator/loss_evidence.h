// The evidence of network tomography of loss: every attempt of a run's
// probes, by the directed cables it crossed, from which the estimate
// (validator/loss_estimate.h) infers per cable and direction a loss rate.
//
// Every attempt of a probe is a transmission over the directed cables of
// its path; it comes back only if no crossing drops it. Only a path a
// trace shows counts: a received probe's trace (the reply's trace for the
// way back), the receiver's record of its arrival, or the trace of
// another probe of the same flow (sender port, destination and source
// port hash alike). A probe no trace speaks for may have been lost to a
// miswire or a dark cable, the diff's own findings, and is left out. With
// receivers' records only the way there counts, attempt by attempt (a
// late reply makes the sender retry though nothing was lost); without
// them a round trip crosses both directions of a host cable, whose losses
// cannot then be told apart. Switch probes are left out: their answers
// come back by a path no trace shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "blueprint/fabric_index.h"
#include "probe/observation.h"
#include "probe/observation_index.h"
#include "probe/traced_path.h"

namespace hpn::validator {

using probe::DirectedCable;

// Attempts over one path: `lost` of `attempts` did not come back.
struct Transmission {
  std::uint32_t first = 0, count = 0;   // crossings known: LossEvidence::crossings[first, first + count)
  std::int32_t unseen = 0;              // further crossings of cables no one can name (between pods)
  std::int32_t attempts = 0, lost = 0;
};

struct LossEvidence {
  std::vector<DirectedCable> crossings;
  std::vector<Transmission> transmissions;
  // Directions a train was sent across (its flow's path as traced before)
  // whose count no one had: its report and the receiver's record both
  // lost. One that no counted attempt crossed is undecided, not untested.
  std::vector<DirectedCable> uncounted;
};

// From a run's observations (senders' and receivers' records); records
// naming devices or ports the blueprint lacks are left out.
LossEvidence collect_loss_evidence(const FabricIndex& fabric, const probe::ObservationSet& observations);
// The same from observations already resolved.
LossEvidence collect_loss_evidence(const FabricIndex& fabric, const probe::ObservationIndex& observations);

}  // namespace hpn::validator
