// Telemetry gaps and unreached switches on the forwarding model of the lab
// pods: a switch or a port that writes no IOAM record is a `telemetry`
// finding and leaves the cables behind it unobserved, never miswired; a
// switch that answers nothing is `unreached`, and the verdict not clean; a
// switch that forwards but sends no ICMPv6 error is a `telemetry` finding.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <set>

#include <nlohmann/json.hpp>
#include <sstream>

#include "golden_messages.h"
#include "lab_fixture.h"
#include "support/schema.h"
#include "support/findings.h"
#include "probe/probe_plan.h"
#include "validator/report.h"

using namespace hpn;
using hpn::probe::ProbeDirection;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::LabFixture;
using hpn::test::findings_of_kind;
using hpn::test::findings_text;

namespace {

// What verify --lab gathers, through the model (switch probes, host and
// loss rounds, three attempts a probe), diffed; `set_up` changes the
// model before any probe.
validator::Report probed(const LabFixture& lab, const std::function<void(fabricmodel::FabricModel&)>& set_up = {}) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  if (set_up) set_up(model);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  const auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
  validator::DiffOptions options;
  options.silence.attempts = 3;
  return validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, run.observations), options);
}

// No finding that calls a cable miswired, dark or broken.
void check_no_cable_fault(const validator::Report& r) {
  for (const auto& f : r.findings) {
    INFO(f.kind << ": " << f.message);
    CHECK((f.kind == FindingKind::telemetry || f.kind == FindingKind::unobserved || f.kind == FindingKind::unreached));
  }
}

const validator::Finding* finding_on(const validator::Report& r, int cable) {
  for (const auto& f : r.findings) {
    if (std::find(f.cables.begin(), f.cables.end(), cable) != f.cables.end()) return &f;
  }
  return nullptr;
}

// The report's JSON against schemas/verify-report.schema.json.
void check_schema(const std::string& json) { CHECK(test::schema_errors_of_text("verify-report.schema.json", json) == ""); }

struct TwoPodLab : LabFixture {
  TwoPodLab() {
    auto spec = load_spec_file(test::source_path("examples/lab-2pod.yaml").string());
    REQUIRE(spec.ok());
    auto made = make_plan(std::move(spec.value()), "test");
    REQUIRE(made.ok());
    plan = std::move(made.value());
    fabric = std::make_unique<FabricIndex>(plan.blueprint);
    wiring = fabricmodel::planned_wiring(*fabric);
  }
};

}  // namespace

TEST_CASE("validator/telemetry: a ToR port with IOAM off leaves its host cable unobserved, with a telemetry finding, no miswire",
          "[validator][telemetry]") {
  LabFixture lab;
  const int cable = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a:etp1a
  lab.set_fault(cable, "ioam-off-z");
  const auto r = probed(lab);
  INFO(findings_text(r));
  check_no_cable_fault(r);
  CHECK_FALSE(r.clean());
  const auto telemetry = findings_of_kind(r, FindingKind::telemetry);
  REQUIRE(telemetry.size() == 1);
  CHECK(telemetry[0]->severity == Severity::warning);
  CHECK(telemetry[0]->device == "tor-p0-s00-r1a");
  CHECK(telemetry[0]->ports == std::vector<std::string>{"etp1a"});
  CHECK(telemetry[0]->message.find("net.ipv6.conf.etp1a.ioam6_enabled=1") != std::string::npos);
  test::check_golden_message(lab.bp(), *telemetry[0], "port");
  // The host's probes enter the ToR there and carry no record of it; the
  // replies, recorded by the ToR on their way down, show the other way.
  const auto* f = finding_on(r, cable);
  REQUIRE(f != nullptr);
  CHECK(f->kind == FindingKind::unobserved);
  CHECK(f->message.find("switch tor-p0-s00-r1a wrote no telemetry on port etp1a") != std::string::npos);
  test::check_golden_message(lab.bp(), *f, "telemetry");
  CHECK(r.evidence[cable].dir[1].received > 0);
  CHECK(r.evidence[cable].dir[0].across_gap > 0);
  // Every other cable is verified as it is on the planned wiring.
  CHECK(r.summary.cables_verified == probed(LabFixture{}).summary.cables_verified - 1);
}

TEST_CASE("validator/telemetry: a ToR with IOAM off leaves every cable of it unobserved, one telemetry finding naming it",
          "[validator][telemetry]") {
  LabFixture lab;
  const int tor = lab.fabric->device_by_name("tor-p0-s01-r2b");
  const auto r = probed(lab, [&](fabricmodel::FabricModel& m) { m.leave_out_records(tor); });
  INFO(findings_text(r));
  check_no_cable_fault(r);
  CHECK_FALSE(r.clean());
  const auto telemetry = findings_of_kind(r, FindingKind::telemetry);
  REQUIRE(telemetry.size() == 1);
  CHECK(telemetry[0]->device == "tor-p0-s01-r2b");
  CHECK(telemetry[0]->message.starts_with("switch tor-p0-s01-r2b wrote no telemetry at all: "));
  test::check_golden_message(lab.bp(), *telemetry[0], "switch");
  int cables = 0;
  for (size_t c = 0; c < lab.bp().cables.size(); ++c) {
    const Cable& cable = lab.bp().cables[c];
    if (cable.a_device != tor && cable.z_device != tor) continue;
    ++cables;
    INFO(cable.id);
    const auto* f = finding_on(r, static_cast<int>(c));
    REQUIRE(f != nullptr);
    CHECK(f->kind == FindingKind::unobserved);
    CHECK(f->message.find(": switch tor-p0-s01-r2b wrote no telemetry at all, so the ") != std::string::npos);
    if (cable.kind == CableKind::tor_agg) CHECK(telemetry[0]->ports.end() != std::find(telemetry[0]->ports.begin(), telemetry[0]->ports.end(), cable.a_port));
  }
  CHECK(cables == 8 + 4);  // its host cables and its uplinks
  CHECK(r.summary.cables_verified == probed(LabFixture{}).summary.cables_verified - cables);
  // In JSON, the switch and its ports, as the report's schema has them.
  std::ostringstream out;
  validator::render_report(r, *lab.fabric, OutputFormat::json, out);
  const auto j = nlohmann::json::parse(out.str());
  for (const auto& f : j["findings"]) {
    if (f["kind"] != "telemetry") continue;
    CHECK(f["device"] == "tor-p0-s01-r2b");
    CHECK(f["ports"].size() == telemetry[0]->ports.size());
    CHECK(f["cables"].empty());
  }
  check_schema(out.str());
}

TEST_CASE("validator/telemetry: an aggregation switch silent on one port shows by the hop limits, and is named",
          "[validator][telemetry]") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp5");  // -> agg-p0-1-00:etp1
  lab.set_fault(uplink, "ioam-off-z");
  const auto r = probed(lab);
  INFO(findings_text(r));
  check_no_cable_fault(r);
  const auto telemetry = findings_of_kind(r, FindingKind::telemetry);
  REQUIRE(telemetry.size() == 1);
  CHECK(telemetry[0]->device == "agg-p0-1-00");
  CHECK(telemetry[0]->ports == std::vector<std::string>{"etp1"});
  const auto* f = finding_on(r, uplink);
  REQUIRE(f != nullptr);
  CHECK(f->kind == FindingKind::unobserved);
  CHECK(f->observed == "agg-p0-1-00:etp1 -> tor-p0-s00-r1a:etp5 only; no telemetry");
}

TEST_CASE("validator/telemetry: hop limits tell a switch that wrote nothing from a cable between two ToRs",
          "[validator][telemetry]") {
  // A probe up from one ToR and down to another of the same plane, with no
  // record between: through a silent aggregation switch (hop limits two
  // apart), or straight over a cable the plan does not have (one apart).
  LabFixture lab;
  const Blueprint& bp = lab.bp();
  const int src = lab.fabric->device_by_name("host-p0-s00-h000"), dst = lab.fabric->device_by_name("host-p0-s01-h000");
  const PortRef sender = lab.port("host-p0-s00-h000", "nic1p1"), up = lab.port("tor-p0-s00-r1a", "etp5");
  const PortRef tor_in = lab.fabric->far_end(sender);
  const PortRef arrival = lab.port("host-p0-s01-h000", "nic1p1");
  const PortRef far_tor_out = lab.fabric->far_end(arrival);
  // The far ToR's downlink from the same aggregation switch.
  const PortRef agg_down = [&] {
    const int agg = lab.fabric->far_end(up).device;
    for (size_t i = 0; i < bp.cables.size(); ++i) {
      if (bp.cables[i].z_device == agg && bp.cables[i].a_device == far_tor_out.device) return lab.fabric->end_of(static_cast<int>(i), 0);
    }
    FAIL("no downlink");
    return PortRef{};
  }();
  for (int limit : {62, 61}) {
    probe::ObservationRecord o;
    o.run = "r";
    o.direction = ProbeDirection::forward;
    o.src_device = bp.devices[src].name;
    o.src_port = "nic1p1";
    o.dst_device = bp.devices[dst].name;
    o.received = true;
    o.rx_port = "nic1p1";
    o.hops = {{bp.devices[tor_in.device].node_id, lab.fabric->port(tor_in).port_id, lab.fabric->port(up).port_id, 63},
              {bp.devices[far_tor_out.device].node_id, lab.fabric->port(agg_down).port_id,
               lab.fabric->port(far_tor_out).port_id, limit}};
    const auto w = validator::collect_witnesses(*lab.fabric, {o});
    INFO("second record's hop limit " << limit);
    if (limit == 62) {
      // The ToRs were next to each other: a link the plan does not have.
      CHECK(w.unplanned.size() == 1);
      CHECK(w.gaps.empty());
    } else {
      CHECK(w.unplanned.empty());
      REQUIRE(w.gaps.size() == 1);
      CHECK(w.gaps.begin()->first == std::pair{up, agg_down});
      CHECK(validator::gap_start(*lab.fabric, up, agg_down) == lab.fabric->far_end(up));
      CHECK(w.cables[lab.fabric->cable_at(up).cable].dir[0].across_gap == 1);
      CHECK(w.cables[lab.fabric->cable_at(agg_down).cable].dir[1].across_gap == 1);
    }
  }
}

TEST_CASE("validator/telemetry: a switch probe whose trace ends before its switch is a gap at that switch",
          "[validator][telemetry]") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp6");  // -> agg-p0-1-01
  lab.set_fault(uplink, "ioam-off-z");
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  const int host = lab.fabric->device_by_name("host-p0-s00-h000"), agg = lab.fabric->device_by_name("agg-p0-1-01");
  const PortRef aggregation_port = lab.fabric->end_of(uplink, 1);
  std::string loopback;
  for (const auto& i : lab.bp().interfaces) {
    if (i.device == agg && i.purpose == InterfacePurpose::loopback) loopback = i.ipv6;
  }
  const auto o = model.switch_probe(host, lab.fabric->port_by_name(host, "nic1p1"), agg, loopback, 50000, 1);
  REQUIRE(o.received);
  REQUIRE(o.hops.size() == 1);  // the ToR's; the switch addressed wrote none
  const auto w = validator::collect_witnesses(*lab.fabric, {o});
  CHECK(w.probed_switches.count(agg) == 1);
  REQUIRE(w.gaps.size() == 1);
  CHECK(validator::gap_start(*lab.fabric, w.gaps.begin()->first.first, w.gaps.begin()->first.second) == aggregation_port);
  CHECK(w.unplanned.empty());
}

TEST_CASE("validator/unreached: a dead core of two pods is one finding naming it and its cables, and not clean",
          "[validator][unreached]") {
  TwoPodLab lab;
  const int core = lab.fabric->device_by_name("core-1-00");
  std::set<int> cables;
  for (size_t c = 0; c < lab.bp().cables.size(); ++c) {
    if (lab.bp().cables[c].z_device == core) {
      lab.set_fault(c, "down");
      cables.insert(static_cast<int>(c));
    }
  }
  REQUIRE(cables.size() == 8);
  const auto r = probed(lab);
  INFO(findings_text(r));
  CHECK_FALSE(r.clean());
  const auto unreached = findings_of_kind(r, FindingKind::unreached);
  REQUIRE(unreached.size() == 1);
  CHECK(unreached[0]->severity == Severity::critical);
  CHECK(unreached[0]->device == "core-1-00");
  CHECK(std::set<int>(unreached[0]->cables.begin(), unreached[0]->cables.end()) == cables);
  test::check_golden_message(lab.bp(), *unreached[0]);
  std::ostringstream out;
  validator::render_report(r, *lab.fabric, OutputFormat::json, out);
  CHECK(out.str().find("\"device\": \"core-1-00\"") != std::string::npos);
  check_schema(out.str());
  // Its cables are named there and nowhere else.
  for (const auto& f : r.findings) {
    if (&f == unreached[0]) continue;
    for (int c : f.cables) CHECK(cables.count(c) == 0);
  }
}

TEST_CASE("validator/unreached: a dead ToR and a dead aggregation switch are one finding each, and their cables no other",
          "[validator][unreached]") {
  LabFixture lab;
  std::map<std::string, std::set<int>> dead{{"tor-p0-s01-r1b", {}}, {"agg-p0-1-02", {}}};
  for (auto& [name, cables] : dead) {
    const int device = lab.fabric->device_by_name(name);
    for (size_t c = 0; c < lab.bp().cables.size(); ++c) {
      if (lab.bp().cables[c].a_device != device && lab.bp().cables[c].z_device != device) continue;
      lab.set_fault(c, "down");
      cables.insert(static_cast<int>(c));
    }
  }
  const auto r = probed(lab);
  INFO(findings_text(r));
  CHECK_FALSE(r.clean());
  std::map<std::string, std::set<int>> named;
  for (const auto* f : findings_of_kind(r, FindingKind::unreached)) named[f->device].insert(f->cables.begin(), f->cables.end());
  CHECK(findings_of_kind(r, FindingKind::unreached).size() == 2);
  CHECK(named == dead);  // each with every cable of it (all are in scope)
  for (const auto& f : r.findings) {
    if (f.kind == FindingKind::unreached || f.severity == Severity::info) continue;
    INFO(f.kind << ": " << f.message);
    CHECK(false);  // nothing else above info
  }
}

TEST_CASE("validator/unreached: one pod: a core that never answers keeps its cables in the verdict", "[validator][unreached]") {
  // Within one pod only switch probes reach a core: when it answers none,
  // its cables once dropped out of scope and the run came out clean.
  LabFixture lab;
  const int core = lab.fabric->device_by_name("core-2-01");
  for (size_t c = 0; c < lab.bp().cables.size(); ++c) {
    if (lab.bp().cables[c].z_device == core) lab.set_fault(c, "down");
  }
  const auto r = probed(lab);
  INFO(findings_text(r));
  CHECK_FALSE(r.clean());
  const auto unreached = findings_of_kind(r, FindingKind::unreached);
  REQUIRE(unreached.size() == 1);
  CHECK(unreached[0]->device == "core-2-01");
  CHECK(unreached[0]->message.find("switch probes sent to it came back") != std::string::npos);
}

// A probe from pod 0 to pod 1 through `core` (plane 2), as the lab's
// cores forward it by their rules: the model leaves pods to the lab.
probe::ObservationRecord through_core(const LabFixture& lab, const std::string& core_name) {
  const Blueprint& bp = lab.bp();
  const FabricIndex& f = *lab.fabric;
  const int core = f.device_by_name(core_name);
  const PortRef sender = lab.port("host-p0-s00-h000", "nic1p2"), arrival = lab.port("host-p1-s00-h000", "nic1p2");
  const PortRef tor_in = f.far_end(sender), tor2_out = f.far_end(arrival);
  auto cable_between = [&](int a, int z) {
    for (size_t c = 0; c < bp.cables.size(); ++c) {
      if (bp.cables[c].a_device == a && bp.cables[c].z_device == z) return static_cast<int>(c);
    }
    return -1;
  };
  int up = -1, agg_up = -1;
  for (size_t c = 0; c < bp.cables.size() && agg_up < 0; ++c) {
    if (bp.cables[c].kind != CableKind::tor_agg || bp.cables[c].a_device != tor_in.device) continue;
    up = static_cast<int>(c);
    agg_up = cable_between(bp.cables[c].z_device, core);
  }
  REQUIRE(agg_up >= 0);
  const PortRef core_in = f.end_of(agg_up, 1);
  std::string out_port;
  for (const auto& rule : bp.core_rules) {
    if (rule.core == core && rule.in_port == f.port(core_in).name && rule.dst_pod == 1) out_port = rule.out_port;
  }
  REQUIRE_FALSE(out_port.empty());
  const PortRef core_out{core, f.port_by_name(core, out_port)};
  const PortRef agg2_in = f.far_end(core_out);
  const int down = cable_between(tor2_out.device, agg2_in.device);
  REQUIRE(down >= 0);
  auto hop = [&](PortRef in, PortRef out, int limit) {
    return probe::ObservedHop{bp.devices[in.device].node_id, f.port(in).port_id, f.port(out).port_id, limit};
  };
  probe::ObservationRecord o;
  o.run = "r";
  o.direction = ProbeDirection::forward;
  o.src_device = "host-p0-s00-h000";
  o.src_port = "nic1p2";
  o.dst_device = "host-p1-s00-h000";
  o.received = true;
  o.rx_port = "nic1p2";
  o.hops = {hop(tor_in, f.end_of(up, 0), 63), hop(f.end_of(up, 1), f.end_of(agg_up, 0), 62),
            hop(core_in, core_out, 61), hop(agg2_in, f.end_of(down, 1), 60), hop(f.end_of(down, 0), tor2_out, 59)};
  return o;
}

TEST_CASE("validator/unreached: a core that forwards but sends no ICMPv6 error is a telemetry finding, not unreached",
          "[validator][unreached][telemetry]") {
  TwoPodLab lab;
  const int core = lab.fabric->device_by_name("core-2-00");
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  model.answer_no_probes(core);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
  validator::DiffOptions options;
  options.silence.attempts = 3;
  const auto silent = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, run.observations), options);
  {
    INFO(findings_text(silent));
    // Nothing else shows it up: unreached.
    const auto unreached = findings_of_kind(silent, FindingKind::unreached);
    REQUIRE(unreached.size() == 1);
    CHECK(unreached[0]->device == "core-2-00");
  }
  // A probe between the pods crossed it: it forwards, and answers none.
  run.observations.push_back(through_core(lab, "core-2-00"));
  const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, run.observations), options);
  INFO(findings_text(r));
  CHECK_FALSE(r.clean());
  CHECK(findings_of_kind(r, FindingKind::unreached).empty());
  const auto telemetry = findings_of_kind(r, FindingKind::telemetry);
  REQUIRE(telemetry.size() == 1);
  CHECK(telemetry[0]->device == "core-2-00");
  test::check_golden_message(lab.bp(), *telemetry[0], "no ICMPv6");
}

TEST_CASE("validator/unreached: a run too small to reach a switch names none", "[validator][unreached]") {
  // Two probes from one host: most switches above it see nothing, and
  // nothing was asked of them that their silence would answer.
  LabFixture lab;
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  const int host = lab.fabric->device_by_name("host-p0-s00-h000"), dst = lab.fabric->device_by_name("host-p0-s01-h000");
  probe::ObservationSet obs;
  for (int id = 1; id <= 2; ++id) obs.add_all(model.probe(host, lab.fabric->port_by_name(host, "nic1p1"), dst, 1, 49152 + id, id));
  const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, obs));
  INFO(findings_text(r));
  CHECK(findings_of_kind(r, FindingKind::unreached).empty());
  CHECK(findings_of_kind(r, FindingKind::telemetry).empty());
}
