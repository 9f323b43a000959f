// When silence is evidence: the chance that random loss alone kept every
// probe that had to cross one direction of a cable from coming back.
//
// A probe and its reply each cross h cables (2 under one ToR, 4 through an
// aggregation switch, 6 through the core); the sender hears back only if
// all 2h crossings survive. With a per-cable, per-direction loss of at most
// p, one attempt is silent although the direction works with probability
//   q(h) = 1 - (1 - p)^(2h),
// attempts are independent (every packet is dropped or not on its own), so
// n probes of a attempts each are all silent with probability q(h)^(a n),
// and over probes of several reaches the product of those. A direction is
// judged broken only when that chance is below a threshold (1e-6 by
// default: one false alarm in a million silent directions at the worst
// loss assumed). The validator and the probe plan share the rule: the plan
// adds probes until a silent direction is past it, the diff calls it then.
#pragma once

#include <array>
#include <cstdint>

namespace hpn::probe {

// How far a probe's path reaches; it fixes how many cables it crosses.
enum class Reach : std::uint8_t { tor = 0, agg = 1, core = 2 };
inline constexpr int kReaches = 3;
// Cables one way: host, ToR, host; host, ToR, aggregation, ToR, host; and
// two more through the core.
constexpr int cables_one_way(Reach r) { return 2 + 2 * static_cast<int>(r); }

// Probes by reach, index static_cast<int>(Reach).
using ProbesByReach = std::array<std::int64_t, kReaches>;

struct SilenceRule {
  double max_loss = 0.10;  // p: the worst per-cable, per-direction loss assumed
  int attempts = 1;        // independent attempts each unanswered probe stood for (retries + 1)
  double chance = 1e-6;    // silence below this chance of bad luck is evidence
};

// The chance that every one of these probes came back empty although the
// direction works: the product of q(h)^(attempts n) over the reaches.
double chance_all_lost(const ProbesByReach& probes, const SilenceRule& rule);

// Is the silence of these probes evidence of a broken direction?
bool silence_is_evidence(const ProbesByReach& probes, const SilenceRule& rule);

// Probes of one reach, all silent, that make silence evidence on their own:
// the least n with q(h)^(attempts n) < chance (1 when p is 0).
std::int64_t probes_for_evidence(Reach reach, const SilenceRule& rule);

}  // namespace hpn::probe
