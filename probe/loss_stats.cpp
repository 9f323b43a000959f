#include "probe/loss_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpn::probe {

Interval wilson_interval(std::int64_t lost, std::int64_t attempts, double z) {
  if (attempts <= 0) return {0, 1};
  const double n = static_cast<double>(attempts), p = static_cast<double>(lost) / n;
  const double d = 1 + z * z / n;
  const double centre = (p + z * z / (2 * n)) / d;
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

double log_poisson_tail(double lambda, std::int64_t k) {
  if (k <= 0) return 0;
  if (lambda <= 0) return -std::numeric_limits<double>::infinity();
  if (static_cast<double>(k) <= lambda) return 0;
  const double kd = static_cast<double>(k);
  const double log_first = -lambda + kd * std::log(lambda) - std::lgamma(kd + 1);
  // The terms after the first fall by lambda / i < 1.
  double sum = 1, term = 1;
  for (double i = kd + 1; i < kd + 100000; ++i) {
    term *= lambda / i;
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return std::min(0.0, log_first + std::log(sum));
}

double log_poisson_head(double lambda, std::int64_t k) {
  if (k < 0) return -std::numeric_limits<double>::infinity();
  if (lambda <= 0 || static_cast<double>(k) >= lambda) return 0;
  const double kd = static_cast<double>(k);
  const double log_last = -lambda + kd * std::log(lambda) - std::lgamma(kd + 1);
  // Below the mean the terms before the last fall by i / lambda < 1.
  double sum = 1, term = 1;
  for (double i = kd; i > 0; --i) {
    term *= i / lambda;
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return std::min(0.0, log_last + std::log(sum));
}

}  // namespace hpn::probe
