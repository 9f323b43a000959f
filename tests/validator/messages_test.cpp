// Every kind of finding, made by a fault on the lab pods' forwarding model
// and probed as verify --lab probes, against its entry in the golden file
// of messages (golden_messages.h): each names its cables with their planned
// and observed ends and says what to do. wrong-asn and core-rule-violation
// are made from BGP dumps and core traces, in bgp_test.cpp and
// core_rule_test.cpp, which check the same file.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

#include "golden_messages.h"
#include "lab_fixture.h"
#include "probe/probe_plan.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::LabFixture;

namespace {

validator::Report probed(const LabFixture& lab, double max_background = 0.01) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  std::vector<int> hosts;
  for (size_t d = 0; d < lab.bp().devices.size(); ++d) {
    if (lab.bp().devices[d].role == Role::host) hosts.push_back(static_cast<int>(d));
  }
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  const auto run = fabricmodel::simulate_verify(model, hosts, plan, 3);
  validator::DiffOptions options;
  options.silence.attempts = 3;
  options.loss.max_background = max_background;
  return validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, run.observations), options);
}

// The one finding above info, which must be of `kind`.
const validator::Finding& only(const validator::Report& r, FindingKind kind) {
  std::string all;
  const validator::Finding* found = nullptr;
  int serious = 0;
  for (const auto& f : r.findings) {
    all.append(to_string(f.kind)).append(": ").append(f.message).append("\n");
    if (f.severity == Severity::info) continue;
    ++serious;
    found = &f;
  }
  INFO(all);
  REQUIRE(serious == 1);
  REQUIRE(found->kind == kind);
  return *found;
}

}  // namespace

TEST_CASE("validator/messages: every kind of finding reads as the golden file has it", "[validator][golden]") {
  SECTION("missing") {
    LabFixture lab;
    lab.set_fault(lab.cable_from("tor-p0-s00-r1a", "etp5"), "down");
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::missing));
  }
  SECTION("unidirectional") {
    LabFixture lab;
    lab.set_fault(lab.cable_from("host-p0-s00-h001", "nic2p1"), "drop-z-a");
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::unidirectional));
  }
  SECTION("swapped") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s00-h000", "nic1p1"), b = lab.cable_from("host-p0-s00-h001", "nic1p1");
    lab.swap_z(a, b);
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::swapped));
  }
  SECTION("exchanged between two devices") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s00-h000", "nic1p1"), b = lab.cable_from("host-p0-s01-h000", "nic1p1");
    lab.swap_z(a, b);
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::swapped), "two devices");
  }
  SECTION("wrong-port") {
    LabFixture lab;
    lab.plug_z(lab.cable_from("tor-p0-s01-r2a", "etp7"), lab.port("agg-p0-1-02", "etp6"));
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::wrong_port));
  }
  SECTION("wrong-device") {
    LabFixture lab;
    lab.plug_z(lab.cable_from("host-p0-s00-h002", "nic1p1"), lab.port("tor-p0-s01-r1a", "etp10"));
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::wrong_device));
  }
  SECTION("rail-violation") {
    LabFixture lab;
    lab.plug_z(lab.cable_from("host-p0-s00-h000", "nic1p1"), lab.port("tor-p0-s00-r2a", "etp9"));
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::rail_violation));
  }
  SECTION("rail-violation: an exchange") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s00-h000", "nic1p1"), b = lab.cable_from("host-p0-s00-h001", "nic2p1");
    lab.swap_z(a, b);
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::rail_violation), "exchange");
  }
  SECTION("plane-violation") {
    LabFixture lab;
    lab.plug_z(lab.cable_from("host-p0-s00-h000", "nic1p2"), lab.port("tor-p0-s00-r1a", "etp9"));
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::plane_violation));
  }
  SECTION("plane-violation: an uplink exchange") {
    LabFixture lab;
    const int a = lab.cable_from("tor-p0-s00-r1a", "etp5"), b = lab.cable_from("tor-p0-s01-r2b", "etp6");
    lab.swap_z(a, b);
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::plane_violation), "uplink exchange");
  }
  SECTION("unplanned") {
    LabFixture lab;
    lab.add_cable(lab.port("tor-p0-s00-r1a", "etp10"), lab.port("agg-p0-1-02", "etp6"));
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::unplanned));
  }
  SECTION("lossy") {
    LabFixture lab;
    lab.set_fault(lab.cable_from("tor-p0-s01-r1b", "etp6"), "loss-a-z:30");
    test::check_golden_message(lab.bp(), only(probed(lab), FindingKind::lossy));
  }
  SECTION("unobserved") {
    // One host's probes only: the uplinks of its ToRs that its few
    // flows missed are too little evidence either way.
    LabFixture lab;
    fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
    const int host = lab.fabric->device_by_name("host-p0-s00-h000"), dst = lab.fabric->device_by_name("host-p0-s01-h000");
    probe::ObservationSet obs;
    for (int id = 1; id <= 2; ++id) {
      const auto o = model.probe(host, lab.fabric->port_by_name(host, "nic1p1"), dst, 1, 49152 + id, id);
      obs.add_all(o);
    }
    const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, obs));
    auto it = std::find_if(r.findings.begin(), r.findings.end(), [](const auto& f) {
      return f.kind == FindingKind::unobserved && f.observed == "not enough probes";
    });
    REQUIRE(it != r.findings.end());
    test::check_golden_message(lab.bp(), *it);
  }
}

TEST_CASE("validator/messages: the golden file has an entry for every kind the report schema names", "[validator][golden]") {
  const auto schema = nlohmann::json::parse(test::read_file(test::source_path("schemas/verify-report.schema.json")));
  const auto& kinds = schema["properties"]["findings"]["items"]["properties"]["kind"]["enum"];
  REQUIRE(kinds.size() >= 12);
  std::set<std::string> headed;
  for (const auto& [heading, body] : test::read_golden_messages()) {
    headed.insert(heading.substr(1, heading.find_first_of(":]") - 1));
  }
  for (const auto& kind : kinds) {
    INFO(kind.get<std::string>());
    CHECK(headed.count(kind.get<std::string>()) == 1);
  }
}
