// The floor plan, cable lengths, media and their warnings.
#include <catch2/catch.hpp>

#include "plan_fixture.h"
#include "planner/layout.h"
#include "planner/topology.h"

using namespace hpn;

TEST_CASE("planner/layout: cable length is rack distance, both vertical runs and slack") {
  auto spec = default_spec();
  REQUIRE(spec.ok());
  Topology t = derive_topology(spec.value());
  Layout layout(spec.value(), t);
  // Same rack: the distance between the units plus the in-rack slack.
  CHECK(layout.cable_length({0, 0, 0}, 1, {0, 0, 0}, 47) == 4);  // 46 x 0.0445 + 1 = 3.05
  // Neighbouring racks of one row: 0.6 m apart, 48 + 2 units up, 3 m slack.
  CHECK(layout.cable_length({0, 0, 0}, 1, {0, 0, 1}, 47) == 6);  // 0.6 + 50 x 0.0445 + 3 = 5.8
  // Two rows apart: 2 x 2.4 m more.
  CHECK(layout.cable_length({0, 0, 0}, 1, {0, 2, 1}, 47) == 11);
  // Another hall: 300 m further along.
  CHECK(layout.cable_length({0, 0, 0}, 1, {1, 0, 0}, 1) == 308);
}

TEST_CASE("planner/layout: every device has a rack and the network rack sits mid-row of its segment") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  std::map<std::string, int> ru_used;
  for (const auto& d : bp.devices) {
    REQUIRE(d.rack != kNone);
    CHECK(d.ru >= 1);
    CHECK(d.ru <= 48);
    if (d.role == Role::tor && d.pod == 0 && d.segment == 0) {
      CHECK(bp.racks[d.rack].name == "H0-R00-09");
      CHECK(bp.racks[d.rack].purpose == "network");
    }
  }
  std::set<std::string> names;
  for (const auto& r : bp.racks) CHECK(names.insert(r.name).second);
  // 34 host racks + 1 network rack per segment, 8 aggregation racks, 4 core racks.
  CHECK(bp.racks.size() == 15 * 35 + 8 + 4);
}

TEST_CASE("planner/layout: media by length, single-mode past the multimode reach is information, no warning") {
  Plan plan = test::plan_of("version: 1\nfabric: {pods: 2}\n");
  const Blueprint& bp = plan.blueprint;
  int long_runs = 0;
  for (const auto& c : bp.cables) {
    if (c.length_m <= 3) CHECK(c.media == "dac");
    else if (c.length_m <= 100) CHECK(c.media == "mmf");
    else {
      CHECK(c.media == "smf");
      ++long_runs;
    }
  }
  // Pod 1 sits in hall 1, 300 m from the core in hall 0: all its agg-core runs.
  CHECK(long_runs == 960);
  // They are planned as the rules ask: 960 warnings once said otherwise.
  CHECK(bp.warnings.empty());
  int single_mode_notes = 0;
  for (const auto& n : plan.summary.notes) {
    CHECK(n.severity == "info");
    if (n.cause != "single-mode") continue;
    ++single_mode_notes;
    CHECK(n.count == 960);
    CHECK(n.text == "960 agg-core runs over 100 m use single-mode, as planned");
  }
  CHECK(single_mode_notes == 1);
}

TEST_CASE("planner/layout: the BOM counts one optic per broken-out cage and bins cables by stocked length") {
  Plan plan = test::plan_of("");
  int64_t breakout_optics = 0, host_optics = 0, cables = 0;
  for (const auto& b : plan.blueprint.bom) {
    if (b.category == "optic" && b.part == "QSFP-DD-400G-SR8 (2x200G breakout)") breakout_optics = b.count;
    if (b.category == "optic" && b.part == "QSFP56-200G-SR4") host_optics = b.count;
    if (b.category == "cable") {
      cables += b.count;  // patch cords: one per direct run, two per patched run
      const auto& bins = plan.spec.media.length_bins_m;
      CHECK(std::find(bins.begin(), bins.end(), double(b.length_m)) != bins.end());
    }
  }
  CHECK(breakout_optics == 240 * 68 + 60 * 34);  // ToR and front-end host-facing cages
  CHECK(host_optics == 2040 * 18);               // every host port
  int64_t cords = 0;
  for (const auto& c : plan.blueprint.cables) cords += c.patched() ? 2 : 1;
  CHECK(cords > static_cast<int64_t>(plan.blueprint.cables.size()));
  CHECK(cables == cords);
}
