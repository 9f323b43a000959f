#include "probe/silence.h"

#include <cmath>
#include <limits>

namespace hpn::probe {

namespace {

// ln q(h) for one attempt; -inf when no loss is assumed.
double log_silent_attempt(Reach reach, const SilenceRule& rule) {
  if (rule.max_loss <= 0) return -std::numeric_limits<double>::infinity();
  if (rule.max_loss >= 1) return 0;
  const double delivered = std::pow(1 - rule.max_loss, 2 * cables_one_way(reach));
  return std::log1p(-delivered);
}

}  // namespace

double chance_all_lost(const ProbesByReach& probes, const SilenceRule& rule) {
  // In logs: a million silent probes must not underflow into a wrong 0 or NaN.
  double log_chance = 0;
  for (int r = 0; r < kReaches; ++r) {
    if (probes[r] <= 0) continue;
    const double per_attempt = log_silent_attempt(static_cast<Reach>(r), rule);
    if (std::isinf(per_attempt)) return 0;
    log_chance += per_attempt * static_cast<double>(rule.attempts) * static_cast<double>(probes[r]);
  }
  return std::exp(log_chance);
}

bool silence_is_evidence(const ProbesByReach& probes, const SilenceRule& rule) {
  return chance_all_lost(probes, rule) < rule.chance;
}

std::int64_t probes_for_evidence(Reach reach, const SilenceRule& rule) {
  const double per_attempt = log_silent_attempt(reach, rule);
  if (std::isinf(per_attempt)) return 1;
  if (per_attempt >= 0 || rule.chance <= 0) return std::numeric_limits<std::int64_t>::max();
  const double per_probe = per_attempt * static_cast<double>(rule.attempts);
  // The least n with n * per_probe < ln(chance).
  const auto n = static_cast<std::int64_t>(std::floor(std::log(rule.chance) / per_probe)) + 1;
  return n < 1 ? 1 : n;
}

}  // namespace hpn::probe
