#include "fabricmodel/fault_mix.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

namespace hpn::fabricmodel {

using validator::FindingKind;
using validator::Report;
using validator::Severity;

namespace {

// A port of `device` with no planned cable that no earlier fault took.
PortRef spare_port(const FabricIndex& f, int device, std::set<PortRef>& taken) {
  const auto& ports = f.blueprint().panels[f.blueprint().devices[device].panel].ports;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortRef p{device, static_cast<int>(i)};
    if (f.cable_at(p).cable < 0 && !taken.count(p)) {
      taken.insert(p);
      return p;
    }
  }
  return {};
}

}  // namespace

std::vector<InjectedFault> inject_faults(const FabricIndex& f, std::vector<lab::WiredCable>& wiring, int count,
                                         std::mt19937_64& random, bool losses) {
  const Blueprint& bp = f.blueprint();
  std::map<int, std::vector<int>> host_cables, uplinks;  // ToR -> its cables
  std::map<std::pair<int, int>, std::vector<int>> aggs_by_plane;  // (pod, plane) -> aggregation switches
  std::map<std::tuple<int, int, int>, std::vector<int>> tors_by_rail;  // (pod, rail, plane) -> ToRs
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (c.kind == CableKind::host_tor) host_cables[c.z_device].push_back(static_cast<int>(i));
    if (c.kind == CableKind::tor_agg) uplinks[c.a_device].push_back(static_cast<int>(i));
  }
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    const Device& dev = bp.devices[d];
    if (dev.role == Role::agg) aggs_by_plane[{dev.pod, dev.plane}].push_back(static_cast<int>(d));
    if (dev.role == Role::tor) tors_by_rail[{dev.pod, dev.rail, dev.plane}].push_back(static_cast<int>(d));
  }
  std::vector<int> tors;
  for (const auto& [tor, cables] : host_cables) tors.push_back(tor);
  std::shuffle(tors.begin(), tors.end(), random);
  std::set<int> used;  // ToRs and hosts a fault touches: no two faults meet there
  std::set<PortRef> taken;
  std::vector<InjectedFault> out;
  auto pick = [&](const std::vector<int>& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(random)]; };
  // A ToR other than `tor` that no fault touches yet and `fits`, at random.
  auto partner = [&](int tor, const std::function<bool(int)>& fits) {
    std::vector<int> free;
    for (int t : tors) {
      if (t != tor && !used.count(t) && fits(t)) free.push_back(t);
    }
    return free.empty() ? -1 : pick(free);
  };
  // A host cable of `tor` whose host no fault touches yet.
  auto free_host_cable = [&](int tor) {
    std::vector<int> free;
    for (int c : host_cables[tor]) {
      if (!used.count(bp.cables[c].a_device)) free.push_back(c);
    }
    return free.empty() ? -1 : pick(free);
  };
  // The kinds a fault is drawn from; the last four are losses. Ends move
  // at either side: a host's end (host-exchange, nic-exchange), an
  // uplink's ToR end (uplink-a-end), the far end (the rest).
  static const char* const kinds[] = {"down",          "drop",          "swap",          "wrong-port",
                                      "wrong-device",  "rail-exchange", "plane-exchange", "other-segment",
                                      "host-exchange", "nic-exchange",  "nic-down",       "uplink-a-end",
                                      "loss",          "loss",          "loss",           "loss"};
  constexpr int kMiswires = 12;  // kinds[0, kMiswires) are miswires and breaks
  static const int rates[] = {2, 5, 30};
  // A host cable of `host` at port `port_name`, or -1.
  auto cable_of = [&](int host, const std::string& port_name) {
    const CableEnd e = f.cable_at({host, f.port_by_name(host, port_name)});
    return e.cable >= 0 && e.end == 0 ? e.cable : -1;
  };
  for (int tor : tors) {
    if (static_cast<int>(out.size()) >= count) break;
    if (used.count(tor)) continue;
    const std::string what =
        kinds[std::uniform_int_distribution<int>(0, losses ? std::size(kinds) - 1 : kMiswires - 1)(random)];
    const bool host_side = what == "host-exchange" || what == "nic-exchange" || what == "nic-down";
    const bool on_uplink = what == "wrong-port" || what == "wrong-device" || what == "plane-exchange" ||
                           what == "uplink-a-end" ||
                           (what != "swap" && what != "rail-exchange" && what != "other-segment" && !host_side &&
                            std::uniform_int_distribution<int>(0, 1)(random) == 1);
    const int cable = on_uplink ? pick(uplinks[tor]) : free_host_cable(tor);
    if (cable < 0) continue;
    const int direction = std::uniform_int_distribution<int>(0, 1)(random);
    const auto way = direction == 0 ? lab::Direction::a_to_z : lab::Direction::z_to_a;
    const Device& t = bp.devices[tor];
    InjectedFault fault;
    std::vector<int> touched{tor};
    if (what == "down") {
      wiring[cable].fault = {lab::FaultKind::down};
      fault = {FindingKind::missing, "down", {cable}, -1};
    } else if (what == "drop") {
      wiring[cable].fault = {lab::FaultKind::drop, way};
      fault = {FindingKind::unidirectional, wiring[cable].fault.to_string(), {cable}, -1};
    } else if (what == "loss") {
      const int rate = rates[std::uniform_int_distribution<int>(0, 2)(random)];
      wiring[cable].fault = {lab::FaultKind::loss, way, rate};
      fault = {FindingKind::lossy, wiring[cable].fault.to_string(), {cable}, direction};
    } else if (what == "swap") {
      int other = -1;
      for (int tries = 0; tries < 8 && (other < 0 || other == cable); ++tries) other = free_host_cable(tor);
      if (other < 0 || other == cable) continue;
      swap_z_ends(wiring[cable], wiring[other]);
      fault = {FindingKind::swapped, "swap", {std::min(cable, other), std::max(cable, other)}, -1};
      touched.push_back(bp.cables[other].a_device);
    } else if (what == "rail-exchange" || what == "plane-exchange") {
      // Two cables exchanged at their z-ends across rails (host cables of
      // ToRs of two rails) or planes (uplinks of ToRs of the two planes):
      // one violation naming both.
      const bool rails = what == "rail-exchange";
      const int other_tor = partner(tor, [&](int o) {
        const Device& d = bp.devices[o];
        return d.pod == t.pod && (rails ? d.rail != t.rail && d.plane == t.plane : d.plane != t.plane);
      });
      if (other_tor < 0) continue;
      const int other = rails ? free_host_cable(other_tor) : pick(uplinks[other_tor]);
      if (other < 0) continue;
      swap_z_ends(wiring[cable], wiring[other]);
      fault = {rails ? FindingKind::rail_violation : FindingKind::plane_violation, what,
               {std::min(cable, other), std::max(cable, other)}, -1};
      touched.push_back(other_tor);
      touched.push_back(bp.cables[other].a_device);
    } else if (what == "host-exchange") {
      // The host ends of two hosts' cables exchanged, the hosts under ToRs
      // of one rail and plane in two segments: one swap naming both.
      const int other_tor = partner(tor, [&](int o) {
        const Device& d = bp.devices[o];
        return d.pod == t.pod && d.rail == t.rail && d.plane == t.plane && d.segment != t.segment;
      });
      if (other_tor < 0) continue;
      const int other = free_host_cable(other_tor);
      if (other < 0) continue;
      swap_a_ends(wiring[cable], wiring[other]);
      fault = {FindingKind::swapped, what, {std::min(cable, other), std::max(cable, other)}, -1};
      touched.push_back(other_tor);
      touched.push_back(bp.cables[other].a_device);
    } else if (what == "nic-exchange" || what == "nic-down") {
      // Two cables of one host: at one port of two NICs, their host ends
      // exchanged (one rail violation naming both); or both ports of one
      // NIC dark (each missing).
      const int host = bp.cables[cable].a_device;
      const PanelPort& port = f.port(f.end_of(cable, 0));
      const auto& ports = bp.panels[bp.devices[host].panel].ports;
      std::vector<int> candidates;
      // Two NICs' ports on one plane: the exchange breaks the rails only.
      const int plane = bp.devices[bp.cables[cable].z_device].plane;
      for (const auto& p : ports) {
        if (p.nic < 1 || p.name == port.name) continue;
        const int c = cable_of(host, p.name);
        if (c < 0 || used.count(bp.cables[c].z_device)) continue;
        const bool same_nic = p.nic == port.nic, same_plane = bp.devices[bp.cables[c].z_device].plane == plane;
        if (what == "nic-down" ? same_nic : !same_nic && same_plane) candidates.push_back(c);
      }
      if (candidates.empty() || (what == "nic-down" && static_cast<int>(out.size()) + 2 > count)) continue;
      const int other = pick(candidates);
      if (what == "nic-down") {
        wiring[cable].fault = wiring[other].fault = {lab::FaultKind::down};
        out.push_back({FindingKind::missing, what, {other}, -1});
        fault = {FindingKind::missing, what, {cable}, -1};
      } else {
        swap_a_ends(wiring[cable], wiring[other]);
        fault = {FindingKind::rail_violation, what, {std::min(cable, other), std::max(cable, other)}, -1};
      }
      touched.push_back(bp.cables[other].z_device);
    } else if (what == "uplink-a-end") {
      // An uplink's ToR end on a spare port of its ToR.
      const PortRef spare = spare_port(f, tor, taken);
      if (!spare.valid()) continue;
      plug_a(f, wiring[cable], spare);
      fault = {FindingKind::wrong_port, what, {cable}, -1};
    } else if (what == "other-segment") {
      // A host cable on a spare port of the same rail's ToR in another segment.
      const int other_tor = partner(tor, [&](int o) {
        const Device& d = bp.devices[o];
        return d.pod == t.pod && d.rail == t.rail && d.plane == t.plane && d.segment != t.segment;
      });
      if (other_tor < 0) continue;
      const PortRef spare = spare_port(f, other_tor, taken);
      if (!spare.valid()) continue;
      plug_z(f, wiring[cable], spare);
      fault = {FindingKind::wrong_device, what, {cable}, -1};
      touched.push_back(other_tor);
    } else {
      const int agg = bp.cables[cable].z_device;
      int to = agg;
      if (what == "wrong-device") {
        const auto& peers = aggs_by_plane[{bp.devices[agg].pod, bp.devices[agg].plane}];
        // Another aggregation switch of the plane that this ToR has no cable to.
        std::vector<int> others;
        for (int a : peers) {
          if (std::none_of(uplinks[tor].begin(), uplinks[tor].end(), [&](int u) { return bp.cables[u].z_device == a; })) {
            others.push_back(a);
          }
        }
        if (others.empty()) continue;
        to = pick(others);
      }
      const PortRef spare = spare_port(f, to, taken);
      if (!spare.valid()) continue;  // no room for this kind here
      plug_z(f, wiring[cable], spare);
      fault = {what == "wrong-port" ? FindingKind::wrong_port : FindingKind::wrong_device, what, {cable}, -1};
    }
    if (bp.cables[cable].kind == CableKind::host_tor) touched.push_back(bp.cables[cable].a_device);
    used.insert(touched.begin(), touched.end());
    out.push_back(std::move(fault));
  }
  return out;
}

DiagnosisScore score_report(const FabricIndex& f, const Report& report, const std::vector<InjectedFault>& faults) {
  const Blueprint& bp = f.blueprint();
  DiagnosisScore s;
  auto key = [](FindingKind kind, std::vector<int> cables, int direction) {
    std::sort(cables.begin(), cables.end());
    return std::make_tuple(kind, cables, direction);
  };
  std::set<std::tuple<FindingKind, std::vector<int>, int>> found, injected;
  for (const auto& finding : report.findings) {
    if (finding.severity == Severity::info) continue;
    ++s.findings;
    found.insert(key(finding.kind, finding.cables, finding.loss ? finding.loss->direction : -1));
  }
  for (const auto& fault : faults) injected.insert(key(fault.kind, fault.cables, fault.direction));
  s.faults = static_cast<int>(faults.size());
  for (const auto& fault : faults) {
    auto& [named, total] = s.by_kind[fault.fault.substr(0, fault.fault.find(':'))];
    ++total;
    if (found.count(key(fault.kind, fault.cables, fault.direction))) {
      ++s.named;
      ++named;
    } else {
      s.misses.push_back(fmt::format("not named: {} on {}", fault.fault, bp.cables[fault.cables[0]].id));
    }
  }
  for (const auto& finding : report.findings) {
    if (finding.severity == Severity::info) continue;
    if (injected.count(key(finding.kind, finding.cables, finding.loss ? finding.loss->direction : -1))) {
      ++s.correct;
    } else {
      s.misses.push_back(fmt::format("false finding: {}: {}", to_string(finding.kind), finding.message));
    }
  }
  return s;
}

}  // namespace hpn::fabricmodel
