#include "planner/plan_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <thread>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "blueprint/atomic_file.h"
#include "blueprint/csv.h"
#include "blueprint/staged_dir.h"
#include "blueprint/store.h"
#include "blueprint/text_table.h"

namespace hpn {

std::string_view to_string(ChangeAction action) {
  switch (action) {
    case ChangeAction::remove: return "remove";
    case ChangeAction::move: return "move";
    case ChangeAction::add: return "add";
    case ChangeAction::replace: return "replace";
    case ChangeAction::relabel: return "relabel";
    case ChangeAction::record: return "record";
    case ChangeAction::renumber: return "renumber";
    case ChangeAction::readdress: return "readdress";
  }
  return "?";
}

std::string_view to_string(ChangeItem item) {
  switch (item) {
    case ChangeItem::cable: return "cable";
    case ChangeItem::device: return "device";
    case ChangeItem::address: return "address";
  }
  return "?";
}

std::string WorkEnd::end() const { return port.empty() ? device : device + ":" + port; }

std::string WorkEnd::place() const {
  if (rack.empty()) return "";
  return ru == kNone ? rack : fmt::format("{} U{}", rack, ru);
}

std::string WorkItem::change_text() const {
  std::string text;
  for (const auto& c : changes) {
    if (!text.empty()) text += "; ";
    text += fmt::format("{} {} -> {}", c.field, c.before.empty() ? "(none)" : c.before,
                        c.after.empty() ? "(none)" : c.after);
  }
  return text;
}

int64_t DiffCounts::total() const {
  return cables_added + cables_removed + cables_moved + cables_replaced + cables_relabelled + cables_recorded +
         devices_added + devices_removed + devices_moved + devices_relabelled + devices_renumbered + readdressed;
}

namespace {

// The order a technician works in: cables out before the devices they hang
// on, devices moved before their cables are re-run, devices in before their
// cables; then cords swapped and labels reprinted; the configuration
// (renumbering, addresses) after; what changes only in the record last.
enum Phase {
  kRemoveCable, kRemoveDevice, kMoveDevice, kMoveCable, kAddDevice, kAddCable, kReplaceCable,
  kRelabelCable, kRelabelDevice, kRenumberDevice, kReaddress, kRecordCable
};

// Racks in floor order (hall, row, position), devices bottom-up within none:
// the work order walks the floor rack by rack.
struct SortKey {
  int phase = 0;
  int hall = INT_MAX, row = INT_MAX, position = INT_MAX;
  int ru = INT_MAX;
  std::string device, port, id;
  auto tie() const { return std::tie(phase, hall, row, position, ru, device, port, id); }
};

struct Staged {
  SortKey key;
  WorkItem item;
};

std::string hex_id(int64_t id) { return fmt::format("0x{:06x}", id); }
std::string opt_int(int64_t v) { return v == kNone ? std::string() : std::to_string(v); }

WorkEnd end_of(const Blueprint& bp, int device, const std::string& port) {
  const Device& d = bp.devices[device];
  WorkEnd e{d.name, port, {}, d.ru};
  if (d.rack != kNone) e.rack = bp.racks[d.rack].name;
  return e;
}

SortKey key_of(int phase, const Blueprint& bp, int device, const std::string& port, const std::string& id) {
  const Device& d = bp.devices[device];
  SortKey k;
  k.phase = phase;
  if (d.rack != kNone) {
    const Rack& r = bp.racks[d.rack];
    k.hall = r.hall;
    k.row = r.row;
    k.position = r.position;
  }
  if (d.ru != kNone) k.ru = d.ru;
  k.device = d.name;
  k.port = port;
  k.id = id;
  return k;
}

// The panel ports and trunk lanes a patched run goes through, "" for a
// direct one: "PP-H0-R00-A:1 > TR0-A0001/1 > PP-H0-R16-A:1".
std::string route_of(const Blueprint& bp, const Cable& c) {
  std::string route;
  for (int i = 0; i < c.legs; ++i) {
    const RunLeg& l = bp.legs[c.first_leg + i];
    if (l.from_panel == kNone) continue;
    if (!route.empty()) route += " > ";
    route += panel_port_name(bp, l.from_panel, l.from_port);
    if (l.trunk != kNone) route += fmt::format(" > {}/{}", bp.trunks[l.trunk].id, l.lane);
  }
  return route;
}

// The stocked lengths of a patched run's legs, "10+50+5"; "" for a direct run.
std::string cords_of(const Blueprint& bp, const Cable& c) {
  std::string cords;
  for (int i = 0; i < c.legs; ++i) {
    if (i) cords += "+";
    cords += std::to_string(bp.legs[c.first_leg + i].stock_length_m);
  }
  return cords;
}

std::string stock_of(const Cable& c) { return c.patched() ? std::string() : std::to_string(c.stock_length_m); }

std::string ends_key(const Blueprint& bp, const Cable& c) {
  std::string key = bp.devices[c.a_device].name;
  key.append(1, '\0').append(c.a_port).append(1, '\0').append(bp.devices[c.z_device].name);
  key.append(1, '\0').append(c.z_port);
  return key;
}

class Differ {
 public:
  Differ(const Blueprint& before, const Blueprint& after) : old_(before), new_(after) {}

  PlanDiff run() {
    diff_devices();
    diff_cables();
    diff_interfaces();
    std::stable_sort(staged_.begin(), staged_.end(),
                     [](const Staged& x, const Staged& y) { return x.key.tie() < y.key.tie(); });
    PlanDiff diff;
    diff.old_spec = old_.spec_name;
    diff.new_spec = new_.spec_name;
    diff.counts = counts_;
    diff.items.reserve(staged_.size());
    for (auto& s : staged_) {
      s.item.step = static_cast<int>(diff.items.size()) + 1;
      diff.items.push_back(std::move(s.item));
    }
    return diff;
  }

 private:
  void stage(SortKey key, WorkItem item) { staged_.push_back({std::move(key), std::move(item)}); }

  WorkItem device_item(ChangeAction action, const Blueprint& bp, int device) {
    WorkItem w;
    w.action = action;
    w.item = ChangeItem::device;
    w.id = bp.devices[device].name;
    w.kind = std::string(to_string(bp.devices[device].role));
    w.a = end_of(bp, device, "");
    return w;
  }

  void diff_devices() {
    std::unordered_map<std::string_view, int> old_by_name;
    old_by_name.reserve(old_.devices.size());
    for (size_t i = 0; i < old_.devices.size(); ++i) old_by_name.emplace(old_.devices[i].name, int(i));
    new_to_old_.assign(new_.devices.size(), -1);
    std::vector<bool> kept(old_.devices.size(), false);
    for (size_t n = 0; n < new_.devices.size(); ++n) {
      const Device& d = new_.devices[n];
      auto it = old_by_name.find(d.name);
      if (it == old_by_name.end()) {
        stage(key_of(kAddDevice, new_, int(n), "", d.name), device_item(ChangeAction::add, new_, int(n)));
        ++counts_.devices_added;
        continue;
      }
      const int o = it->second;
      new_to_old_[n] = o;
      kept[o] = true;
      const Device& was = old_.devices[o];

      WorkItem renumber = device_item(ChangeAction::renumber, new_, int(n));
      auto field = [&](const char* name, std::string before, std::string after) {
        if (before != after) renumber.changes.push_back({name, std::move(before), std::move(after)});
      };
      field("role", std::string(to_string(was.role)), std::string(to_string(d.role)));
      field("pod", opt_int(was.pod), opt_int(d.pod));
      field("segment", opt_int(was.segment), opt_int(d.segment));
      field("plane", opt_int(was.plane), opt_int(d.plane));
      field("rail", opt_int(was.rail), opt_int(d.rail));
      field("node_id", hex_id(was.node_id), hex_id(d.node_id));
      field("asn", opt_int(was.asn), opt_int(d.asn));
      if (!renumber.changes.empty()) {
        stage(key_of(kRenumberDevice, new_, int(n), "", d.name), std::move(renumber));
        ++counts_.devices_renumbered;
      }

      WorkEnd before_place = end_of(old_, o, ""), after_place = end_of(new_, int(n), "");
      if (before_place.place() != after_place.place()) {
        WorkItem move = device_item(ChangeAction::move, new_, int(n));
        move.changes.push_back({"place", before_place.place(), after_place.place()});
        stage(key_of(kMoveDevice, new_, int(n), "", d.name), std::move(move));
        ++counts_.devices_moved;
      }
      if (was.state != d.state) {
        WorkItem relabel = device_item(ChangeAction::relabel, new_, int(n));
        relabel.changes.push_back({"state", std::string(to_string(was.state)), std::string(to_string(d.state))});
        stage(key_of(kRelabelDevice, new_, int(n), "", d.name), std::move(relabel));
        ++counts_.devices_relabelled;
      }
    }
    for (size_t o = 0; o < old_.devices.size(); ++o) {
      if (kept[o]) continue;
      stage(key_of(kRemoveDevice, old_, int(o), "", old_.devices[o].name),
            device_item(ChangeAction::remove, old_, int(o)));
      ++counts_.devices_removed;
    }
  }

  WorkItem cable_item(ChangeAction action, const Blueprint& bp, const Cable& c) {
    WorkItem w;
    w.action = action;
    w.item = ChangeItem::cable;
    w.id = c.id;
    w.kind = std::string(to_string(c.kind));
    w.label_a = cable_label(bp, c, true);
    w.label_z = cable_label(bp, c, false);
    w.a = end_of(bp, c.a_device, c.a_port);
    w.z = end_of(bp, c.z_device, c.z_port);
    return w;
  }

  // A cable both plans have: a move when an end lands elsewhere, a relabel
  // when only what is printed on it (or its ID) changes.
  bool same_place(const Device& before, const Device& after) const {
    if (before.ru != after.ru || (before.rack == kNone) != (after.rack == kNone)) return false;
    return before.rack == kNone || old_.racks[before.rack].name == new_.racks[after.rack].name;
  }

  // Most cables of an expansion do not change: tell them apart before
  // building labels and end strings for a step.
  bool unchanged(const Cable& was, const Cable& c) const {
    const Device &oa = old_.devices[was.a_device], &oz = old_.devices[was.z_device];
    const Device &na = new_.devices[c.a_device], &nz = new_.devices[c.z_device];
    return was.id == c.id && was.a_port == c.a_port && was.z_port == c.z_port && oa.name == na.name &&
           oz.name == nz.name && same_place(oa, na) && same_place(oz, nz) && was.kind == c.kind &&
           was.speed_gbps == c.speed_gbps && was.state == c.state && was.length_m == c.length_m &&
           was.stock_length_m == c.stock_length_m && was.media == c.media && was.legs == c.legs &&
           (!c.patched() || (route_of(old_, was) == route_of(new_, c) && cords_of(old_, was) == cords_of(new_, c)));
  }

  void compare_cable(const Cable& was, const Cable& c) {
    if (unchanged(was, c)) return;
    WorkItem w = cable_item(ChangeAction::record, new_, c);
    const WorkEnd old_a = end_of(old_, was.a_device, was.a_port), old_z = end_of(old_, was.z_device, was.z_port);
    auto field = [&](const char* name, const std::string& before, const std::string& after) {
      if (before == after) return false;
      w.changes.push_back({name, before, after});
      return true;
    };
    field("cable_id", was.id, c.id);
    // An end plugged elsewhere, or the run through other panel ports and
    // trunks: cables to pull and re-run.
    bool moved = field("a_end", old_a.end(), w.a.end());
    moved |= field("a_place", old_a.place(), w.a.place());
    moved |= field("z_end", old_z.end(), w.z.end());
    moved |= field("z_place", old_z.place(), w.z.place());
    moved |= field("route", route_of(old_, was), route_of(new_, c));
    // Another cord from the shelf at the same ends.
    bool replaced = field("kind", std::string(to_string(was.kind)), std::string(to_string(c.kind)));
    replaced |= field("speed_gbps", std::to_string(was.speed_gbps), std::to_string(c.speed_gbps));
    replaced |= field("media", was.media, c.media);
    replaced |= field("stock_length_m", stock_of(was), stock_of(c));
    replaced |= field("cords_m", cords_of(old_, was), cords_of(new_, c));
    // What only the record says.
    field("state", std::string(to_string(was.state)), std::string(to_string(c.state)));
    field("length_m", std::to_string(was.length_m), std::to_string(c.length_m));
    if (w.changes.empty()) return;
    const bool relabelled = cable_label(old_, was, true) != w.label_a || cable_label(old_, was, false) != w.label_z;
    if (moved) {
      w.action = ChangeAction::move;
      ++counts_.cables_moved;
      stage(key_of(kMoveCable, new_, c.a_device, c.a_port, c.id), std::move(w));
    } else if (replaced) {
      w.action = ChangeAction::replace;
      ++counts_.cables_replaced;
      stage(key_of(kReplaceCable, new_, c.a_device, c.a_port, c.id), std::move(w));
    } else if (relabelled) {
      w.action = ChangeAction::relabel;
      ++counts_.cables_relabelled;
      stage(key_of(kRelabelCable, new_, c.a_device, c.a_port, c.id), std::move(w));
    } else {
      ++counts_.cables_recorded;
      stage(key_of(kRecordCable, new_, c.a_device, c.a_port, c.id), std::move(w));
    }
  }

  void diff_cables() {
    std::unordered_map<std::string_view, int> old_by_id;
    old_by_id.reserve(old_.cables.size());
    for (size_t i = 0; i < old_.cables.size(); ++i) old_by_id.emplace(old_.cables[i].id, int(i));
    std::vector<int> paired(new_.cables.size(), -1);
    std::vector<bool> kept(old_.cables.size(), false);
    for (size_t n = 0; n < new_.cables.size(); ++n) {
      auto it = old_by_id.find(new_.cables[n].id);
      if (it == old_by_id.end()) continue;
      paired[n] = it->second;
      kept[it->second] = true;
    }
    // What the IDs did not pair, pair by ends: a renamed cable still in place.
    std::unordered_map<std::string, int> old_by_ends;
    for (size_t o = 0; o < old_.cables.size(); ++o) {
      if (!kept[o]) old_by_ends.emplace(ends_key(old_, old_.cables[o]), int(o));
    }
    if (!old_by_ends.empty()) {
      for (size_t n = 0; n < new_.cables.size(); ++n) {
        if (paired[n] >= 0) continue;
        auto it = old_by_ends.find(ends_key(new_, new_.cables[n]));
        if (it == old_by_ends.end()) continue;
        paired[n] = it->second;
        kept[it->second] = true;
        old_by_ends.erase(it);
      }
    }
    old_cable_of_new_ = paired;
    for (size_t n = 0; n < new_.cables.size(); ++n) {
      const Cable& c = new_.cables[n];
      if (paired[n] >= 0) {
        compare_cable(old_.cables[paired[n]], c);
      } else {
        stage(key_of(kAddCable, new_, c.a_device, c.a_port, c.id), cable_item(ChangeAction::add, new_, c));
        ++counts_.cables_added;
      }
    }
    for (size_t o = 0; o < old_.cables.size(); ++o) {
      if (kept[o]) continue;
      const Cable& c = old_.cables[o];
      stage(key_of(kRemoveCable, old_, c.a_device, c.a_port, c.id), cable_item(ChangeAction::remove, old_, c));
      ++counts_.cables_removed;
    }
    diff_links();
  }

  // Point-to-point addresses of cables both plans have.
  void diff_links() {
    std::vector<const LinkAddresses*> old_link(old_.cables.size(), nullptr);
    for (const auto& l : old_.links) old_link[l.cable] = &l;
    auto address = [](const std::string& a, int len) { return a.empty() ? a : fmt::format("{}/{}", a, len); };
    for (const auto& l : new_.links) {
      int o = old_cable_of_new_[l.cable];
      if (o < 0) continue;
      const LinkAddresses* was = old_link[o];
      if (was && was->a_ipv4 == l.a_ipv4 && was->z_ipv4 == l.z_ipv4 && was->a_ipv6 == l.a_ipv6 &&
          was->z_ipv6 == l.z_ipv6 && was->ipv4_len == l.ipv4_len && was->ipv6_len == l.ipv6_len) {
        continue;
      }
      const Cable& c = new_.cables[l.cable];
      WorkItem w = cable_item(ChangeAction::readdress, new_, c);
      w.item = ChangeItem::address;
      w.label_a.clear();
      w.label_z.clear();
      auto field = [&](const char* name, std::string before, std::string after) {
        if (before != after) w.changes.push_back({name, std::move(before), std::move(after)});
      };
      field("a_ipv4", was ? address(was->a_ipv4, was->ipv4_len) : "", address(l.a_ipv4, l.ipv4_len));
      field("z_ipv4", was ? address(was->z_ipv4, was->ipv4_len) : "", address(l.z_ipv4, l.ipv4_len));
      field("a_ipv6", was ? address(was->a_ipv6, was->ipv6_len) : "", address(l.a_ipv6, l.ipv6_len));
      field("z_ipv6", was ? address(was->z_ipv6, was->ipv6_len) : "", address(l.z_ipv6, l.ipv6_len));
      if (w.changes.empty()) continue;
      ++counts_.readdressed;
      stage(key_of(kReaddress, new_, c.a_device, c.a_port, c.id), std::move(w));
    }
  }

  // Interface addresses of devices both plans have: one readdress step per device.
  void diff_interfaces() {
    auto address = [](const std::string& a, int len) { return a.empty() ? a : fmt::format("{}/{}", a, len); };
    using Addresses = std::pair<std::string, std::string>;  // ipv4/len, ipv6/len
    std::vector<std::map<std::string, Addresses>> old_of(old_.devices.size());
    for (const auto& i : old_.interfaces) {
      old_of[i.device][i.name] = {address(i.ipv4, i.ipv4_len), address(i.ipv6, i.ipv6_len)};
    }
    std::vector<std::map<std::string, Addresses>> new_of(new_.devices.size());
    for (const auto& i : new_.interfaces) {
      new_of[i.device][i.name] = {address(i.ipv4, i.ipv4_len), address(i.ipv6, i.ipv6_len)};
    }
    for (size_t n = 0; n < new_.devices.size(); ++n) {
      const int o = new_to_old_[n];
      if (o < 0) continue;
      const auto& before = old_of[o];
      const auto& after = new_of[n];
      if (before == after) continue;
      WorkItem w = device_item(ChangeAction::readdress, new_, int(n));
      w.item = ChangeItem::address;
      // Both maps are ordered by interface name: walk them side by side.
      auto b = before.begin();
      auto a = after.begin();
      static const Addresses kNoAddress;
      auto field = [&](const std::string& name, const Addresses& was, const Addresses& is) {
        if (was.first != is.first) w.changes.push_back({name + " ipv4", was.first, is.first});
        if (was.second != is.second) w.changes.push_back({name + " ipv6", was.second, is.second});
      };
      while (b != before.end() || a != after.end()) {
        if (a == after.end() || (b != before.end() && b->first < a->first)) {
          field(b->first, b->second, kNoAddress);
          ++b;
        } else if (b == before.end() || a->first < b->first) {
          field(a->first, kNoAddress, a->second);
          ++a;
        } else {
          field(a->first, b->second, a->second);
          ++a;
          ++b;
        }
      }
      ++counts_.readdressed;
      stage(key_of(kReaddress, new_, int(n), "", new_.devices[n].name), std::move(w));
    }
  }

  const Blueprint& old_;
  const Blueprint& new_;
  std::vector<int> new_to_old_;        // device index in the new plan -> old, or -1
  std::vector<int> old_cable_of_new_;  // cable index in the new plan -> old, or -1
  std::vector<Staged> staged_;
  DiffCounts counts_;
};

nlohmann::ordered_json end_json(const WorkEnd& e) {
  if (e.device.empty()) return nullptr;
  nlohmann::ordered_json j{{"device", e.device}};
  if (!e.port.empty()) j["port"] = e.port;
  j["rack"] = e.rack.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(e.rack);
  j["ru"] = e.ru == kNone ? nlohmann::ordered_json() : nlohmann::ordered_json(e.ru);
  return j;
}

const std::vector<std::string_view> kWorkOrderColumns{
    "step", "action", "item", "id", "kind", "a_end", "a_place", "z_end", "z_place",
    "label_a", "label_z", "change"};

}  // namespace

PlanDiff diff_plans(const Blueprint& before, const Blueprint& after) { return Differ(before, after).run(); }

Status check_no_renumbering(const PlanDiff& diff) {
  if (diff.counts.devices_renumbered == 0) return {};
  constexpr int kNamed = 3;
  std::string named;
  int shown = 0;
  for (const auto& w : diff.items) {
    if (w.action != ChangeAction::renumber) continue;
    if (shown == kNamed) break;
    named += fmt::format("{}{} ({})", shown ? ", " : "", w.id, w.change_text());
    ++shown;
  }
  const int64_t more = diff.counts.devices_renumbered - shown;
  return Error{fmt::format(
      "the new plan renumbers {} existing device{}: {}{}; their probes, BGP sessions and neighbours "
      "name them by these; pass --allow-renumber to plan it anyway",
      diff.counts.devices_renumbered, diff.counts.devices_renumbered == 1 ? "" : "s", named,
      more > 0 ? fmt::format(" and {} more", more) : "")};
}

std::string diff_summary(const DiffCounts& c) {
  std::vector<std::string> parts;
  auto add = [&](int64_t n, const char* noun, const char* what) {
    if (n) parts.push_back(fmt::format("{} {}{} {}", n, noun, n == 1 ? "" : "s", what));
  };
  // The physical moves first: what is pulled, moved and put in.
  add(c.devices_removed, "device", "removed");
  add(c.devices_moved, "device", "moved");
  add(c.devices_added, "device", "added");
  add(c.cables_removed, "cable", "removed");
  add(c.cables_moved, "cable", "moved");
  add(c.cables_added, "cable", "added");
  add(c.cables_replaced, "cord", "replaced (another stock cord)");
  add(c.cables_relabelled, "cable", "relabelled");
  add(c.devices_relabelled, "device", "relabelled");
  add(c.devices_renumbered, "device", "renumbered");
  add(c.readdressed, "address change", "(device or link)");
  add(c.cables_recorded, "record-only change", "(length or state in the record)");
  if (parts.empty()) return "no change";
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text;
}

void write_work_order_csv(const PlanDiff& diff, std::ostream& out) {
  CsvWriter w(out);
  w.row(kWorkOrderColumns);
  for (const auto& item : diff.items) {
    w.field(item.step).field(to_string(item.action)).field(to_string(item.item)).field(item.id);
    w.field(item.kind).field(item.a.end()).field(item.a.place()).field(item.z.end()).field(item.z.place());
    w.field(item.label_a).field(item.label_z).field(item.change_text());
    w.end_row();
  }
}

void render_plan_diff(const PlanDiff& diff, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::csv) {
    write_work_order_csv(diff, out);
    return;
  }
  if (format == OutputFormat::json) {
    const DiffCounts& c = diff.counts;
    nlohmann::ordered_json j{
        {"old_spec", diff.old_spec},
        {"new_spec", diff.new_spec},
        {"changes", c.total()},
        {"counts",
         {{"devices_added", c.devices_added}, {"devices_removed", c.devices_removed},
          {"devices_moved", c.devices_moved}, {"devices_relabelled", c.devices_relabelled},
          {"devices_renumbered", c.devices_renumbered}, {"cables_added", c.cables_added},
          {"cables_removed", c.cables_removed}, {"cables_moved", c.cables_moved},
          {"cables_replaced", c.cables_replaced}, {"cables_relabelled", c.cables_relabelled},
          {"cables_recorded", c.cables_recorded}, {"readdressed", c.readdressed}}},
        {"items", nlohmann::ordered_json::array()}};
    auto& items = j["items"];
    for (const auto& w : diff.items) {
      nlohmann::ordered_json changes = nlohmann::ordered_json::array();
      for (const auto& f : w.changes) changes.push_back({{"field", f.field}, {"before", f.before}, {"after", f.after}});
      nlohmann::ordered_json item{{"step", w.step},
                                  {"action", to_string(w.action)},
                                  {"item", to_string(w.item)},
                                  {"id", w.id},
                                  {"kind", w.kind},
                                  {"a", end_json(w.a)},
                                  {"z", end_json(w.z)}};
      if (w.item == ChangeItem::cable) {
        item["label_a"] = w.label_a;
        item["label_z"] = w.label_z;
      }
      item["changes"] = std::move(changes);
      items.push_back(std::move(item));
    }
    out << j.dump(2) << '\n';
    return;
  }
  if (diff.empty()) {
    out << fmt::format("no change: spec '{}' plans the same fabric as '{}'\n", diff.new_spec, diff.old_spec);
    return;
  }
  TextTable table({"step", "action", "item", "id", "a_end", "a_place", "z_end", "z_place", "change"});
  for (const auto& w : diff.items) {
    if (w.action == ChangeAction::record) continue;  // nothing for the hands; counted below
    table.add({std::to_string(w.step), std::string(to_string(w.action)), std::string(to_string(w.item)), w.id,
               w.a.end(), w.a.place(), w.z.end(), w.z.place(), w.change_text()});
  }
  if (table.size() > 0) table.render(out);
  out << fmt::format("{} step{}: {}\n", diff.items.size(), diff.items.size() == 1 ? "" : "s",
                     diff_summary(diff.counts));
  if (diff.counts.cables_recorded > 0) {
    out << fmt::format("the {} record-only step{} (nothing to do at the rack) are listed in --format csv "
                       "and json\n", diff.counts.cables_recorded, diff.counts.cables_recorded == 1 ? "" : "s");
  }
}

Status write_plan_with_work_order(const Blueprint& bp, const PlanSummary& summary, const PlanDiff& diff,
                                  const std::string& dir, const ProgressFn& progress) {
  static const OutputKind kPlan{"the plan", "an hpnctl plan", "blueprint.db"};  // as write_plan's
  auto staged = StagedDirectory::begin(dir, kPlan);
  if (!staged) return staged.error();
  const std::filesystem::path& tmp = staged->path();
  auto done = [&](const char* file) { if (progress) progress(file); };
  Status db_status;
  std::thread db_writer([&] { db_status = write_blueprint_db(bp, (tmp / "blueprint.db").string()); });
  Status sheets = write_sheets(bp, summary, tmp, done);
  Status order;
  if (sheets) {
    order = write_new_file((tmp / kWorkOrderFile).string(), [&](std::ostream& out) { write_work_order_csv(diff, out); });
    if (order) done(kWorkOrderFile);
  }
  db_writer.join();
  if (!db_status) return db_status;
  done("blueprint.db");
  if (!sheets) return sheets;
  if (!order) return order;
  return staged->commit();
}

}  // namespace hpn
