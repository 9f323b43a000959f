// The verdict's pipeline (validator/verify.h) on the lab pod: every stage
// verify() owns shows in its Report or its errors, so a pipeline that
// skipped one (the loss estimate, the LLDP or BGP dumps, the check for
// another plan's observations) fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "lab_fixture.h"
#include "support/findings.h"
#include "support/observations.h"
#include "validator/verify.h"

using namespace hpn;
using hpn::test::LabFixture;
using hpn::test::finding_cable_ids;
using hpn::test::findings_text;
using hpn::validator::FindingKind;

namespace {

// The lab pod probed as verify --lab probes it (its rounds, then the loss
// rounds' trains), three attempts a probe.
validator::Evidence probed_as_lab(const LabFixture& lab) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  validator::Evidence evidence;
  evidence.observations = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3).observations;
  return evidence;
}

// LLDP dumps of every aggregation switch and core, each port hearing the
// port the plan cables to it: what lldpcli reports of the planned wiring.
std::vector<validator::LldpDump> planned_lldp(const LabFixture& lab) {
  const Blueprint& bp = lab.bp();
  std::map<int, validator::LldpDump> dumps;
  auto hear = [&](int device, const std::string& port, int peer, const std::string& peer_port) {
    auto& d = dumps[device];
    d.device = bp.devices[device].name;
    d.source = d.device + ".json";
    d.neighbours.push_back({port, bp.devices[peer].name, "ifname", peer_port, peer_port, d.source});
  };
  for (const Cable& c : bp.cables) {
    if (c.kind != CableKind::agg_core) continue;
    hear(c.a_device, c.a_port, c.z_device, c.z_port);
    hear(c.z_device, c.z_port, c.a_device, c.a_port);
  }
  std::vector<validator::LldpDump> out;
  for (auto& [device, dump] : dumps) out.push_back(std::move(dump));
  return out;
}

validator::VerifyOptions three_attempts() {
  validator::VerifyOptions o;
  o.diff.silence.attempts = 3;
  return o;
}

}  // namespace

TEST_CASE("validator/verify: a miswire and a lossy uplink in one run are both found", "[validator][verify]") {
  LabFixture lab;
  const int a = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a:etp1a
  const int b = lab.cable_from("host-p0-s00-h001", "nic1p1");  // -> tor-p0-s00-r1a:etp1b
  lab.swap_z(a, b);
  const int uplink = lab.cable_from("tor-p0-s01-r1b", "etp6");  // a = ToR, z = aggregation
  lab.set_fault(uplink, "loss-a-z:30");

  const auto verified = validator::verify(*lab.fabric, probed_as_lab(lab), three_attempts());
  REQUIRE(verified.ok());
  const validator::Report& r = verified.value();
  INFO(findings_text(r));
  auto of_kind = [&](FindingKind kind) {
    std::vector<const validator::Finding*> out;
    for (const auto& f : r.findings) {
      if (f.kind == kind) out.push_back(&f);
    }
    return out;
  };
  const auto swapped = of_kind(FindingKind::swapped);
  REQUIRE(swapped.size() == 1);
  CHECK(finding_cable_ids(lab.bp(), *swapped[0]) ==
        std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  const auto lossy = of_kind(FindingKind::lossy);
  REQUIRE(lossy.size() == 1);
  CHECK(lossy[0]->cables == std::vector<int>{uplink});
  REQUIRE(lossy[0]->loss.has_value());
  CHECK(lossy[0]->loss->direction == 0);
  CHECK(lossy[0]->loss->rate == Approx(0.30).margin(0.05));
  CHECK_FALSE(r.clean());
}

TEST_CASE("validator/verify: the planned wiring is clean once LLDP speaks for the cores' downward directions",
          "[validator][verify]") {
  LabFixture lab;
  validator::Evidence evidence = probed_as_lab(lab);
  // Within one pod no probe crosses a core downward: those directions are
  // unobserved, and the run is not clean, until the dumps speak for them.
  const auto probes_only = validator::verify(*lab.fabric, evidence, three_attempts());
  REQUIRE(probes_only.ok());
  CHECK(hpn::test::serious_findings(probes_only.value()).empty());
  CHECK(probes_only->summary.by_kind.count(FindingKind::unobserved) == 1);
  CHECK_FALSE(probes_only->clean());
  CHECK(probes_only->summary.loss_directions_tested > 0);  // the loss estimate ran

  evidence.lldp = planned_lldp(lab);
  const auto verified = validator::verify(*lab.fabric, evidence, three_attempts());
  REQUIRE(verified.ok());
  INFO(findings_text(verified.value()));
  CHECK(verified->findings.empty());
  CHECK(verified->clean());
}

TEST_CASE("validator/verify: LLDP and BGP dumps are read into the verdict, and refused when not the plan's",
          "[validator][verify]") {
  LabFixture lab;
  validator::Evidence evidence;
  evidence.lldp.push_back({"spine-9", false, "spine-9.json", {}});
  auto lldp = validator::verify(*lab.fabric, evidence, three_attempts());
  REQUIRE_FALSE(lldp.ok());
  CHECK(lldp.error().message == "spine-9.json: device 'spine-9' is not in the blueprint");

  evidence.lldp.clear();
  evidence.bgp.push_back({"spine-9", false, "spine-9.json", {}});
  auto bgp = validator::verify(*lab.fabric, evidence, three_attempts());
  REQUIRE_FALSE(bgp.ok());
  CHECK(bgp.error().message == "spine-9.json: device 'spine-9' is not in the blueprint");
}

TEST_CASE("validator/verify: observations that name no host of the plan are another plan's", "[validator][verify]") {
  LabFixture lab;
  // A run's records, every name changed: none is a host of the plan.
  std::vector<probe::ObservationRecord> records = hpn::test::records_of(probed_as_lab(lab).observations);
  for (auto& r : records) {
    r.src_device = "elsewhere-" + r.src_device;
    r.dst_device = "elsewhere-" + r.dst_device;
  }
  validator::Evidence foreign;
  foreign.observations = hpn::test::set_of(records);
  validator::VerifyOptions o = three_attempts();
  o.plan_name = "hpn-plan";
  auto verified = validator::verify(*lab.fabric, foreign, o);
  REQUIRE_FALSE(verified.ok());
  CHECK(verified.error().message.find("none of the " + std::to_string(foreign.observations.size()) +
                                      " observation records names a host of hpn-plan (the first names "
                                      "'elsewhere-") == 0);
}
