// The physical plant: long fibre runs through patch panels and trunks, and
// the fibre, connector and polarity the bill of materials names. Checked
// against the floor plan recomputed here, never against fixed counts.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "blueprint/csv.h"

#include "plan_fixture.h"
#include "planner/bom.h"
#include "planner/layout.h"
#include "planner/plan_output.h"
#include "planner/plant.h"
#include "planner/topology.h"

using namespace hpn;

namespace {

RackSlot slot_of(const Blueprint& bp, int device) {
  const Rack& r = bp.racks[bp.devices[device].rack];
  return {r.hall, r.row, r.position};
}

}  // namespace

// Issue 17: runs of 47 m (ToR to aggregation) and 340 m (between halls) had
// no patch panel or trunk.
TEST_CASE("planner/plant: every fibre run between rows past patch_beyond_m goes through panels, and only those") {
  Plan plan = test::plan_of("version: 1\nfabric: {pods: 2}\n");
  const Blueprint& bp = plan.blueprint;
  const Spec& spec = plan.spec;
  Topology t = derive_topology(spec);
  Layout layout(spec, t);
  int patched = 0, between_halls = 0;
  std::set<std::pair<int, int>> ports_used;
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    const RackSlot a = slot_of(bp, c.a_device), z = slot_of(bp, c.z_device);
    const int direct = layout.cable_length(a, bp.devices[c.a_device].ru, z, bp.devices[c.z_device].ru);
    const bool other_row = a.hall != z.hall || a.row != z.row;
    INFO("cable " << c.id << ", " << direct << " m direct");
    CHECK(c.patched() == (is_fibre(c.media) && other_row && direct > spec.media.patch_beyond_m));
    if (!c.patched()) {
      CHECK(c.length_m == direct);
      continue;
    }
    ++patched;
    // Cord, trunk(s), cord: an odd number of Type B parts keeps MPO polarity.
    CHECK((c.legs == 3 || c.legs == 5));
    CHECK(c.legs == (a.hall == z.hall ? 3 : 5));
    if (c.legs == 5) ++between_halls;
    CHECK(c.stock_length_m == 0);
    int channel = 0;
    for (int k = 0; k < c.legs; ++k) {
      const RunLeg& leg = bp.legs[c.first_leg + k];
      CHECK(leg.cable == int(i));
      channel += leg.length_m;
      CHECK(leg.stock_length_m == stock_length_m(spec.media.length_bins_m, leg.length_m));
      // Each leg starts where the one before ends; only the middle ones are trunk lanes.
      if (k > 0) {
        CHECK(leg.from_panel == bp.legs[c.first_leg + k - 1].to_panel);
        CHECK(leg.from_port == bp.legs[c.first_leg + k - 1].to_port);
      }
      CHECK((leg.trunk == kNone) == (k == 0 || k == c.legs - 1));
      if (leg.trunk != kNone) {
        const Trunk& trunk = bp.trunks[leg.trunk];
        CHECK(trunk.a_panel == leg.from_panel);
        CHECK(trunk.z_panel == leg.to_panel);
        CHECK(trunk.media == c.media);
        CHECK(trunk.length_m == leg.length_m);
        CHECK(leg.lane >= 1);
        CHECK(leg.lane <= spec.media.trunk_lanes);
      }
      // A panel port carries one run.
      if (leg.from_panel != kNone) CHECK(ports_used.insert({leg.from_panel, leg.from_port}).second);
    }
    CHECK(bp.legs[c.first_leg].from_panel == kNone);
    CHECK(bp.legs[c.first_leg + c.legs - 1].to_panel == kNone);
    // The media is chosen for the whole channel, which is longer than the direct estimate.
    CHECK(c.length_m == channel);
    CHECK(channel >= direct);
    if (channel > spec.media.multimode_limit_m) CHECK(c.media == "smf");
    // Row panels sit in the rows of the ends, the hall panels in their halls.
    const PatchPanel& pa = bp.patch_panels[bp.legs[c.first_leg].to_panel];
    CHECK(pa.hall == a.hall);
    CHECK(pa.row == a.row);
    // Each end's label names the panel port its cord plugs into.
    const std::string port = pa.name + ":" + std::to_string(bp.legs[c.first_leg].to_port);
    CHECK(cable_label(bp, c, true).find(" > " + port + " > " + bp.devices[c.z_device].name + ":") !=
          std::string::npos);
    CHECK(end_panel(bp, c, true) == port);
  }
  CHECK(patched > 0);
  CHECK(between_halls == 960);  // pod 1's agg-core runs, to the core in hall 0
  // No trunk carries more runs than it has lanes, nor fewer than one.
  std::map<int, int> lanes;
  for (const auto& leg : bp.legs) if (leg.trunk != kNone) ++lanes[leg.trunk];
  for (size_t k = 0; k < bp.trunks.size(); ++k) {
    CHECK(lanes[int(k)] == bp.trunks[k].lanes);
    CHECK(bp.trunks[k].lanes >= 1);
    CHECK(bp.trunks[k].lanes <= spec.media.trunk_lanes);
  }
}

TEST_CASE("planner/plant: the BOM names fibre grade, connector and polarity, and counts cords per leg") {
  Plan plan = test::plan_of("version: 1\nfabric: {pods: 2}\n");
  const Blueprint& bp = plan.blueprint;
  int64_t cords = 0, trunks = 0;
  std::set<std::string> connectors;
  for (const auto& b : bp.bom) {
    INFO(b.category << ": " << b.part);
    if (b.category == "device") continue;
    if (b.media == "mmf") CHECK(b.fibre == "OM4");
    if (b.media == "smf") CHECK(b.fibre == "OS2");
    CHECK(b.polarity == (b.connector == "LC-duplex" ? "A-to-B" : "B"));
    if (b.category != "optic") CHECK(b.part.find(b.connector) != std::string::npos);
    connectors.insert(b.connector);
    if (b.category == "cable") cords += b.count;
    if (b.category == "trunk") trunks += b.count;
  }
  // 200G SR4 host cords MPO-12, 400G SR8 uplinks MPO-16, 400G DR4 single-mode MPO-12.
  CHECK(connectors == std::set<std::string>{"MPO-12", "MPO-16"});
  int64_t expected_cords = 0;
  for (const auto& c : bp.cables) expected_cords += c.patched() ? 2 : 1;
  CHECK(cords == expected_cords);
  CHECK(trunks == static_cast<int64_t>(bp.trunks.size()));
}

TEST_CASE("planner/plant: legs.csv and cabling.csv give the same run as the blueprint") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  std::ostringstream legs_csv, cabling_csv;
  write_legs_csv(bp, legs_csv);
  write_cabling_csv(bp, cabling_csv);
  std::istringstream legs(legs_csv.str()), cabling(cabling_csv.str());
  std::string line;
  std::vector<std::string> f;
  REQUIRE(std::getline(legs, line));
  REQUIRE(parse_csv_line(line, f));
  CHECK(f == std::vector<std::string>(kLegColumns.begin(), kLegColumns.end()));
  size_t rows = 0;
  while (std::getline(legs, line)) {
    REQUIRE(parse_csv_line(line, f));
    ++rows;
  }
  CHECK(rows == bp.legs.size());
  REQUIRE(std::getline(cabling, line));
  for (const auto& c : bp.cables) {
    REQUIRE(std::getline(cabling, line));
    REQUIRE(parse_csv_line(line, f));
    REQUIRE(f.size() == kCablingColumns.size());
    INFO(c.id);
    CHECK(f[17] == std::to_string(c.patched() ? c.legs : 1));
    CHECK(f[18] == end_panel(bp, c, true));
    CHECK(f[19] == end_panel(bp, c, false));
    CHECK(f[16] == (c.patched() ? "" : std::to_string(c.stock_length_m)));
  }
}

TEST_CASE("planner/plant: a longer slack patches more runs and moves no other run's panel port") {
  Plan before = test::plan_of("");
  Plan after = test::plan_of("version: 1\nmedia:\n  slack_m: 5\n");
  REQUIRE(before.blueprint.cables.size() == after.blueprint.cables.size());
  int newly_patched = 0;
  for (size_t i = 0; i < before.blueprint.cables.size(); ++i) {
    const Cable& was = before.blueprint.cables[i];
    const Cable& is = after.blueprint.cables[i];
    if (!was.patched() && is.patched()) ++newly_patched;
    if (!was.patched() || !is.patched()) continue;
    INFO(was.id);
    CHECK(end_panel(before.blueprint, was, true) == end_panel(after.blueprint, is, true));
    CHECK(end_panel(before.blueprint, was, false) == end_panel(after.blueprint, is, false));
  }
  CHECK(newly_patched > 0);
}
