// `hpnctl plan SPEC --diff OLD_DIR`: what a change of spec (a new segment, a
// new pod, a re-addressing) does to a fabric already planned, as a work
// order a technician follows top to bottom. See hpnctl(1), "plan --diff".
//
// Cables are paired by cable ID first, then (the rest) by their two ends.
// What the hands do to a paired cable decides its step, the first that
// applies:
//   an end on another port, device, rack or unit, or the run through other
//   panel ports or trunks                                -> move
//   another stocked cord (stock bin, or that of a leg), media or speed
//                                                        -> replace
//   other label text (a new cable ID)                    -> relabel
//   only the record differs (length_m, state)            -> record
//   unpaired                                             -> remove / add
// Devices are paired by name: other rack or unit -> move; other state ->
// relabel; other node ID, ASN, role, pod, segment, plane or rail -> renumber,
// which the command refuses unless asked (probes, BGP and the cabling of
// every neighbour name a device by these). Changed interface or link
// addresses of devices and cables both plans have -> readdress.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/render.h"
#include "blueprint/result.h"
#include "planner/plan_output.h"
#include "planner/summary.h"

namespace hpn {

// In work-order order: the physical moves first (take out, move, put in),
// then cords swapped for another stock length, labels reprinted, the
// configuration, and last what changes only in the record.
enum class ChangeAction { remove, move, add, replace, relabel, renumber, readdress, record };
enum class ChangeItem { cable, device, address };

std::string_view to_string(ChangeAction action);
std::string_view to_string(ChangeItem item);

// One end of a cable, or a device's place, as the work order prints it.
struct WorkEnd {
  std::string device;  // empty: no such end (device rows have one end)
  std::string port;
  std::string rack;
  int ru = kNone;
  std::string end() const;    // "device:port" or "device"
  std::string place() const;  // "H0-R00-09 U47", "" without a rack
};

struct FieldChange {
  std::string field;  // "a_port", "rack", "node_id", "Loopback0 ipv4", ...
  std::string before, after;
};

struct WorkItem {
  int step = 0;  // 1-based position in the work order
  ChangeAction action = ChangeAction::add;
  ChangeItem item = ChangeItem::cable;
  std::string id;  // cable ID (the new one when it changes), device name, or device/cable of an address
  std::string kind;  // cable kind or device role
  // The labels to print (new plan) or to look for (removals), cables only.
  std::string label_a, label_z;
  WorkEnd a, z;  // where the work is: the new ends, the old ones for a removal
  std::vector<FieldChange> changes;  // what differs, for every action but add and remove
  std::string change_text() const;   // "a_port etp5 -> etp7; length_m 4 -> 6"
};

struct DiffCounts {
  int64_t cables_added = 0, cables_removed = 0, cables_moved = 0, cables_replaced = 0, cables_relabelled = 0;
  int64_t cables_recorded = 0;  // record-only: nothing to do at the rack
  int64_t devices_added = 0, devices_removed = 0, devices_moved = 0, devices_relabelled = 0;
  int64_t devices_renumbered = 0, readdressed = 0;
  int64_t total() const;
};

struct PlanDiff {
  std::string old_spec, new_spec;  // spec names
  std::vector<WorkItem> items;     // the work order, in order
  DiffCounts counts;
  bool empty() const { return items.empty(); }
};

// The work order from `before` (the plan on disk) to `after` (the new spec's
// blueprint). Pure: reads both, touches nothing.
PlanDiff diff_plans(const Blueprint& before, const Blueprint& after);

// Refuses a diff that renumbers devices, naming the first few and what
// changed on each; ok when there is none.
Status check_no_renumbering(const PlanDiff& diff);

// The work order as a table (with a summary line; record-only steps are
// counted there, listed in CSV and JSON), CSV or JSON.
void render_plan_diff(const PlanDiff& diff, OutputFormat format, std::ostream& out);
void write_work_order_csv(const PlanDiff& diff, std::ostream& out);

// "16 devices added, 112 cables added, 8 cables moved, 3 cords replaced" or
// "no change": physical moves first, record-only changes last.
std::string diff_summary(const DiffCounts& counts);

// The name of the work order inside a plan written by `plan --diff -o`.
inline constexpr const char* kWorkOrderFile = "work-order.csv";

// write_plan(), with the work order as one more file of the same staged
// directory: the new plan and the work order that leads to it appear
// together in one rename, or not at all.
Status write_plan_with_work_order(const Blueprint& bp, const PlanSummary& summary, const PlanDiff& diff,
                                  const std::string& dir, const ProgressFn& progress = {});

}  // namespace hpn
