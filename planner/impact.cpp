#include "planner/impact.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace hpn {

std::string_view to_string(Reach reach) {
  switch (reach) {
    case Reach::fabric: return "fabric";
    case Reach::segment: return "segment";
    case Reach::dark: return "dark";
  }
  return "?";
}

std::string_view to_string(CapacityScope scope) {
  switch (scope) {
    case CapacityScope::plane: return "plane";
    case CapacityScope::segment: return "segment";
  }
  return "?";
}

std::string_view to_string(OutageKind kind) {
  switch (kind) {
    case OutageKind::tor_pair: return "tor-pair";
    case OutageKind::single_tor: return "single-tor";
    case OutageKind::cables: return "cables";
    case OutageKind::mixed: return "mixed";
  }
  return "?";
}

int ImpactReport::hosts_dark_on_a_rail() const {
  std::set<int> dark;
  for (const auto& o : outages) dark.insert(o.hosts.begin(), o.hosts.end());
  return static_cast<int>(dark.size());
}

std::string name_of(const Blueprint& bp, const Failure& f) {
  return f.kind == Failure::Kind::cable ? bp.cables[f.index].id : bp.devices[f.index].name;
}

std::string describe(const Blueprint& bp, const Failure& f) {
  if (f.kind == Failure::Kind::cable) {
    const Cable& c = bp.cables[f.index];
    return fmt::format("cable {} ({}:{} -> {}:{})", c.id, bp.devices[c.a_device].name, c.a_port,
                       bp.devices[c.z_device].name, c.z_port);
  }
  const Device& d = bp.devices[f.index];
  switch (d.role) {
    case Role::host: return fmt::format("host {} (pod {} segment {}, {})", d.name, d.pod, d.segment, to_string(d.state));
    case Role::tor:
      return fmt::format("ToR {} (pod {} segment {} rail {}, plane {})", d.name, d.pod, d.segment, d.rail, d.plane);
    case Role::agg: return fmt::format("aggregation switch {} (pod {} plane {})", d.name, d.pod, d.plane);
    case Role::core: return fmt::format("core switch {} (plane {})", d.name, d.plane);
    case Role::frontend: return fmt::format("front-end leaf {} (pod {} segment {})", d.name, d.pod, d.segment);
  }
  return d.name;
}

namespace {

bool backend(CableKind kind) { return kind != CableKind::frontend; }

// What the failures take down, cable by cable.
class Outage {
 public:
  Outage(const Blueprint& bp, const std::vector<Failure>& failures)
      : bp_(bp), cable_(bp.cables.size(), false), device_(bp.devices.size(), false) {
    for (const auto& f : failures) (f.kind == Failure::Kind::cable ? cable_ : device_)[f.index] = true;
  }
  bool device_down(int d) const { return device_[d]; }
  bool down(int c) const {
    const Cable& k = bp_.cables[c];
    return cable_[c] || device_[k.a_device] || device_[k.z_device];
  }
  // The failures that took cable `c` down, by name.
  void causes(int c, std::set<std::string>& out) const {
    const Cable& k = bp_.cables[c];
    if (cable_[c]) out.insert(k.id);
    if (device_[k.a_device]) out.insert(bp_.devices[k.a_device].name);
    if (device_[k.z_device]) out.insert(bp_.devices[k.z_device].name);
  }

 private:
  const Blueprint& bp_;
  std::vector<bool> cable_, device_;
};

// Where a back-end cable's capacity counts: the plane of its ToR (or, for
// an aggregation uplink, of its aggregation switch) in its pod, and the
// segment of its ToR where it has one.
struct Place {
  int pod = kNone, segment = kNone, plane = kNone;
};

Place place_of(const Blueprint& bp, const Cable& c) {
  const Device& tor_or_agg = c.kind == CableKind::host_tor ? bp.devices[c.z_device] : bp.devices[c.a_device];
  Place p{tor_or_agg.pod, kNone, tor_or_agg.plane};
  if (c.kind != CableKind::agg_core) p.segment = tor_or_agg.segment;
  return p;
}

std::vector<CapacityLoss> capacity_lost(const Blueprint& bp, const Outage& out) {
  using Key = std::tuple<CapacityScope, int, int, int, CableKind>;
  std::map<Key, CapacityLoss> rows;
  auto add = [&](const Key& key, int64_t gbps, bool lost) {
    auto [it, fresh] = rows.try_emplace(key);
    if (fresh) {
      it->second = {std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), std::get<4>(key), 0, 0};
    }
    it->second.total_gbps += gbps;
    if (lost) it->second.lost_gbps += gbps;
  };
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (!backend(c.kind)) continue;
    const Place p = place_of(bp, c);
    const bool lost = out.down(static_cast<int>(i));
    add({CapacityScope::plane, p.pod, kNone, p.plane, c.kind}, c.speed_gbps, lost);
    if (p.segment != kNone) add({CapacityScope::segment, p.pod, p.segment, p.plane, c.kind}, c.speed_gbps, lost);
  }
  std::vector<CapacityLoss> lost;
  for (auto& [key, row] : rows) {
    if (row.lost_gbps > 0) lost.push_back(row);
  }
  return lost;
}

// Every ToR of the rail among the causes: the pair (or the single ToR) is
// what took the rail down, whatever cable failed beside it.
OutageKind outage_kind(const Blueprint& bp, const std::set<std::string>& causes, const std::set<int>& rail_tors) {
  size_t tors_down = 0;
  for (int t : rail_tors) tors_down += causes.count(bp.devices[t].name);
  if (tors_down == rail_tors.size()) return rail_tors.size() == 1 ? OutageKind::single_tor : OutageKind::tor_pair;
  return tors_down == 0 ? OutageKind::cables : OutageKind::mixed;
}

}  // namespace

ImpactReport assess_impact(const Blueprint& bp, const std::vector<Failure>& failures) {
  ImpactReport report;
  std::set<std::pair<Failure::Kind, int>> seen;
  for (const auto& f : failures) {
    if (!seen.insert({f.kind, f.index}).second) continue;
    report.failures.push_back(f);
    const bool frontend = f.kind == Failure::Kind::cable ? bp.cables[f.index].kind == CableKind::frontend
                                                         : bp.devices[f.index].role == Role::frontend;
    if (frontend) ++report.frontend_failures;
  }
  const Outage out(bp, report.failures);

  // A ToR that is up but has lost every uplink still switches its segment's rail.
  std::vector<int> uplinks(bp.devices.size(), 0), uplinks_up(bp.devices.size(), 0);
  std::vector<std::vector<int>> host_cables(bp.devices.size());
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (c.kind == CableKind::tor_agg) {
      ++uplinks[c.a_device];
      if (!out.down(static_cast<int>(i))) ++uplinks_up[c.a_device];
    } else if (c.kind == CableKind::host_tor) {
      host_cables[c.a_device].push_back(static_cast<int>(i));
    }
  }

  // Per host, rail by rail: which ports are left and how far they reach.
  using OutageKey = std::tuple<int, int, int, std::set<std::string>>;
  std::map<OutageKey, RailOutage> outages;
  for (size_t h = 0; h < bp.devices.size(); ++h) {
    if (host_cables[h].empty()) continue;
    bool touched = out.device_down(static_cast<int>(h));
    for (int c : host_cables[h]) {
      const int tor = bp.cables[c].z_device;
      touched = touched || out.down(c) || (uplinks[tor] > 0 && uplinks_up[tor] == 0);
    }
    if (!touched) continue;  // the common case, kept cheap: a plan summary asks on every plan
    HostImpact host;
    host.host = static_cast<int>(h);
    host.failed = out.device_down(host.host);
    std::map<int, std::vector<int>> by_rail;  // rail -> its cables
    for (int c : host_cables[h]) {
      const Cable& k = bp.cables[c];
      host.total_gbps += k.speed_gbps;
      if (out.down(c)) host.lost_gbps += k.speed_gbps;
      const Panel& panel = bp.panels[bp.devices[h].panel];
      const int port = panel.find(k.a_port);
      by_rail[port < 0 ? kNone : panel.ports[port].nic].push_back(c);
    }
    bool changed = host.failed;
    for (const auto& [rail, cables] : by_rail) {
      RailLeft left{rail, {}};
      bool rail_changed = false;
      std::set<std::string> causes;
      std::set<int> tors;
      for (int c : cables) {
        const Cable& k = bp.cables[c];
        tors.insert(k.z_device);
        if (out.down(c)) {
          rail_changed = true;
          out.causes(c, causes);
          continue;
        }
        const bool isolated = uplinks[k.z_device] > 0 && uplinks_up[k.z_device] == 0;
        rail_changed = rail_changed || isolated;
        left.left.push_back({k.a_port, bp.devices[k.z_device].name, bp.devices[k.z_device].plane,
                             isolated ? Reach::segment : Reach::fabric});
      }
      if (!rail_changed || host.failed) continue;
      changed = true;
      if (left.dark()) {
        const Device& d = bp.devices[h];
        auto [it, fresh] = outages.try_emplace(OutageKey{d.pod, d.segment, rail, causes});
        if (fresh) {
          it->second = RailOutage{d.pod, d.segment, rail, outage_kind(bp, causes, tors),
                                  std::vector<std::string>(causes.begin(), causes.end()), {}};
        }
        it->second.hosts.push_back(host.host);
      }
      host.rails.push_back(std::move(left));
    }
    if (changed) report.hosts.push_back(std::move(host));
  }
  for (auto& [key, outage] : outages) report.outages.push_back(std::move(outage));
  report.capacity = capacity_lost(bp, out);
  return report;
}

}  // namespace hpn
