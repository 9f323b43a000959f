#include "validator/loss_estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace hpn::validator {

namespace {

// The statistics the loss rounds size their trains by (probe/loss_stats.h).
using probe::Interval;
using probe::kRuleOutZ;
using probe::log_poisson_head;
using probe::log_poisson_tail;
using probe::wilson_interval;

class Estimator {
 public:
  Estimator(const LossEvidence& e, std::size_t cables, const LossOptions& o)
      : e_(e), o_(o), links_(cables * 2), rate_(links_, 0.0), culprit_(links_, false), n_(links_, 0), surv_(links_, 0),
        b_(e.transmissions.size(), 0.0), big_b_(links_, 0.0), log_p_(links_, 0.0) {
    // Index: the transmissions crossing each direction.
    std::vector<std::uint32_t> count(links_ + 1, 0);
    for (const auto& t : e.transmissions) {
      for (std::uint32_t i = 0; i < t.count; ++i) ++count[e.crossings[t.first + i] + 1];
    }
    for (std::size_t l = 0; l < links_; ++l) count[l + 1] += count[l];
    start_ = count;
    by_link_.resize(count[links_]);
    std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
    for (std::size_t ti = 0; ti < e.transmissions.size(); ++ti) {
      const Transmission& t = e.transmissions[ti];
      len_.push_back(static_cast<int>(t.count) + t.unseen);
      for (std::uint32_t i = 0; i < t.count; ++i) {
        const DirectedCable l = e.crossings[t.first + i];
        by_link_[fill[l]++] = static_cast<std::uint32_t>(ti);
        n_[l] += t.attempts;
        surv_[l] += t.attempts - t.lost;
      }
    }
  }

  LossEstimate run() {
    LossEstimate out;
    // Dead: crossed, and no trace came back across it (the diff names it
    // by its silence).
    for (std::size_t l = 0; l < links_; ++l) {
      if (n_[l] == 0) continue;
      ++out.tested;
      if (surv_[l] == 0) {
        culprit_[l] = true;  // dead: nothing came back across it
        rate_[l] = 1;
        out.dead.push_back(static_cast<DirectedCable>(l));
      }
    }
    threshold_ = std::log(o_.alpha / static_cast<double>(std::max<std::int64_t>(out.tested, 1)));
    dead_ = culprit_;
    skipped_.assign(links_, false);
    double previous = -1;
    for (int pass = 0; pass < 4; ++pass) {
      // Refit the background without the culprits' paths, then search again.
      baseline_ = fit_baseline();
      if (previous >= 0 && std::abs(baseline_ - previous) <= 0.01 * previous + 1e-9) break;
      previous = baseline_;
      reset();
      search();
      refit();
    }
    out.baseline = baseline_;
    for (std::size_t l = 0; l < links_; ++l) {
      if (n_[l] == 0 || dead_[l]) continue;
      if (culprit_[l]) {
        out.culprits.push_back(describe(static_cast<DirectedCable>(l)));
        // Below the warning rate it is no finding; when a loss at the rate
        // to detect is not ruled out, more attempts would say which it is.
        const DirectionLoss& d = out.culprits.back();
        if (d.rate < o_.warn && d.bound >= (o_.detect > 0 ? o_.detect : o_.warn)) out.undecided.push_back(d);
      } else {
        // First on the certain attempts alone (cheap), then in full: its
        // own rate's interval still reaches the rate to detect. Few
        // attempts and none lost are undecided too (no background to
        // explain a loss is no proof of none).
        const double base = big_b_[l] / static_cast<double>(n_[l]);
        if (base <= 0) continue;
        const double detect = o_.detect > 0 ? o_.detect : o_.warn;
        if (1 - (1 - wilson_interval(n_[l] - surv_[l], n_[l], kRuleOutZ).high) / base < detect) continue;
        DirectionLoss d = describe(static_cast<DirectedCable>(l));
        if (d.bound >= detect) out.undecided.push_back(d);
      }
    }
    // A train's direction no counted attempt crossed: nothing rules a loss
    // out there (nor in: it is not tested).
    for (DirectedCable l : e_.uncounted) {
      if (l < 0 || static_cast<std::size_t>(l) >= links_ || n_[l] > 0) continue;
      DirectionLoss d;
      d.cable = l / 2;
      d.direction = l % 2;
      d.high = d.bound = 1;
      out.undecided.push_back(d);
    }
    std::sort(out.undecided.begin(), out.undecided.end(), [](const DirectionLoss& a, const DirectionLoss& b) {
      return std::tie(a.cable, a.direction) < std::tie(b.cable, b.direction);
    });
    return out;
  }

 private:
  bool touches_culprit(const Transmission& t) const {
    for (std::uint32_t i = 0; i < t.count; ++i) {
      if (culprit_[e_.crossings[t.first + i]]) return true;
    }
    return false;
  }

  // Maximum likelihood of one loss rate per crossing over the paths no
  // culprit is on: by path length, survivors and losses.
  double fit_baseline() const {
    std::map<int, std::pair<double, double>> by_length;  // length -> (survived, lost)
    double lost = 0;
    for (std::size_t ti = 0; ti < e_.transmissions.size(); ++ti) {
      const Transmission& t = e_.transmissions[ti];
      if (touches_culprit(t)) continue;
      auto& [s, f] = by_length[len_[ti]];
      s += t.attempts - t.lost;
      f += t.lost;
      lost += t.lost;
    }
    if (lost == 0) return 0;
    auto likelihood = [&](double p) {
      double sum = 0;
      for (const auto& [length, sf] : by_length) {
        const double survive = std::pow(1 - p, length);
        sum += sf.first * length * std::log1p(-p);
        if (sf.second > 0) sum += sf.second * std::log(std::max(1e-300, 1 - survive));
      }
      return sum;
    };
    double lo = 1e-9, hi = 0.5;  // unimodal: golden-section search
    const double g = 0.6180339887498949;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = likelihood(x1), f2 = likelihood(x2);
    for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
      if (f1 < f2) {
        lo = x1;
        x1 = x2;
        f1 = f2;
        x2 = lo + g * (hi - lo);
        f2 = likelihood(x2);
      } else {
        hi = x2;
        x2 = x1;
        f2 = f1;
        x1 = hi - g * (hi - lo);
        f1 = likelihood(x1);
      }
    }
    return (lo + hi) / 2;
  }

  // Expected survival of one attempt of t at the background and the
  // culprits' rates, leaving out `skip`'s own.
  double survival(std::size_t ti, DirectedCable skip = -1) const {
    const Transmission& t = e_.transmissions[ti];
    double s = std::pow(1 - baseline_, len_[ti]);
    for (std::uint32_t i = 0; i < t.count; ++i) {
      const DirectedCable l = e_.crossings[t.first + i];
      if (l != skip) s *= 1 - rate_[l];
    }
    return s;
  }

  // The least loss a path is expected to have, per attempt: a background
  // fitted as none is no proof that a stray loss cannot happen, and with
  // an expectation of exactly nothing every loss would be infinitely
  // unlikely, every direction it crossed equally so.
  static constexpr double kLossFloor = 1e-6;

  void score(std::size_t l) {
    const double n = static_cast<double>(n_[l]);
    const double expected = std::max(n - big_b_[l], n * kLossFloor);
    log_p_[l] = log_poisson_tail(expected, n_[l] - surv_[l]);
  }

  // The log-likelihood gained by letting l lose at its own rate (the lost
  // share of its attempts) rather than only as expected: the G statistic
  // of its lost attempts against what the background and the culprits so
  // far expect. Of the directions a run's losses make significant, the one
  // that explains them best: where they concentrate, not merely where
  // most of them crossed (a host cable under many lossy flows of one
  // uplink loses a smaller share of its attempts than the uplink does).
  double gain(std::size_t l) const {
    const double n = static_cast<double>(n_[l]), k = static_cast<double>(n_[l] - surv_[l]);
    const double q = std::clamp((n - big_b_[l]) / n, kLossFloor, 1 - kLossFloor);
    if (n <= 0 || k <= q * n) return 0;
    double g = k * std::log(k / n / q);
    if (k < n) g += (n - k) * std::log((n - k) / n / (1 - q));
    return g;
  }

  // Every non-dead culprit cleared; expectations from the background.
  void reset() {
    std::fill(skipped_.begin(), skipped_.end(), false);
    for (std::size_t l = 0; l < links_; ++l) {
      if (!dead_[l]) {
        culprit_[l] = false;
        rate_[l] = 0;
      }
    }
    std::fill(big_b_.begin(), big_b_.end(), 0.0);
    for (std::size_t ti = 0; ti < e_.transmissions.size(); ++ti) {
      const Transmission& t = e_.transmissions[ti];
      b_[ti] = survival(ti);
      for (std::uint32_t i = 0; i < t.count; ++i) big_b_[e_.crossings[t.first + i]] += t.attempts * b_[ti];
    }
    for (std::size_t l = 0; l < links_; ++l) {
      if (n_[l] > 0) score(l);
    }
  }

  // What l's rate rests on: the attempts across it, of them survivors,
  // and the survivors expected without l's own loss.
  struct Share {
    double attempts = 0, survivors = 0, expected = 0;
  };
  Share share(DirectedCable l) const {
    Share s;
    s.attempts = static_cast<double>(n_[l]);
    s.survivors = static_cast<double>(surv_[l]);
    for (std::uint32_t i = start_[l]; i < start_[l + 1]; ++i) {
      const std::uint32_t ti = by_link_[i];
      s.expected += e_.transmissions[ti].attempts * survival(ti, l);
    }
    return s;
  }

  // The rate that explains l's losses given everything else.
  double own_rate(DirectedCable l) const {
    const Share s = share(l);
    return s.expected > 0 ? std::clamp(1 - s.survivors / s.expected, 0.0, 1.0) : 0;
  }

  // l's rate is now r: the expectations of every path through it follow.
  void set_rate(DirectedCable l, double r) {
    rate_[l] = r;
    const std::set<std::uint32_t> touched(by_link_.begin() + start_[l], by_link_.begin() + start_[l + 1]);
    std::set<DirectedCable> rescore;
    for (std::uint32_t ti : touched) {
      const Transmission& t = e_.transmissions[ti];
      const double now = survival(ti);
      for (std::uint32_t i = 0; i < t.count; ++i) {
        const DirectedCable m = e_.crossings[t.first + i];
        big_b_[m] += t.attempts * (now - b_[ti]);
        rescore.insert(m);
      }
      b_[ti] = now;
    }
    for (DirectedCable m : rescore) score(static_cast<std::size_t>(m));
  }

  // Greedy: the least likely direction under what is known becomes a
  // culprit, until none is significant.
  void search() {
    for (;;) {
      DirectedCable best = -1;
      double best_gain = 0;
      for (std::size_t l = 0; l < links_; ++l) {
        if (culprit_[l] || skipped_[l] || n_[l] == 0 || log_p_[l] >= threshold_) continue;
        if (n_[l] - surv_[l] < o_.min_lost || !persistent(static_cast<DirectedCable>(l))) continue;
        const double g = gain(l);
        if (best < 0 || g > best_gain) {
          best = static_cast<DirectedCable>(l);
          best_gain = g;
        }
      }
      if (best < 0) return;
      const double r = own_rate(best);
      if (r <= 0) {
        skipped_[best] = true;  // nothing of its own to explain after all
        continue;
      }
      culprit_[best] = true;
      set_rate(best, r);
    }
  }

  // A cable's own loss persists: more than one train crossed it, and no
  // one train lost so many more than the model expects (the background,
  // the culprits, and this direction at the rate all its trains give) that
  // the others, leaving it out, lost as few as they did by less than
  // alpha's chance. A burst (a sender or a switch stalled for a moment, a
  // route that moved) takes several datagrams of the trains passing then
  // and none of the rest; over a zero background one such burst of three
  // was enough to name a healthy host cable lossy (a lab fault mix, in
  // CI). Unnamed, the direction is undecided while its own loss's bound
  // reaches the rate to detect, and the next loss round sends it two more
  // trains: a loss that is the cable's shows in them too.
  bool persistent(DirectedCable l) {
    const double r = own_rate(l);
    int trains = 0;
    double expected = 0, lost = 0, worst_excess = 0, worst_expected = 0, worst_lost = 0;
    for (std::uint32_t i = start_[l]; i < start_[l + 1]; ++i) {
      const std::uint32_t ti = by_link_[i];
      const Transmission& t = e_.transmissions[ti];
      const double e = t.attempts * (1 - survival(ti, l) * (1 - r));
      if (trains == 0 || t.lost - e > worst_excess) {
        worst_excess = t.lost - e;
        worst_expected = e;
        worst_lost = t.lost;
      }
      ++trains;
      expected += e;
      lost += t.lost;
    }
    if (trains < 2) return false;
    return log_poisson_head(expected - worst_expected, std::llround(lost - worst_lost)) >= std::log(o_.alpha);
  }

  // Each culprit's rate again with the others in place; one the others
  // explain is no culprit.
  void refit() {
    for (int sweep = 0; sweep < 3; ++sweep) {
      for (std::size_t l = 0; l < links_; ++l) {
        if (!culprit_[l] || dead_[l]) continue;
        const DirectedCable c = static_cast<DirectedCable>(l);
        set_rate(c, 0);
        if (log_p_[l] >= threshold_) {
          culprit_[l] = false;
          continue;
        }
        set_rate(c, own_rate(c));
      }
    }
  }

  DirectionLoss describe(DirectedCable l) {
    DirectionLoss d;
    d.cable = l / 2;
    d.direction = l % 2;
    // Its own rate, and the test against the background as in the search.
    const Share s = share(l);
    d.attempts = std::llround(s.attempts);
    d.lost = std::llround(s.attempts - s.survivors);
    d.expected_lost = s.attempts - s.expected;
    d.log_p = log_poisson_tail(s.attempts - s.expected, n_[l] - surv_[l]);
    d.rate = own_rate(l);
    const double base = s.attempts > 0 ? s.expected / s.attempts : 1;
    const Interval path = wilson_interval(d.lost, d.attempts);
    d.low = base > 0 ? std::clamp(1 - (1 - path.low) / base, 0.0, 1.0) : 0;
    d.high = base > 0 ? std::clamp(1 - (1 - path.high) / base, 0.0, 1.0) : 1;
    const double bound = wilson_interval(d.lost, d.attempts, kRuleOutZ).high;
    d.bound = base > 0 ? std::clamp(1 - (1 - bound) / base, 0.0, 1.0) : 1;
    return d;
  }

  const LossEvidence& e_;
  const LossOptions& o_;
  const std::size_t links_;
  std::vector<double> rate_;
  std::vector<bool> culprit_, dead_, skipped_;
  std::vector<std::int64_t> n_, surv_;
  std::vector<double> b_, big_b_, log_p_;
  std::vector<int> len_;
  std::vector<std::uint32_t> start_, by_link_;
  double baseline_ = 0, threshold_ = 0;
};

}  // namespace

LossEstimate estimate_loss(const LossEvidence& evidence, std::size_t cables, const LossOptions& options) {
  return Estimator(evidence, cables, options).run();
}

probe::LossState loss_state(const Blueprint& bp, const probe::ObservationSet& seen, const LossOptions& options) {
  const LossEstimate estimate = estimate_loss(collect_loss_evidence(FabricIndex(bp), seen), bp.cables.size(), options);
  probe::LossState out;
  out.background = estimate.baseline;
  for (const auto& d : estimate.undecided) out.undecided.push_back({d.cable * 2 + d.direction, d.attempts});
  // A dead direction loses everything, whatever rate it was fitted.
  std::map<DirectedCable, double> culprits;
  for (const auto& c : estimate.culprits) culprits[c.cable * 2 + c.direction] = c.rate;
  for (DirectedCable d : estimate.dead) culprits[d] = 1;
  out.culprits.assign(culprits.begin(), culprits.end());
  return out;
}

}  // namespace hpn::validator
