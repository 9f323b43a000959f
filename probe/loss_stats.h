// What planning the loss rounds and judging their outcome share: the
// loss options (when a direction is lossy, how sure, what a round must be
// able to find) and the statistics both use. The estimate that judges a
// run (validator/loss_estimate.h) tests each direction's lost attempts with
// the Poisson tail below, and decides it clean by its Wilson bound at
// kRuleOutZ; the loss rounds (probe/loss_trains.h) size their trains so
// that the same tests can name or clear a direction, so the two must read
// one definition.
#pragma once

#include <cstdint>

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
