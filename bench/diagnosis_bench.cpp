// Diagnosis at pod scale: the default pod, a random mix of faults per
// seed (fabricmodel/fault_mix.h: dark cables, one-way breaks, swaps, cables
// on the wrong port or device, exchanges across rails and planes, host
// ends exchanged between two hosts and between two NICs of a host, dark
// NICs, an uplink's ToR end on another port, one-way loss of 2%, 5% or
// 30%), with and without background loss (1 to 5%), probed as verify --lab probes (the
// forwarding model standing in for the lab, every probe tried three times,
// the probe plan's rounds and their loss budget), diffed by the real diff.
// Prints per seed and in total the precision and recall of the findings,
// the time of the diff (collect + diff; the median of --repeat runs of it,
// 3 by default, as a shared machine's noise is a third of it), the whole
// process's peak RSS
// during it, and what the diff added to the RSS it started from (the
// blueprint and the observations it was handed).
//
//   diagnosis_bench [--seeds N] [--first-seed N] [--faults N] [--loss-budget N]
//                   [--rounds N] [--max-background PCT] [--repeat N] [--verbose] [--debug-loss]
//                   [--dump-cable ID]
//
// --rounds: the probe plan's rounds per phase (8, as verify --lab);
// --max-background: the diff's --lossy-max-background (1); --debug-loss:
// per injected loss, what the estimate made of its direction (culprit,
// undecided or nothing, its attempts and losses); --dump-cable: every
// transmission of the loss evidence across that cable, with its path.
//
// Not a test: it asserts nothing and is run by hand; figures are in README.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "bench/peak_memory.h"
#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "validator/loss_estimate.h"
#include "fabricmodel/fault_mix.h"

int main(int argc, char** argv) {
  int seeds = 20, faults = 100, first = 1, rounds = 8, repeat = 3;
  long budget = 200000;
  double max_background = -1;  // percent; < 0: the diff's default
  bool verbose = false, debug_loss = false;
  std::string dump_cable;  // --dump-cable ID: the loss evidence's transmissions across it
  const char* usage =
      "usage: diagnosis_bench [--seeds N] [--first-seed N] [--faults N] [--loss-budget N]\n"
      "                       [--rounds N] [--max-background PCT] [--repeat N] [--verbose] [--debug-loss]\n"
      "                       [--dump-cable ID]\n";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool valued = i + 1 < argc;
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      return 0;
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--debug-loss") {
      debug_loss = true;
    } else if (valued && a == "--seeds") {
      seeds = std::atoi(argv[++i]);
    } else if (valued && a == "--repeat") {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (valued && a == "--faults") {
      faults = std::atoi(argv[++i]);
    } else if (valued && a == "--loss-budget") {
      budget = std::atol(argv[++i]);
    } else if (valued && a == "--rounds") {
      rounds = std::atoi(argv[++i]);
    } else if (valued && a == "--first-seed") {
      first = std::atoi(argv[++i]);
    } else if (valued && a == "--max-background") {
      max_background = std::atof(argv[++i]);
    } else if (valued && a == "--dump-cable") {
      dump_cable = argv[++i];
    } else {
      std::cerr << "diagnosis_bench: '" << a << "' is unknown or has no value\n" << usage;
      return 2;
    }
  }
  auto spec = hpn::default_spec();
  auto plan = hpn::make_plan(std::move(spec.value()), "bench");
  if (!plan) {
    std::cerr << plan.error().message;
    return 2;
  }
  const hpn::Blueprint& bp = plan->blueprint;
  hpn::FabricIndex fabric(bp);
  std::vector<int> hosts;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].role == hpn::Role::host) hosts.push_back(static_cast<int>(i));
  }
  int total_faults = 0, named = 0, findings = 0, correct = 0;
  double worst = 0;
  std::vector<double> medians, colds;  // per seed
  long peak = 0, added = 0;
  std::map<std::string, std::pair<int, int>> by_kind;
  for (int seed = first; seed < first + seeds; ++seed) {
    std::mt19937_64 random(static_cast<uint64_t>(seed));
    auto wiring = hpn::fabricmodel::planned_wiring(fabric);
    const auto injected = hpn::fabricmodel::inject_faults(fabric, wiring, faults, random);
    // Every other seed under background loss of 1 to 5%.
    const double background = seed % 2 == 0 ? 0.01 * static_cast<double>(1 + (seed / 2) % 5) : 0;
    hpn::fabricmodel::FabricModel model(fabric, wiring);
    model.set_loss(background, static_cast<uint64_t>(seed) * 7919);
    hpn::probe::PlanOptions options;
    options.silence.attempts = 3;
    options.loss_budget = budget;
    const auto run = hpn::fabricmodel::simulate_verify(model, hosts, options, 3, rounds);
    hpn::validator::DiffOptions diff_options;
    diff_options.silence.attempts = 3;
    if (max_background >= 0) diff_options.loss.max_background = max_background / 100;
    const long before = hpn::bench::live_mb();
    hpn::bench::reset_peak();
    std::vector<double> times;
    hpn::validator::Witnesses witnesses;
    hpn::validator::Report report;
    for (int r = 0; r < repeat; ++r) {
      witnesses = {};
      report = {};
      const auto t0 = std::chrono::steady_clock::now();
      witnesses = hpn::validator::collect_witnesses(fabric, run.observations);
      report = hpn::validator::diff(fabric, witnesses, diff_options);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double cold = times.front();  // the one a verify run has: its memory fresh from the kernel
    std::sort(times.begin(), times.end());
    const double seconds = times[times.size() / 2];
    medians.push_back(seconds);
    colds.push_back(cold);
    const long seed_peak = hpn::bench::peak_mb();
    peak = std::max(peak, seed_peak);
    added = std::max(added, seed_peak - before);
    worst = std::max(worst, seconds);
    const auto score = hpn::fabricmodel::score_report(fabric, report, injected);
    total_faults += score.faults;
    named += score.named;
    findings += score.findings;
    correct += score.correct;
    for (const auto& [kind, n] : score.by_kind) {
      by_kind[kind].first += n.first;
      by_kind[kind].second += n.second;
    }
    std::cout << fmt::format("seed {:2}: background {:.0f}%, {} faults, {} probes in {} rounds, {} train datagrams in {} "
                             "loss rounds, {} observations: "
                             "precision {:.3f}, recall {:.3f}, diff {:.3f} s (the first of {}: {:.3f} s), "
                             "peak RSS {} MB ({} MB before it)\n",
                             seed, background * 100, score.faults, run.probes, run.rounds, run.train_datagrams,
                             run.loss_rounds, run.observations.size(),
                             score.precision(), score.recall(), seconds, repeat, cold, seed_peak, before);
    if (debug_loss) {
      const auto est = hpn::validator::estimate_loss(witnesses.loss, bp.cables.size(), diff_options.loss);
      std::cout << fmt::format("  baseline {:.4f}, {} tested, {} culprits, {} undecided\n", est.baseline, est.tested,
                               est.culprits.size(), est.undecided.size());
      for (const auto& u : est.undecided) {
        std::cout << fmt::format("  undecided {} {}: {:.4f} (bound {:.4f}), {} of {} lost\n", bp.cables[u.cable].id,
                                 u.direction ? "z-a" : "a-z", u.rate, u.bound, u.lost, u.attempts);
      }
      // Raw counts per direction: attempts over transmissions crossing it.
      std::map<int, std::pair<long, long>> raw;
      for (const auto& t : witnesses.loss.transmissions) {
        for (uint32_t k = t.first; k < t.first + t.count; ++k) {
          auto& r = raw[witnesses.loss.crossings[k]];
          r.first += t.attempts;
          r.second += t.lost;
        }
      }
      for (const auto& f : injected) {
        if (f.kind != hpn::validator::FindingKind::lossy) continue;
        const int d = f.cables[0] * 2 + f.direction;
        std::string what = "none";
        for (const auto& c : est.culprits)
          if (c.cable == f.cables[0] && c.direction == f.direction)
            what = fmt::format("culprit {:.3f} [{:.3f},{:.3f}] {}/{} exp {:.1f}", c.rate, c.low, c.high, c.lost, c.attempts, c.expected_lost);
        for (const auto& c : est.undecided)
          if (c.cable == f.cables[0] && c.direction == f.direction)
            what = fmt::format("undecided {:.3f} {}/{} exp {:.1f} logp {:.1f}", c.rate, c.lost, c.attempts, c.expected_lost, c.log_p);
        std::cout << fmt::format("  {} {} raw {}/{}: {}\n", f.fault, bp.cables[f.cables[0]].id, raw[d].second, raw[d].first, what);
      }
    }
    if (verbose) {
      for (const auto& m : score.misses) std::cout << "    " << m << '\n';
    }
    if (!dump_cable.empty()) {
      int cable = -1;
      for (size_t c = 0; c < bp.cables.size(); ++c) {
        if (bp.cables[c].id == dump_cable) cable = static_cast<int>(c);
      }
      for (const auto& t : witnesses.loss.transmissions) {
        bool on = false;
        for (uint32_t k = t.first; k < t.first + t.count; ++k) on = on || witnesses.loss.crossings[k] / 2 == cable;
        if (!on) continue;
        std::string path;
        for (uint32_t k = t.first; k < t.first + t.count; ++k) path += fmt::format(" {}{}", bp.cables[witnesses.loss.crossings[k] / 2].id, witnesses.loss.crossings[k] % 2 ? "<" : ">");
        std::cout << fmt::format("  tx {}/{} unseen {} :{}\n", t.lost, t.attempts, t.unseen, path);
      }
    }
  }
  std::sort(medians.begin(), medians.end());
  const double median_of_seeds = medians.empty() ? 0 : medians[medians.size() / 2];
  const auto within = std::count_if(medians.begin(), medians.end(), [](double t) { return t <= 1.0; });
  std::sort(colds.begin(), colds.end());
  const double median_cold = colds.empty() ? 0 : colds[colds.size() / 2];
  const double worst_cold = colds.empty() ? 0 : colds.back();
  std::cout << fmt::format("{} seeds, {} faults: precision {:.4f} ({} of {} findings), recall {:.4f} ({} named); "
                           "diff (median of {} each) {:.3f} s over the seeds' median, {:.3f} s at most, "
                           "{} seeds of {} within 1 s; the first run of each {:.3f} s over the seeds' median, "
                           "{:.3f} s at most; peak RSS {} MB, the diff adding at most {} MB\n",
                           seeds, total_faults, findings ? static_cast<double>(correct) / findings : 1.0, correct,
                           findings, total_faults ? static_cast<double>(named) / total_faults : 1.0, named, repeat,
                           median_of_seeds, worst, within, medians.size(), median_cold, worst_cold, peak, added);
  for (const auto& [kind, n] : by_kind) std::cout << fmt::format("  {}: {} of {} named\n", kind, n.first, n.second);
  return 0;
}
