// Diagnosis of random fault mixes on the forwarding model of the lab
// pods (fabricmodel/fault_mix.h): miswires of every kind (swaps, wrong port
// or device, exchanges across rails and planes, a host cable on the same
// rail's ToR of another segment; host ends exchanged between two hosts
// and between two NICs of a host, an uplink's ToR end on another port)
// beside dark and one-way broken cables and dark NICs,
// probed as verify --lab probes and diffed by the real diff. Every fault
// must be its own finding, with its kind and cables, and nothing else:
// in particular no direction a miswire pulled traffic off is called broken.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "probe/probe_plan.h"
#include "golden_messages.h"
#include "test_util.h"
#include "fabricmodel/fault_mix.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::validator::Severity;

namespace {

struct Pod {
  Plan plan;
  std::unique_ptr<FabricIndex> fabric;
  std::vector<int> hosts;
  explicit Pod(const std::string& spec_file) {
    auto spec = load_spec_file(test::source_path(spec_file).string());
    REQUIRE(spec.ok());
    auto made = make_plan(std::move(spec.value()), "test");
    REQUIRE(made.ok());
    plan = std::move(made.value());
    fabric = std::make_unique<FabricIndex>(plan.blueprint);
    for (size_t d = 0; d < plan.blueprint.devices.size(); ++d) {
      if (plan.blueprint.devices[d].role == Role::host) hosts.push_back(static_cast<int>(d));
    }
  }
};

fabricmodel::DiagnosisScore diagnose(const Pod& pod, uint64_t seed, int faults, bool losses, double background,
                                   std::vector<fabricmodel::InjectedFault>* injected = nullptr) {
  std::mt19937_64 random(seed);
  auto wiring = fabricmodel::planned_wiring(*pod.fabric);
  auto mix = fabricmodel::inject_faults(*pod.fabric, wiring, faults, random, losses);
  fabricmodel::FabricModel model(*pod.fabric, wiring);
  model.set_loss(background, seed * 7919);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  const auto run = fabricmodel::simulate_verify(model, pod.hosts, plan, 3);
  validator::DiffOptions options;
  options.silence.attempts = 3;
  const auto report = validator::diff(*pod.fabric, validator::collect_witnesses(*pod.fabric, run.observations), options);
  if (injected) *injected = mix;
  return fabricmodel::score_report(*pod.fabric, report, mix);
}

std::string describe(const Pod& pod, const std::vector<fabricmodel::InjectedFault>& mix) {
  std::string out;
  for (const auto& f : mix) {
    out += f.fault;
    for (int c : f.cables) out += " " + pod.plan.blueprint.cables[c].id;
    out += "; ";
  }
  return out;
}

std::string misses(const fabricmodel::DiagnosisScore& s) {
  std::string out;
  for (const auto& m : s.misses) out += m + "\n";
  return out;
}

}  // namespace

TEST_CASE("validator/fault mix: miswires of every kind on the lab pods are each named, and nothing else") {
  std::map<std::string, int> drawn;  // over both pods
  for (const char* spec : {"examples/lab-pod.yaml", "examples/lab-2pod.yaml"}) {
    Pod pod(spec);
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      std::vector<fabricmodel::InjectedFault> mix;
      const auto score = diagnose(pod, seed, 7, false, 0, &mix);
      for (const auto& f : mix) ++drawn[f.fault.substr(0, f.fault.find(':'))];
      INFO(spec << " seed " << seed << ": " << describe(pod, mix));
      // Seven asked for; exchanges take two ToRs of the eight, a dark NIC two faults.
      CHECK(score.faults >= 3);
      CHECK(misses(score) == "");
    }
  }
  // The mixes drew every kind the lab pods have room for (every ToR has
  // a cable to each aggregation switch of its plane: a wrong device is
  // a host cable on another segment's ToR).
  std::string counts;
  for (const auto& [kind, n] : drawn) counts += kind + " " + std::to_string(n) + "; ";
  INFO(counts);
  for (const char* kind : {"down", "drop-a-z", "drop-z-a", "swap", "rail-exchange", "plane-exchange", "other-segment",
                           "wrong-port", "host-exchange", "nic-exchange", "nic-down", "uplink-a-end"}) {
    INFO(kind);
    CHECK(drawn[kind] > 0);
  }
}

TEST_CASE("validator/fault mix: a silence the run's own faults explain is unobserved, points at them, and verifies after the fix") {
  // Two of one aggregation switch's four downlinks dark (the two ToRs of
  // segment 0 on its plane): no probe then comes up to it for segment 1's
  // hosts, so its other two downlinks carry nothing down. Not broken:
  // unobserved, naming the dark cables, and verified once they are lit.
  Pod pod("examples/lab-2pod.yaml");
  const Blueprint& bp = pod.plan.blueprint;
  const int agg = pod.fabric->device_by_name("agg-p1-2-01");
  REQUIRE(agg >= 0);
  std::vector<int> downlinks;
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    if (bp.cables[i].kind == CableKind::tor_agg && bp.cables[i].z_device == agg) downlinks.push_back(static_cast<int>(i));
  }
  REQUIRE(downlinks.size() == 4);
  std::vector<int> dark, quiet;
  for (int c : downlinks) (bp.devices[bp.cables[c].a_device].segment == 0 ? dark : quiet).push_back(c);
  REQUIRE(dark.size() == 2);
  auto run = [&](bool faulty) {
    auto wiring = fabricmodel::planned_wiring(*pod.fabric);
    if (faulty) for (int c : dark) wiring[c].fault = {lab::FaultKind::down};
    fabricmodel::FabricModel model(*pod.fabric, wiring);
    probe::PlanOptions plan;
    plan.silence.attempts = 3;
    const auto observed = fabricmodel::simulate_verify(model, pod.hosts, plan, 3);
    validator::DiffOptions options;
    options.silence.attempts = 3;
    return validator::diff(*pod.fabric, validator::collect_witnesses(*pod.fabric, observed.observations), options);
  };
  const auto report = run(true);
  std::set<std::string> serious;
  for (const auto& f : report.findings) {
    if (f.severity != Severity::info) {
      serious.insert(std::string(validator::to_string(f.kind)) + " " + bp.cables[f.cables.at(0)].id);
    }
  }
  CHECK(serious == std::set<std::string>{"missing " + bp.cables[dark[0]].id, "missing " + bp.cables[dark[1]].id});
  for (int c : quiet) {
    INFO(bp.cables[c].id);
    auto it = std::find_if(report.findings.begin(), report.findings.end(),
                           [&](const auto& f) { return f.cables == std::vector<int>{c}; });
    REQUIRE(it != report.findings.end());
    CHECK(it->kind == FindingKind::unobserved);
    if (c == quiet.front()) test::check_golden_message(bp, *it, "starved");
    CHECK(it->message == fmt::format("cable {} ({}:etp6 -- agg-p1-2-01:{}) was seen {}:etp6 -> agg-p1-2-01:{} only, "
                                     "and that is no fault of its own: little traffic for {}'s hosts reached "
                                     "agg-p1-2-01, because cables {} and {} carried nothing up to it in this run "
                                     "(see their findings); fix them and verify again",
                                     bp.cables[c].id, bp.devices[bp.cables[c].a_device].name, bp.cables[c].z_port,
                                     bp.devices[bp.cables[c].a_device].name, bp.cables[c].z_port,
                                     bp.devices[bp.cables[c].a_device].name, bp.cables[dark[0]].id,
                                     bp.cables[dark[1]].id));
  }
  CHECK_FALSE(report.clean());
  // Fixed and verified again: no finding above info, and the cables that
  // were quiet and the ones that were dark seen both ways.
  const auto fixed = run(false);
  CHECK(std::none_of(fixed.findings.begin(), fixed.findings.end(), [](const auto& f) { return f.severity != Severity::info; }));
  for (int c : downlinks) {
    INFO(bp.cables[c].id);
    CHECK(fixed.evidence[c].dir[0].received > 0);
    CHECK(fixed.evidence[c].dir[1].received > 0);
  }
}
