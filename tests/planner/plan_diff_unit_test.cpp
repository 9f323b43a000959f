// The plan diff on blueprints in memory: each kind of change, made by hand
// on a copy of the lab pod, gives exactly its own work-order step; and the
// work order is in the order a technician works.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "blueprint/csv.h"
#include "plan_fixture.h"
#include "planner/plan_diff.h"

namespace {

using namespace hpn;
using hpn::test::plan_of;
using hpn::test::plan_of_file;

const Blueprint& lab() {
  static const Plan plan = plan_of_file("examples/lab-pod.yaml");
  return plan.blueprint;
}

int device_index(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

// A port of `device`'s panel that no cable uses.
std::string free_port(const Blueprint& bp, int device) {
  std::set<std::string> used;
  for (const auto& c : bp.cables) {
    if (c.a_device == device) used.insert(c.a_port);
    if (c.z_device == device) used.insert(c.z_port);
  }
  for (const auto& p : bp.panels[bp.devices[device].panel].ports) {
    if (!used.count(p.name) && p.breakout_of.empty() && p.use != PortUse::cage) return p.name;
  }
  FAIL("no free port on " << bp.devices[device].name);
  return "";
}

const WorkItem& only_item(const PlanDiff& diff) {
  REQUIRE(diff.items.size() == 1);
  return diff.items[0];
}

std::string field_of(const WorkItem& w, const std::string& field) {
  for (const auto& c : w.changes) {
    if (c.field == field) return c.before + " -> " + c.after;
  }
  return "";
}

}  // namespace

TEST_CASE("planner/diff: a plan compared with itself has no step") {
  PlanDiff diff = diff_plans(lab(), lab());
  CHECK(diff.empty());
  CHECK(diff.counts.total() == 0);
  CHECK(diff_summary(diff.counts) == "no change");
  CHECK(check_no_renumbering(diff).ok());
  std::ostringstream table;
  render_plan_diff(diff, OutputFormat::table, table);
  CHECK(table.str() == "no change: spec 'lab' plans the same fabric as 'lab'\n");
}

TEST_CASE("planner/diff: a cable re-plugged into another port is one move, with the old and new end") {
  Blueprint after = lab();
  Cable& c = after.cables[0];
  const std::string old_end = after.devices[c.z_device].name + ":" + c.z_port;
  c.z_port = free_port(after, c.z_device);
  PlanDiff diff = diff_plans(lab(), after);
  const WorkItem& w = only_item(diff);
  CHECK(w.action == ChangeAction::move);
  CHECK(w.item == ChangeItem::cable);
  CHECK(w.id == c.id);
  CHECK(field_of(w, "z_end") == old_end + " -> " + after.devices[c.z_device].name + ":" + c.z_port);
  CHECK(field_of(w, "a_end").empty());
  CHECK(w.label_a == cable_label(after, c, true));  // the label to print is the new one
}

TEST_CASE("planner/diff: other media at the same ends is a cord to replace") {
  Blueprint after = lab();
  Cable& c = after.cables[5];
  c.length_m += 4;
  c.media = "smf";
  PlanDiff diff = diff_plans(lab(), after);
  const WorkItem& w = only_item(diff);
  CHECK(w.action == ChangeAction::replace);
  CHECK(diff.counts.cables_replaced == 1);
  CHECK(diff.counts.cables_relabelled == 0);
  CHECK(field_of(w, "length_m") ==
        std::to_string(lab().cables[5].length_m) + " -> " + std::to_string(c.length_m));
  CHECK(field_of(w, "media") == lab().cables[5].media + " -> smf");
}

// The issue-17 report: raising media.slack_m said "52080 cables relabelled",
// though no label changed and most cords stayed in their stock bin.
TEST_CASE("planner/diff: a longer estimate in the same stock bin is record-only, another bin is a replacement") {
  Blueprint after = lab();
  Cable& same_bin = after.cables[0];
  Cable& next_bin = after.cables[1];
  REQUIRE_FALSE(same_bin.patched());
  same_bin.length_m += 1;  // the stocked cord still covers it
  next_bin.length_m += 20;
  next_bin.stock_length_m += 20;
  PlanDiff diff = diff_plans(lab(), after);
  REQUIRE(diff.items.size() == 2);
  CHECK(diff.counts.cables_recorded == 1);
  CHECK(diff.counts.cables_replaced == 1);
  CHECK(diff.counts.cables_relabelled == 0);
  // The replacement first: record-only steps come last.
  CHECK(diff.items[0].action == ChangeAction::replace);
  CHECK(diff.items[0].id == next_bin.id);
  CHECK(diff.items[1].action == ChangeAction::record);
  CHECK(diff.items[1].id == same_bin.id);
  CHECK(diff.items[1].change_text() ==
        fmt::format("length_m {} -> {}", lab().cables[0].length_m, same_bin.length_m));
  CHECK(diff_summary(diff.counts) ==
        "1 cord replaced (another stock cord), 1 record-only change (length or state in the record)");
  // The table a technician reads lists the replacement and counts the record.
  std::ostringstream table;
  render_plan_diff(diff, OutputFormat::table, table);
  CHECK(table.str().find(next_bin.id) != std::string::npos);
  CHECK(table.str().find(same_bin.id) == std::string::npos);
  CHECK(table.str().find("the 1 record-only step (nothing to do at the rack) are listed") != std::string::npos);
}

TEST_CASE("planner/diff: a cable renamed in place is a relabel by its ends, not a removal and an addition") {
  Blueprint after = lab();
  const std::string old_id = after.cables[3].id;
  after.cables[3].id = "X-RENAMED";
  PlanDiff diff = diff_plans(lab(), after);
  const WorkItem& w = only_item(diff);
  CHECK(w.action == ChangeAction::relabel);
  CHECK(w.id == "X-RENAMED");
  CHECK(field_of(w, "cable_id") == old_id + " -> X-RENAMED");
  CHECK(w.label_a.rfind("X-RENAMED ", 0) == 0);
  CHECK(diff.counts.cables_added == 0);
  CHECK(diff.counts.cables_removed == 0);
}

TEST_CASE("planner/diff: cables and devices only one plan has are removals and additions") {
  Blueprint before = lab();
  Blueprint after = lab();
  // One cable only the old plan has, one only the new: both between spare ports of ToRs.
  const int tor = device_index(before, "tor-p0-s00-r1a");
  const int peer = device_index(before, "tor-p0-s00-r1b");
  Cable gone = before.cables[0];
  gone.id = "X-GONE";
  gone.a_device = tor;
  gone.a_port = free_port(before, tor);
  gone.z_device = peer;
  gone.z_port = free_port(before, peer);
  before.cables.push_back(gone);
  Cable fresh = gone;
  fresh.id = "X-NEW";
  fresh.a_device = device_index(after, "tor-p0-s00-r2a");
  fresh.a_port = free_port(after, fresh.a_device);
  after.cables.push_back(fresh);
  // And a device only the new plan has.
  Device extra = after.devices[tor];
  extra.name = "tor-extra";
  extra.node_id = 0xABCDEF;
  after.devices.push_back(extra);

  PlanDiff diff = diff_plans(before, after);
  REQUIRE(diff.items.size() == 3);
  CHECK(diff.counts.cables_removed == 1);
  CHECK(diff.counts.cables_added == 1);
  CHECK(diff.counts.devices_added == 1);
  // Work order: the removal first, the device before the cable that will go into it.
  CHECK(diff.items[0].action == ChangeAction::remove);
  CHECK(diff.items[0].id == "X-GONE");
  CHECK(diff.items[0].label_a == cable_label(before, before.cables.back(), true));  // what to look for
  CHECK(diff.items[1].action == ChangeAction::add);
  CHECK(diff.items[1].item == ChangeItem::device);
  CHECK(diff.items[1].id == "tor-extra");
  CHECK(diff.items[2].action == ChangeAction::add);
  CHECK(diff.items[2].id == "X-NEW");
  for (size_t i = 0; i < diff.items.size(); ++i) CHECK(diff.items[i].step == int(i) + 1);
}

TEST_CASE("planner/diff: a device in another rack is a move, and so is every cable on it") {
  Blueprint after = lab();
  const int host = device_index(after, "host-p0-s00-h000");
  const int other_rack = after.devices[device_index(after, "host-p0-s01-h000")].rack;
  REQUIRE(other_rack != after.devices[host].rack);
  after.devices[host].rack = other_rack;
  PlanDiff diff = diff_plans(lab(), after);
  int64_t cables_on_host = 0;
  for (const auto& c : after.cables) cables_on_host += c.a_device == host || c.z_device == host;
  CHECK(diff.counts.devices_moved == 1);
  CHECK(diff.counts.cables_moved == cables_on_host);
  CHECK(diff.counts.total() == 1 + cables_on_host);
  REQUIRE(!diff.items.empty());
  CHECK(diff.items[0].item == ChangeItem::device);  // the device moves before its cables are re-run
  CHECK(field_of(diff.items[0], "place").find(after.racks[other_rack].name) != std::string::npos);
  for (size_t i = 1; i < diff.items.size(); ++i) CHECK(diff.items[i].action == ChangeAction::move);
}

TEST_CASE("planner/diff: another node ID or ASN is a renumbering, refused with the device named") {
  Blueprint after = lab();
  const int tor = device_index(after, "tor-p0-s01-r2b");
  after.devices[tor].node_id += 0x100;
  after.devices[tor].asn += 7;
  PlanDiff diff = diff_plans(lab(), after);
  const WorkItem& w = only_item(diff);
  CHECK(w.action == ChangeAction::renumber);
  CHECK(field_of(w, "node_id") ==
        fmt::format("0x{:06x} -> 0x{:06x}", lab().devices[tor].node_id, after.devices[tor].node_id));
  CHECK(field_of(w, "asn") == fmt::format("{} -> {}", lab().devices[tor].asn, after.devices[tor].asn));
  Status refused = check_no_renumbering(diff);
  REQUIRE(!refused.ok());
  CHECK(refused.error().message ==
        fmt::format("the new plan renumbers 1 existing device: tor-p0-s01-r2b (node_id 0x{:06x} -> 0x{:06x}; "
                    "asn {} -> {}); their probes, BGP sessions and neighbours name them by these; pass "
                    "--allow-renumber to plan it anyway",
                    lab().devices[tor].node_id, after.devices[tor].node_id, lab().devices[tor].asn,
                    after.devices[tor].asn));
}

TEST_CASE("planner/diff: other interface or link addresses are one readdress step each") {
  Blueprint after = lab();
  Interface* loopback = nullptr;
  for (auto& i : after.interfaces) {
    if (i.purpose == InterfacePurpose::loopback) {
      loopback = &i;
      break;
    }
  }
  REQUIRE(loopback != nullptr);
  const std::string old_v4 = loopback->ipv4;
  loopback->ipv4 = "192.0.2.77";
  REQUIRE(!after.links.empty());
  after.links[0].z_ipv6 = "2001:db8::1";
  PlanDiff diff = diff_plans(lab(), after);
  REQUIRE(diff.items.size() == 2);
  CHECK(diff.counts.readdressed == 2);
  std::set<std::string> ids, changes;
  for (const auto& w : diff.items) {
    CHECK(w.action == ChangeAction::readdress);
    CHECK(w.item == ChangeItem::address);
    ids.insert(w.id);
    changes.insert(w.change_text());
  }
  CHECK(ids == std::set<std::string>{after.devices[loopback->device].name, after.cables[after.links[0].cable].id});
  CHECK(changes.count(fmt::format("Loopback0 ipv4 {}/32 -> 192.0.2.77/32", old_v4)) == 1);
}

TEST_CASE("planner/diff: the work order CSV has one row per step, in step order") {
  Blueprint after = lab();
  after.cables[0].length_m += 1;
  after.cables[1].z_port = free_port(after, after.cables[1].z_device);
  PlanDiff diff = diff_plans(lab(), after);
  REQUIRE(diff.items.size() == 2);
  std::ostringstream csv;
  write_work_order_csv(diff, csv);
  std::istringstream in(csv.str());
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    REQUIRE(parse_csv_line(line, fields));
    rows.push_back(fields);
  }
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"step", "action", "item", "id", "kind", "a_end", "a_place", "z_end",
                                            "z_place", "label_a", "label_z", "change"});
  CHECK(rows[1][0] == "1");
  CHECK(rows[1][1] == "move");  // moves come before what changes only in the record
  CHECK(rows[1][3] == after.cables[1].id);
  CHECK(rows[2][1] == "record");
  CHECK(rows[2][3] == after.cables[0].id);
  CHECK(rows[2][11] == diff.items[1].change_text());
}
