// Switch probes (probe::switch_probes()) through the forwarding model of the
// single lab pod: the probe plan reaches every switch-to-switch cable's up
// direction with no agent above the ToRs, and the diff names agg-core
// faults from them alone, with the host probes beside them.
#include <catch2/catch.hpp>

#include <set>

#include "lab_fixture.h"
#include "probe/probe_plan.h"
#include <sstream>

#include "validator/report.h"
#include "validator/witness.h"

using namespace hpn;
using hpn::validator::Severity;
using hpn::test::LabFixture;

namespace {

// The switch probes of the plan, round after round as verify --lab sends
// them (probe::next_switch_round), through the model of `lab.wiring`.
probe::ObservationSet switch_probe_model(const LabFixture& lab, int* rounds = nullptr) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::ObservationSet out;
  uint64_t id = 1u << 20;
  auto plan = probe::switch_probes(lab.bp(), lab.hosts());
  auto round = plan;
  int r = 0;
  for (; r < 8 && !round.empty(); ++r) {
    for (const auto& t : round) {
      const int port = lab.fabric->port_by_name(t.src_host, t.src_port);
      for (int sport : t.source_ports) out.push_back(model.switch_probe(t.src_host, port, t.dst_host, t.dst_address, sport, ++id));
    }
    round = probe::merge_round(plan, probe::next_switch_round(lab.bp(), plan, out));
  }
  if (rounds) *rounds = r;
  return out;
}

}  // namespace

TEST_CASE("validator/switch probes: the plan's switch probes witness every uplink's up direction", "[validator][switch]") {
  LabFixture lab;
  int rounds = 0;
  const auto obs = switch_probe_model(lab, &rounds);
  REQUIRE_FALSE(obs.empty());
  CHECK(rounds < 8);  // covered before the bound, and then no more probes asked for
  for (const auto& o : obs) {
    INFO(o.src_device << " -> " << o.dst_device);
    REQUIRE(o.received);
    // The trace ends at the switch addressed, which wrote no egress.
    REQUIRE_FALSE(o.hops.empty());
    CHECK(lab.fabric->device_by_node_id(o.hops.back().node_id) == lab.fabric->device_by_name(o.dst_device));
    CHECK(o.hops.back().egress_if == -1);
  }
  const auto w = validator::collect_witnesses(*lab.fabric, obs);
  CHECK(w.expired == static_cast<int64_t>(obs.size()));
  int uplinks = 0;
  for (size_t c = 0; c < lab.bp().cables.size(); ++c) {
    const auto kind = lab.bp().cables[c].kind;
    if (kind != CableKind::tor_agg && kind != CableKind::agg_core) continue;
    ++uplinks;
    INFO(lab.bp().cables[c].id);
    CHECK(w.cables[c].dir[0].received > 0);
    CHECK(w.cables[c].dir[1].received == 0);  // nothing comes back down with a trace
  }
  CHECK(uplinks > 0);
}

TEST_CASE("validator/switch probes: two aggregation uplinks exchanged between cores are named", "[validator][switch]") {
  LabFixture lab;
  // Two agg-core cables of one aggregation switch's plane, to different cores.
  int first = -1, second = -1;
  for (size_t c = 0; c < lab.bp().cables.size() && second < 0; ++c) {
    const Cable& cable = lab.bp().cables[c];
    if (cable.kind != CableKind::agg_core) continue;
    if (first < 0) first = static_cast<int>(c);
    else if (cable.a_device != lab.bp().cables[first].a_device && cable.z_device != lab.bp().cables[first].z_device &&
             lab.bp().devices[cable.z_device].plane == lab.bp().devices[lab.bp().cables[first].z_device].plane) {
      second = static_cast<int>(c);
    }
  }
  REQUIRE(second >= 0);
  lab.swap_z(first, second);
  auto obs = lab.observe();
  const auto up = switch_probe_model(lab);
  obs.add_all(up);
  const auto report = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, obs));
  std::set<int> named;
  for (const auto& f : report.findings) {
    if (f.severity != Severity::info) named.insert(f.cables.begin(), f.cables.end());
  }
  std::ostringstream text;
  validator::render_report(report, *lab.fabric, OutputFormat::json, text);
  INFO(text.str());
  CHECK(named == std::set<int>{first, second});
  CHECK_FALSE(report.clean());
}
