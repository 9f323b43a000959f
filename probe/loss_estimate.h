// The loss estimate: from the evidence of a run (probe/loss_evidence.h),
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
// In probe/, not validator/, though the verdict judges by it: the loss
// rounds (probe/loss_trains.h) are sized by its background and aimed at the
// directions it leaves undecided, round by round, wherever ProbeRounds runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "probe/loss_evidence.h"

namespace hpn::probe {

struct LossOptions {
  double warn = 0.01;      // a lossy direction at this rate or more is a warning (--lossy-warn)
  double critical = 0.05;  // and at this rate or more critical (--lossy-critical)
  // The chance, for the whole run, that a direction losing no more than
  // the background is named a culprit: each direction is tested at
  // alpha / (directions crossed), Bonferroni.
  double alpha = 0.01;
  // Above this background (the run's fitted p0) no direction is judged
  // lossy (--lossy-max-background): the attempts that would tell a gray
  // failure from the noise grow past any budget there. The diff says so
  // instead.
  double max_background = 0.10;
  // The fewest lost attempts that make a culprit: a stray drop or two
  // (a queue overflowing once) is no gray failure.
  int min_lost = 3;
  // The loss a direction must be found at (--lossy-detect): one not named
  // whose loss up to it is not ruled out is undecided. 0: `warn`.
  double detect = 0.02;
};

// How sure "ruled out" is: a direction's own loss is below its one-sided
// bound at this z (99.95%) before it counts as decided. The 95% interval
// a finding reports would leave a direction that truly loses `detect`
// decided as clean one time in forty, and a pod has dozens of them.
inline constexpr double kRuleOutZ = 3.29;

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

// The Wilson score interval of `lost` of `attempts`: two-sided 95% at the
// default z, and each end a one-sided bound at (1 + confidence) / 2.
struct Interval {
  double low = 0, high = 1;
};
Interval wilson_interval(std::int64_t lost, std::int64_t attempts, double z = 1.959963984540054);

// ln P(X >= k) for X Poisson with mean `lambda`; 0 when k <= lambda (not in the tail).
double log_poisson_tail(double lambda, std::int64_t k);
// ln P(X <= k) for X Poisson with mean `lambda`; 0 when k >= lambda.
double log_poisson_head(double lambda, std::int64_t k);

}  // namespace hpn::probe
