// Growing a fabric is incremental: a pod spec and the same spec with one more
// segment (or one more pod, the core already sized for it) plan the same
// devices, racks, ports, cables, node IDs, ASNs and addresses, plus the new
// ones. Checked through the plan diff an operator would read
// (planner/plan_diff.h), and on the allocation rules that make it so
// (Topology::*_position, the aggregation uplinks on the top cages).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "plan_fixture.h"
#include "planner/design_check.h"
#include "planner/plan_diff.h"
#include "planner/spec_loader.h"
#include "planner/topology.h"

namespace {

using namespace hpn;
using hpn::test::plan_of;

using Names = std::set<std::string>;

// The work order from `before` to `after` holds only additions: every device
// of `after` that `is_new` picks, and every cable with an end on one of them.
void require_only_additions(const std::string& before, const std::string& after, auto is_new) {
  const Plan old_plan = plan_of(before);
  const Plan new_plan = plan_of(after);
  const Blueprint& bp = new_plan.blueprint;
  const PlanDiff diff = diff_plans(old_plan.blueprint, bp);

  Names new_devices, new_cables;
  std::vector<bool> fresh(bp.devices.size(), false);
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (is_new(bp.devices[i])) {
      fresh[i] = true;
      new_devices.insert(bp.devices[i].name);
    }
  }
  for (const auto& c : bp.cables) {
    if (fresh[c.a_device] || fresh[c.z_device]) new_cables.insert(c.id);
  }
  REQUIRE(!new_devices.empty());
  REQUIRE(bp.devices.size() == old_plan.blueprint.devices.size() + new_devices.size());

  Names added_devices, added_cables;
  for (const auto& w : diff.items) {
    INFO("step " << w.step << ": " << to_string(w.action) << " " << to_string(w.item) << " " << w.id
                 << " " << w.change_text());
    CHECK(w.action == ChangeAction::add);
    if (w.item == ChangeItem::device) added_devices.insert(w.id);
    if (w.item == ChangeItem::cable) added_cables.insert(w.id);
  }
  CHECK(added_devices == new_devices);
  CHECK(added_cables == new_cables);
  const DiffCounts& n = diff.counts;
  CHECK(n.devices_added == int64_t(new_devices.size()));
  CHECK(n.cables_added == int64_t(new_cables.size()));
  CHECK(n.total() == n.devices_added + n.cables_added);
  CHECK(check_no_renumbering(diff).ok());
}

Spec spec_of(const std::string& text) {
  auto spec = load_spec(text, "pod.yaml");
  REQUIRE(spec.ok());
  return std::move(spec.value());
}

}  // namespace

TEST_CASE("planner/stable: one more segment of the lab pod adds its devices and cables, nothing else") {
  require_only_additions(test::lab_spec_text(2), test::lab_spec_text(3), [](const Device& d) { return d.segment == 2; });
}

TEST_CASE("planner/stable: one more segment in every pod of a two-pod fabric renumbers nothing in pod 1") {
  // Pod 1's node IDs, ASNs, subnets and loopbacks start where pod 0's room
  // for three segments ends, not after the segments pod 0 has.
  require_only_additions(test::lab_spec_text(2, 2), test::lab_spec_text(3, 2), [](const Device& d) { return d.segment == 2; });
}

TEST_CASE("planner/stable: one more pod, the core already sized for it, adds that pod only") {
  // core.pods_planned is 2: the core's ports, rack and loopbacks stay.
  require_only_additions(test::lab_spec_text(2, 1), test::lab_spec_text(2, 2), [](const Device& d) { return d.pod == 1; });
  require_only_additions(test::lab_spec_text(3, 1), test::lab_spec_text(3, 2), [](const Device& d) { return d.pod == 1; });
}

TEST_CASE("planner/stable: the single-plane baseline grows by a segment without moving anything") {
  require_only_additions("version: 1\npod: {segments: 6, planes: 1}\naggregation: {downlinks: 96}\n",
                         "version: 1\npod: {segments: 7, planes: 1}\naggregation: {downlinks: 112}\n",
                         [](const Device& d) { return d.segment == 6; });
}

TEST_CASE("planner/stable: a pod has room for the segments its aggregation radix leaves") {
  // Lab: (8 ports - 2 uplinks) / 2 ToRs per plane and segment = 3 segments.
  Topology lab = derive_topology(spec_of(test::lab_spec_text(2)));
  CHECK(lab.max_segments == 3);
  // The default pod is already full: 15 segments of 8 ToRs per plane take 120 of 128 - 8 ports.
  Topology full = derive_topology(spec_of("version: 1\n"));
  CHECK(full.max_segments == 15);
  CHECK(full.tor_span() == full.tors());
  // Positions leave pod 0's third segment free in a two-pod, two-segment lab.
  Topology two = derive_topology(spec_of(test::lab_spec_text(2, 2)));
  CHECK(two.tor_position(1, 0, 1, 0) == 3 * two.tors_per_segment());
  CHECK(two.tor_span() == 2 * 3 * 4);
  CHECK(two.host_position(1, 0, 0) == 3 * 8);
}

TEST_CASE("planner/stable: aggregation uplinks sit on the top cages whatever the segment count") {
  for (int segments : {1, 2, 3}) {
    INFO(segments << " segments");
    Plan plan = plan_of(test::lab_spec_text(segments));
    const Blueprint& bp = plan.blueprint;
    Names uplink_ports;
    for (const auto& c : bp.cables) {
      if (c.kind == CableKind::agg_core) uplink_ports.insert(c.a_port);
    }
    CHECK(uplink_ports == Names{"etp7", "etp8"});  // radix 8, 2 uplinks
  }
}

TEST_CASE("planner/stable: node IDs and ASNs past their range for the reserved segments are refused") {
  // Eight ToRs built, twelve IDs reserved (room for three segments); ten in the range.
  std::string text = test::lab_spec_text(2) + "\nnode_ids:\n  tor: {first: 0x010000, last: 0x010009}\n";
  auto status = check_design(spec_of(text));
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find(
            "node IDs exhausted: 8 ToRs need 12 IDs (fabric.pods 1 x room for 3 segments per pod, "
            "which aggregation.radix leaves), node_ids.tor holds 10 (0x010000-0x010009)") !=
        std::string::npos);
  // ToR ASNs from 4200010000: twelve reserved end at 4200010011.
  status = check_design(spec_of(test::lab_spec_text(2) + "\nasn:\n  last: 4200010010\n"));
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find(
            "ASN range exhausted: 8 ToRs (with room for 3 segments per pod, 12 ASNs) numbered from "
            "asn.tor_first 4200010000 end at 4200010011, past asn.last 4200010010") != std::string::npos);
  // With room for exactly the reservation it plans.
  CHECK(check_design(spec_of(test::lab_spec_text(2) + "\nnode_ids:\n  tor: {first: 0x010000, last: 0x01000b}\n")).ok());
}
