// The diff on the lab pod, wired as planned and miswired one way at a time:
// each fault gives exactly its finding, naming the right cables, and nothing else.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "lab_fixture.h"
#include "support/findings.h"

using namespace hpn;
using hpn::probe::ProbeDirection;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::LabFixture;
using hpn::test::finding_cable_ids;
using hpn::test::findings_text;

namespace {

// Moves the z-end of `cable` to `to`.
void reroute(LabFixture& lab, int cable, PortRef to) { lab.plug_z(cable, to); }

}  // namespace

TEST_CASE("validator/diff: the planned wiring gives no finding") {
  LabFixture lab;
  auto r = lab.verify();
  INFO(findings_text(r));
  CHECK(r.findings.empty());
  CHECK(r.clean());
  CHECK(r.summary.cables_in_scope == 64 + 32);  // host cables and ToR uplinks; one pod: no core traffic
  CHECK(r.summary.cables_verified == 96);
  CHECK(r.summary.cables_out_of_scope == 16);
  CHECK(r.summary.lost == 0);
}

TEST_CASE("validator/diff: two host cables swapped on one ToR are one finding naming both") {
  LabFixture lab;
  int a = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a:etp1a
  int b = lab.cable_from("host-p0-s00-h001", "nic1p1");  // -> tor-p0-s00-r1a:etp1b
  lab.swap_z(a, b);
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::swapped);
  CHECK(f.severity == Severity::critical);
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  CHECK(f.message == "cables " + lab.bp().cables[a].id + " and " + lab.bp().cables[b].id +
                         " are swapped at tor-p0-s00-r1a: etp1a and etp1b hold each other's cable; swap them back");
}

TEST_CASE("validator/diff: two ToR uplinks swapped are one finding naming both") {
  LabFixture lab;
  int a = lab.cable_from("tor-p0-s00-r1a", "etp5");  // -> agg-p0-1-00
  int b = lab.cable_from("tor-p0-s00-r1a", "etp6");  // -> agg-p0-1-01
  lab.swap_z(a, b);
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::swapped);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]).size() == 2);
}

TEST_CASE("validator/diff: a cable landing on the wrong aggregation switch") {
  LabFixture lab;
  int c = lab.cable_from("tor-p0-s00-r1a", "etp5");  // planned to agg-p0-1-00:etp1
  reroute(lab, c, lab.port("agg-p0-1-01", "etp5"));  // a spare port of another agg
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::wrong_device);
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{lab.bp().cables[c].id});
  CHECK(f.observed == "tor-p0-s00-r1a:etp5 -- agg-p0-1-01:etp5");
  CHECK(f.message == "cable " + lab.bp().cables[c].id + " from tor-p0-s00-r1a:etp5 lands on "
                     "agg-p0-1-01:etp5 instead of agg-p0-1-00:etp1; re-run it to agg-p0-1-00:etp1");
}

TEST_CASE("validator/diff: a cable on the right switch but the wrong port") {
  LabFixture lab;
  int c = lab.cable_from("tor-p0-s00-r1a", "etp5");
  reroute(lab, c, lab.port("agg-p0-1-00", "etp6"));
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::wrong_port);
  CHECK(r.findings[0].message == "cable " + lab.bp().cables[c].id +
                                     " from tor-p0-s00-r1a:etp5 lands on agg-p0-1-00 port etp6; move it to port etp1");
}

TEST_CASE("validator/diff: a missing host cable and a missing ToR uplink") {
  for (bool host : {true, false}) {
    LabFixture lab;
    int c = host ? lab.cable_from("host-p0-s01-h002", "nic2p2") : lab.cable_from("tor-p0-s01-r2b", "etp7");
    lab.plug_z(c, {});  // not there
    auto r = lab.verify();
    INFO(findings_text(r));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].kind == FindingKind::missing);
    CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[c].id});
    const auto& e = r.evidence[c];
    CHECK(e.dir[0].received == 0);
    CHECK(e.dir[1].received == 0);
    if (host) CHECK(e.dir[0].sent >= 3);
  }
}

TEST_CASE("validator/diff: a dark cable is missing light both ways") {
  LabFixture lab;
  int c = lab.cable_from("host-p0-s00-h003", "nic1p2");
  lab.set_fault(c, "down");
  auto r = lab.verify();
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::missing);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[c].id});
}

TEST_CASE("validator/diff: one direction dropped is unidirectional, naming the dead direction") {
  LabFixture lab;
  int c = lab.cable_from("host-p0-s00-h004", "nic2p1");
  lab.set_fault(c, "drop-a-z");  // NIC -> ToR broken, as in HPN §10
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::unidirectional);
  CHECK(r.findings[0].observed == "tor-p0-s00-r2a:etp3a -> host-p0-s00-h004:nic2p1 only");
  CHECK(r.evidence[c].dir[0].received == 0);
  CHECK(r.evidence[c].dir[1].received > 0);

  LabFixture up;
  int u = up.cable_from("tor-p0-s01-r1b", "etp8");
  up.set_fault(u, "drop-a-z");
  auto ru = up.verify();
  INFO(findings_text(ru));
  REQUIRE(ru.findings.size() == 1);
  CHECK(ru.findings[0].kind == FindingKind::unidirectional);
  CHECK(finding_cable_ids(up.bp(), ru.findings[0]) == std::vector<std::string>{up.bp().cables[u].id});
}

TEST_CASE("validator/diff: both ports of a NIC on one ToR is a plane violation") {
  LabFixture lab;
  int c = lab.cable_from("host-p0-s00-h000", "nic1p2");  // planned to tor-p0-s00-r1b:etp1a
  reroute(lab, c, lab.port("tor-p0-s00-r1a", "etp9"));
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::plane_violation);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[c].id});
  CHECK(r.findings[0].message == "cable " + lab.bp().cables[c].id + " from host-p0-s00-h000:nic1p2 lands on "
                                 "tor-p0-s00-r1a:etp9 in plane 1, so both ports of NIC 1 reach one plane; move it to "
                                 "tor-p0-s00-r1b:etp1a in plane 2");
}

TEST_CASE("validator/diff: a NIC on another rail's ToR is a rail violation") {
  LabFixture lab;
  int c = lab.cable_from("host-p0-s00-h000", "nic1p1");
  reroute(lab, c, lab.port("tor-p0-s00-r2a", "etp9"));
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::rail_violation);
}

TEST_CASE("validator/diff: an extra cable between spare ports is unplanned") {
  LabFixture lab;
  lab.add_cable(lab.port("tor-p0-s00-r1a", "etp10"), lab.port("agg-p0-1-02", "etp6"));
  // Traffic only crosses it if routing uses it: the ToR hashes over all its
  // uplinks, so it does.
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::unplanned);
  CHECK(r.findings[0].cables.empty());
}

TEST_CASE("validator/diff: too few probes is unobserved, never missing") {
  LabFixture lab;
  auto all = lab.observe();
  // Keep only the probes of one host port: the rest of the fabric has too
  // little evidence to call anything missing.
  probe::ObservationSet few;
  for (const auto& o : all) {
    if (o.src_device == "host-p0-s00-h000" && o.src_port == "nic1p1" && few.size() < 2) few.push_back(o);
  }
  auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, few));
  for (const auto& f : r.findings) {
    INFO(f.message);
    CHECK(f.kind == FindingKind::unobserved);
    CHECK(f.severity == Severity::info);
  }
  // Too little evidence is its own answer: not clean, and not a fault.
  CHECK_FALSE(r.clean());
  CHECK(r.summary.cables_verified < r.summary.cables_in_scope);
  CHECK(r.summary.coverage.at("host-tor").unobserved > 0);
}

TEST_CASE("validator/diff: a verdict needs evidence: nothing in scope, or a cable unverified, is not clean") {
  LabFixture lab;
  auto none = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, {}));
  CHECK(none.findings.empty());
  CHECK(none.summary.cables_in_scope == 0);
  CHECK_FALSE(none.clean());
  auto all = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, lab.observe()));
  CHECK(all.clean());
  CHECK(all.summary.cables_verified == all.summary.cables_in_scope);
  const auto& host = all.summary.coverage.at("host-tor");
  CHECK(host.in_scope == 64);
  CHECK(host.verified == 64);
  CHECK(host.unobserved == 0);
  // A scope of one segment: its hosts' cables and its ToRs' uplinks.
  validator::DiffOptions scoped;
  for (size_t d = 0; d < lab.plan.blueprint.devices.size(); ++d) {
    const Device& dev = lab.plan.blueprint.devices[d];
    if (dev.role == Role::host && dev.segment == 1) scoped.scope_hosts.push_back(static_cast<int>(d));
  }
  auto seg = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, lab.observe()), scoped);
  CHECK(seg.clean());
  CHECK(seg.summary.coverage.at("host-tor").in_scope == 32);
  CHECK(seg.summary.coverage.at("tor-agg").in_scope == 16);
  CHECK(seg.summary.cables_out_of_scope == static_cast<int64_t>(lab.plan.blueprint.cables.size()) - seg.summary.cables_in_scope);
}

TEST_CASE("validator/diff: one plan's observations checked against another plan are not clean") {
  LabFixture lab;
  const auto observations = lab.observe();  // the lab pod's probes
  auto spec = default_spec();
  REQUIRE(spec.ok());
  auto other = make_plan(std::move(spec.value()), "test");
  REQUIRE(other.ok());
  FabricIndex fabric(other->blueprint);  // the default pod: the same host names, other node and port IDs
  auto r = validator::diff(fabric, validator::collect_witnesses(fabric, observations));
  CHECK_FALSE(r.clean());
  CHECK(r.summary.cables_in_scope > 0);
  CHECK(r.summary.cables_verified < r.summary.cables_in_scope);
}

TEST_CASE("validator/diff: an expired probe witnesses each cable up to the switch that answered, one way") {
  LabFixture lab;
  const Blueprint& bp = lab.plan.blueprint;
  const int host = lab.fabric->device_by_name("host-p0-s00-h000");
  const int port = lab.fabric->port_by_name(host, "nic1p1");
  const PortRef tor = lab.fabric->far_end({host, port});
  // The ToR's first uplink, to its aggregation switch.
  PortRef up, agg;
  for (size_t i = 0; i < bp.panels[bp.devices[tor.device].panel].ports.size() && !agg.valid(); ++i) {
    const PortRef p{tor.device, static_cast<int>(i)};
    const CableEnd e = lab.fabric->cable_at(p);
    if (e.cable >= 0 && bp.cables[e.cable].kind == CableKind::tor_agg) {
      up = p;
      agg = lab.fabric->far_end(p);
    }
  }
  probe::ObservationRecord o;
  o.run = "r";
  o.direction = ProbeDirection::expired;
  o.src_device = bp.devices[host].name;
  o.src_port = "nic1p1";
  o.dst_device = bp.devices[agg.device].name;
  o.received = true;
  o.hop_limit = 64;
  o.reporter = "fd48:5050::5";
  o.hops = {{bp.devices[tor.device].node_id, lab.fabric->port(tor).port_id, lab.fabric->port(up).port_id, 63},
            {bp.devices[agg.device].node_id, lab.fabric->port(agg).port_id, -1, 62}};
  const auto w = validator::collect_witnesses(*lab.fabric, {o});
  CHECK(w.expired == 1);
  CHECK(w.unreadable_hops == 0);
  CHECK(w.probed_switches == std::set<int>{agg.device});
  const int host_cable = lab.fabric->cable_at({host, port}).cable, uplink = lab.fabric->cable_at(up).cable;
  CHECK(w.cables[host_cable].dir[0].received == 1);  // host -> ToR
  CHECK(w.cables[host_cable].dir[1].received == 0);
  CHECK(w.cables[uplink].dir[0].received == 1);      // ToR -> aggregation switch
  CHECK(w.cables[uplink].dir[1].received == 0);
  // Nothing is expected back: no probe counts as sent on any cable.
  for (const auto& c : w.cables) CHECK(c.dir[0].sent + c.dir[1].sent == 0);
  CHECK(w.unplanned.empty());
}

TEST_CASE("validator/diff: two host cables exchanged across rails are one rail-violation naming both") {
  LabFixture lab;
  int a = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a (rail 1)
  int b = lab.cable_from("host-p0-s00-h001", "nic2p1");  // -> tor-p0-s00-r2a (rail 2)
  const PortRef to_a = lab.z_of(a), to_b = lab.z_of(b);
  lab.swap_z(a, b);
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::rail_violation);
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  const std::string ca = lab.bp().cables[a].id, cb = lab.bp().cables[b].id;
  CHECK(f.message == fmt::format("cables {} and {} are exchanged across rails: {} from host-p0-s00-h000:nic1p1 lands on "
                                 "{}, where {} belongs, and {} from host-p0-s00-h001:nic2p1 lands on {}, where {} "
                                 "belongs; swap them back",
                                 std::min(ca, cb), std::max(ca, cb), ca, lab.fabric->name(to_b), cb, cb, lab.fabric->name(to_a), ca));
}

TEST_CASE("validator/diff: two host cables exchanged across planes are one plane-violation naming both") {
  LabFixture lab;
  int a = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a (plane 1)
  int b = lab.cable_from("host-p0-s00-h001", "nic1p2");  // -> tor-p0-s00-r1b (plane 2)
  lab.swap_z(a, b);
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::plane_violation);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  CHECK(r.findings[0].message.find(" are exchanged across planes: ") != std::string::npos);
}

TEST_CASE("validator/diff: two cables exchanged between two devices say where each landed, not 'swapped at' one") {
  LabFixture lab;
  int a = lab.cable_from("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a
  int b = lab.cable_from("host-p0-s01-h000", "nic1p1");  // -> tor-p0-s01-r1a: same rail and plane, other segment
  const PortRef to_a = lab.z_of(a), to_b = lab.z_of(b);
  lab.swap_z(a, b);
  auto r = lab.verify();
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::swapped);
  const std::string ca = lab.bp().cables[a].id, cb = lab.bp().cables[b].id;
  CHECK(f.message == fmt::format("cables {} and {} are exchanged: {} from host-p0-s00-h000:nic1p1 lands on {}, where {} "
                                 "belongs, and {} from host-p0-s01-h000:nic1p1 lands on {}, where {} belongs; swap "
                                 "them back",
                                 std::min(ca, cb), std::max(ca, cb), ca, lab.fabric->name(to_b), cb, cb, lab.fabric->name(to_a), ca));
}

TEST_CASE("validator/diff: an uplink no distinct five-tuple hashed onto is unobserved however often one five-tuple repeats") {
  // Up from tor-p0-s00-r1a, one five-tuple only, sent forty times (as a
  // loss round's trains repeat the five-tuples of probes already traced):
  // it takes one uplink every time, which says nothing of the other three.
  LabFixture lab;
  const Blueprint& bp = lab.bp();
  const int tor = lab.fabric->device_by_name("tor-p0-s00-r1a");
  probe::ObservationSet obs;
  for (const probe::Observation o : lab.observe()) {
    const bool up_from_tor = o.hops.size() > 1 && lab.fabric->device_by_node_id(o.hops.front().node_id) == tor;
    if (!up_from_tor) obs.add(o);
  }
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  const int host = lab.fabric->device_by_name("host-p0-s00-h000"), dst = lab.fabric->device_by_name("host-p0-s01-h000");
  for (int id = 1; id <= 40; ++id) {
    obs.add_all(model.probe(host, lab.fabric->port_by_name(host, "nic1p1"), dst, 1, 50000, 100000 + id));
  }
  const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, obs));
  INFO(findings_text(r));
  int uplinks = 0, carried = 0;
  for (size_t c = 0; c < bp.cables.size(); ++c) {
    if (bp.cables[c].kind != CableKind::tor_agg || bp.cables[c].a_device != tor) continue;
    ++uplinks;
    INFO(bp.cables[c].id);
    const auto& e = r.evidence[c].dir[0];
    if (e.received > 0) {
      ++carried;
      CHECK(e.received == 40);
      CHECK(e.flows == 1);
      continue;
    }
    CHECK(r.evidence[c].dir[1].received > 0);  // seen down, never up
    for (const auto& f : r.findings) {
      if (std::find(f.cables.begin(), f.cables.end(), static_cast<int>(c)) == f.cables.end()) continue;
      CHECK(f.kind == FindingKind::unobserved);
    }
  }
  CHECK(uplinks == 4);
  CHECK(carried == 1);
}

TEST_CASE("validator/diff: a cable moved at its host end to a port the plan leaves free is one finding naming it") {
  // A host port without its planned cable, and another host cable's host
  // end plugged in there instead: the ToR end stayed. Whichever device
  // the blueprint lists first, the finding is the moved cable's.
  struct Case {
    const char* from_host;
    const char* to_host;
    FindingKind kind;
    const char* message;  // after "cable ID from tor-...:etp1a lands on "
  };
  for (const auto& c : {Case{"host-p0-s00-h000", "host-p0-s00-h000", FindingKind::wrong_port,
                             "host-p0-s00-h000 port nic1p2; move it to port nic1p1"},
                        Case{"host-p0-s01-h000", "host-p0-s00-h003", FindingKind::wrong_device,
                             "host-p0-s00-h003:nic1p2 instead of host-p0-s01-h000:nic1p1; re-run it to "
                             "host-p0-s01-h000:nic1p1"}}) {
    INFO(c.from_host << " -> " << c.to_host);
    LabFixture lab;
    auto& cables = lab.plan.blueprint.cables;
    const std::string moved_id = cables[lab.cable_from(c.from_host, "nic1p1")].id;
    cables.erase(cables.begin() + lab.cable_from(c.to_host, "nic1p2"));
    lab.fabric = std::make_unique<FabricIndex>(lab.plan.blueprint);
    lab.wiring = fabricmodel::planned_wiring(*lab.fabric);
    const int moved = lab.cable(moved_id);
    const std::string tor = lab.fabric->name(lab.z_of(moved));
    lab.plug_a(moved, lab.port(c.to_host, "nic1p2"));
    const auto r = lab.verify();
    INFO(findings_text(r));
    std::vector<const validator::Finding*> serious;
    for (const auto& f : r.findings) {
      if (f.severity != Severity::info) serious.push_back(&f);
    }
    REQUIRE(serious.size() == 1);
    CHECK(serious[0]->kind == c.kind);
    CHECK(serious[0]->cables == std::vector<int>{moved});
    CHECK(serious[0]->expected == std::string(c.from_host) + ":nic1p1 -- " + tor);
    CHECK(serious[0]->observed == std::string(c.to_host) + ":nic1p2 -- " + tor);
    CHECK(serious[0]->message == "cable " + moved_id + " from " + tor + " lands on " + c.message);
  }
}

TEST_CASE("validator/diff: host ends exchanged between two hosts, and between two NICs of one host, are one finding each") {
  SECTION("two hosts under ToRs of one rail and plane") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s00-h000", "nic1p1"), b = lab.cable_from("host-p0-s01-h003", "nic1p1");
    lab.swap_a(a, b);
    const auto r = lab.verify();
    INFO(findings_text(r));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].kind == FindingKind::swapped);
    CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  }
  SECTION("two NICs of one host") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s01-h002", "nic1p2"), b = lab.cable_from("host-p0-s01-h002", "nic2p2");
    lab.swap_a(a, b);
    const auto r = lab.verify();
    INFO(findings_text(r));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].kind == FindingKind::rail_violation);
    CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{lab.bp().cables[a].id, lab.bp().cables[b].id});
  }
  SECTION("both ports of a NIC dark") {
    LabFixture lab;
    const int a = lab.cable_from("host-p0-s00-h005", "nic2p1"), b = lab.cable_from("host-p0-s00-h005", "nic2p2");
    lab.set_fault(a, "down");
    lab.set_fault(b, "down");
    const auto r = lab.verify();
    INFO(findings_text(r));
    REQUIRE(r.findings.size() == 2);
    for (const auto& f : r.findings) CHECK(f.kind == FindingKind::missing);
  }
}
