// The loss phase of a verify's probing: trains (probe/payload.h) that give
// every direction in scope enough attempts to find a gray failure, after the
// rounds that check the wiring.
//
// How many attempts: a direction whose own loss is `rate` more than the
// background b per crossing, crossed by paths of L cables, loses an attempt
// with q1 = 1 - (1-b)^L (1-rate) against q0 = 1 - (1-b)^L. The estimate
// (validator/loss_estimate.h) names it when its lost attempts k reach the
// one-sided Poisson critical count c of n q0 at alpha / D (D the
// directions tested, Bonferroni) and at least min_lost, and a finding when
// its own rate, (k/n - q0) / (1 - q0), reaches `warn`: c is the larger of
// those counts. attempts_to_detect() is the least n with
// P[Binomial(n, q1) >= c] >= power. A direction
// losing only the background is decided clean once a loss of `rate` is
// ruled out (probe/loss_stats.h, kRuleOutZ): attempts_to_rule_out().
// The first loss round gives each direction the larger of the two: at no
// background 2% takes about 530 attempts, at 5% per crossing over two
// cables some thousands (hpnctl(1), LOSS, has the table).
//
// Which trains:
//   - host cables: on each ToR, each host port in scope sends to the hosts
//     of the next two ports in scope of the ToR (a ring), so each direction
//     of each host cable is crossed by two trains, with two different
//     partners, over paths of two cables (the least noise a path can
//     carry); a ring of two hosts, one train each way, twice as long;
//   - switch-to-switch cables: flows the wiring rounds traced across each
//     direction (the five-tuple takes the same path again), two per
//     direction where there are two, whose other switch-to-switch
//     directions differ; and, for flows of more partners than the wiring
//     rounds' (they go to the next segment only), each host port sends one
//     train to its own rail in a segment further on (spread_pairs()): its
//     hash picks an uplink, the report's trace says which.
// The first round sizes them from the background the wiring rounds saw;
// each later round sends more across the directions the estimate leaves
// undecided (a loss at the rate to detect not ruled out), over the flows
// that cross the fewest culprits, at least doubling their attempts, until
// every direction is decided or has had `loss_budget`.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "blueprint/model.h"
#include "probe/loss_stats.h"
#include "probe/observation.h"
#include "probe/probe_plan.h"
#include "probe/traced_path.h"

namespace hpn::probe {

struct DetectionRule {
  double rate = 0.02;       // the direction's own loss, above the background
  double background = 0;    // per crossing
  int path_length = 2;      // cables each attempt crosses
  double alpha = 1e-6;      // per direction (already divided by the directions tested)
  double power = 0.99;      // the chance to name it
  int min_lost = 3;         // the fewest lost attempts a culprit has
  double warn = 0.01;       // and its own rate, to be a finding (LossOptions::warn)
};

// The least number of attempts across a direction that names a loss of
// rule.rate with rule.power (see above); capped at 1e9.
std::int64_t attempts_to_detect(const DetectionRule& rule);

// The least number that, for a direction losing only the background, rules
// a loss of rule.rate out (its bound at kRuleOutZ below it) with
// rule.power: a clean direction is then decided in the first loss round.
std::int64_t attempts_to_rule_out(const DetectionRule& rule);

// The chance that `attempts` across such a direction name it: the power
// the rule asks for, at a given count.
double detection_power(const DetectionRule& rule, std::int64_t attempts);

// The host-cable trains' pairs for `hosts` (the ring of the hosts in scope
// on each ToR, or a lone one's neighbours), without lengths or source
// ports: where listeners must run for them.
std::vector<ProbeTarget> ring_pairs(const Blueprint& bp, const std::vector<int>& hosts);

// The trains that spread each ToR's uplinks over partners in every other
// segment of its pod but the next (the wiring rounds' own): host port i of
// a ToR to the host at its place in segment s + 2 + i mod (segments - 2).
// Empty in a pod of two segments.
std::vector<ProbeTarget> spread_pairs(const Blueprint& bp, const std::vector<int>& hosts);

// What the loss rounds need of the loss estimate of the run so far. The
// estimate is the validator's (validator/loss_estimate.h, loss_state());
// the rounds are given it as a LossEstimator, so that planning them needs
// no verdict code.
struct LossState {
  double background = 0;  // per crossing
  struct Undecided {
    DirectedCable direction = 0;
    std::int64_t attempts = 0;  // across it so far
  };
  std::vector<Undecided> undecided;  // a loss of `detect` neither named nor ruled out
  // Each culprit's own loss rate, and 1 for a dead direction.
  std::vector<std::pair<DirectedCable, double>> culprits;
};
using LossEstimator =
    std::function<LossState(const Blueprint& bp, const ObservationSet& seen, const LossOptions& options)>;

// The first loss round after the wiring rounds, whose observations are
// `seen`, sized by the background the estimate of them (`so_far`) found.
std::vector<ProbeTarget> first_loss_round(const Blueprint& bp, const std::vector<int>& hosts,
                                          const ObservationSet& seen, const LossState& so_far,
                                          const PlanOptions& options);

// A later one: for each direction the estimate of the run so far leaves
// undecided (and short of options.loss_budget), two more trains over the
// flows `seen` traced across it that cross the fewest culprits. Empty when
// every direction is decided.
std::vector<ProbeTarget> next_loss_round(const Blueprint& bp, const std::vector<int>& hosts,
                                         const ObservationSet& seen, const LossState& so_far,
                                         const PlanOptions& options);

}  // namespace hpn::probe
