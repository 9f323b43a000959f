// Diagnosis at pod scale (the default pod, 2,040 hosts): 100 random faults
// of every kind a seed draws (fabricmodel/fault_mix.h), one-way losses of 2%,
// 5% and 30% among them, probed as verify --lab probes with the forwarding
// model standing in for the lab, wiring rounds and loss rounds, diffed by
// the real diff. Every fault is named exactly and nothing else. Two fixed
// seeds here, one with no background loss and one under 3% on every cable;
// bench/diagnosis_bench runs twenty and more (README).
#include <catch2/catch.hpp>

#include <random>

#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "fabricmodel/fault_mix.h"

using namespace hpn;
using hpn::validator::FindingKind;

namespace {

void check_seed(std::uint64_t seed, double background) {
  auto spec = default_spec();
  REQUIRE(spec.ok());
  auto plan = make_plan(std::move(spec.value()), "test");
  REQUIRE(plan.ok());
  const Blueprint& bp = plan->blueprint;
  const FabricIndex fabric(bp);
  std::vector<int> hosts;
  for (std::size_t d = 0; d < bp.devices.size(); ++d) {
    if (bp.devices[d].role == Role::host) hosts.push_back(static_cast<int>(d));
  }
  std::mt19937_64 random(seed);
  auto wiring = fabricmodel::planned_wiring(fabric);
  const auto injected = fabricmodel::inject_faults(fabric, wiring, 100, random);
  fabricmodel::FabricModel model(fabric, wiring);
  model.set_loss(background, seed * 7919);
  probe::PlanOptions options;
  options.silence.attempts = 3;
  const auto run = fabricmodel::simulate_verify(model, hosts, options, 3);
  validator::DiffOptions diff_options;
  diff_options.silence.attempts = 3;
  const auto report = validator::diff(fabric, validator::collect_witnesses(fabric, run.observations), diff_options);
  const auto score = fabricmodel::score_report(fabric, report, injected);
  std::string misses;
  for (const auto& m : score.misses) misses += m + "\n";
  INFO("seed " << seed << ", background " << background << "\n" << misses);
  CHECK(score.faults == 100);
  CHECK(score.named == score.faults);
  CHECK(score.correct == score.findings);
  // Every kind was drawn, losses of each rate among them.
  for (const char* kind : {"down", "drop-a-z", "swap", "rail-exchange", "plane-exchange", "other-segment"}) {
    CHECK(score.by_kind.count(kind) == 1);
  }
  int losses = 0;
  for (const auto& f : injected) losses += f.kind == FindingKind::lossy ? 1 : 0;
  CHECK(losses >= 20);
  CHECK(report.summary.loss_judged);
  CHECK(report.summary.loss_undecided == 0);
}

}  // namespace

TEST_CASE("validator/pod: 100 random faults on the default pod, no background loss: each named exactly, nothing else") {
  check_seed(1, 0);
}

TEST_CASE("validator/pod: 100 random faults on the default pod under 3% background loss: each named exactly, nothing else") {
  check_seed(4, 0.03);
}
