// The loss estimate: from the evidence of a run (validator/loss_evidence.h),
// per cable and direction, the loss rate that best explains which
// attempts of which probes came back.
//
// Localisation follows 007 (Arzani et al., NSDI 2018) and NetBouncer (Tan
// et al., NSDI 2019): a uniform per-crossing background loss p0 is fitted
// to the whole run by maximum likelihood; then, greedily, of the
// directions whose losses are significant under the background and the
// culprits found so far (a one-sided Poisson tail, Bonferroni-corrected
// over every direction crossed, and at least LossOptions::min_lost lost)
// and persistent (crossed by more than one transmission -- a train, or a
// probe's attempts -- and not a burst in one of them that the others,
// left without it, contradict), the one a loss rate of its own explains best (the largest
// gain in likelihood, the G statistic) becomes a culprit with that rate;
// its losses are then expected of every path through it, and the next is
// sought. The background is refitted without the culprits' paths
// and the search repeated; culprits' rates are refitted jointly and any
// that the others explain is dropped. A direction no attempt came back by
// at all is dead from the start (its silence is the diff's to call).
//
// The loss rounds (probe/loss_trains.h) are sized by its background and
// aimed at the directions it leaves undecided, round by round: they get it
// through RoundOptions::estimate, which loss_state() below fills, so probe/
// plans with the estimate without depending on the validator. The options
// and the statistics the estimate and the trains share are in
// probe/loss_stats.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "blueprint/model.h"
#include "probe/loss_stats.h"
#include "probe/loss_trains.h"
#include "probe/observation.h"
#include "validator/loss_evidence.h"

namespace hpn::validator {

using probe::LossOptions;

struct DirectionLoss {
  int cable = -1, direction = 0;
  std::int64_t attempts = 0, lost = 0;  // attempts whose path crossed it, and of them lost
  double expected_lost = 0;             // lost had it been only background and the other culprits
  double rate = 0, low = 0, high = 0;   // its own loss, with a 95% Wilson score interval
  double bound = 0;                     // its own loss's one-sided upper bound at kRuleOutZ
  double log_p = 0;                     // ln of the one-sided p-value against the background
};

struct LossEstimate {
  double baseline = 0;                  // p0: background loss per crossing
  std::int64_t tested = 0;              // directions crossed by some attempt (the Bonferroni count)
  std::vector<DirectionLoss> culprits;  // significant above the background, by cable and direction
  std::vector<DirectedCable> dead;      // crossed, and no attempt across came back
  // A loss of `detect` not ruled out (their `bound` reaches it), and not
  // named: not culprits, or culprits below `warn`. More attempts would
  // decide them.
  std::vector<DirectionLoss> undecided;
};

LossEstimate estimate_loss(const LossEvidence& evidence, std::size_t cables, const LossOptions& options = {});

// What the loss rounds need of the estimate of a run so far (`seen`):
// its background, the directions left undecided, and the culprits' rates.
// A probe::LossEstimator for RoundOptions::estimate.
probe::LossState loss_state(const Blueprint& bp, const probe::ObservationSet& seen, const LossOptions& options);

}  // namespace hpn::validator
