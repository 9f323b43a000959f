#include "probe/probe_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "blueprint/fabric_index.h"

namespace hpn::probe {

Result<Scope> parse_scope(const std::string& text) {
  Scope scope;
  if (text.empty()) return scope;
  std::stringstream in(text);
  std::string item;
  auto number = [&](const std::string& key, const std::string& value) -> Result<int> {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
      return Error{fmt::format("--scope: {}={}: expected a number", key, value)};
    }
    return std::stoi(value);
  };
  while (std::getline(in, item, ',')) {
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "pod" || key == "segment") {
      auto n = number(key, value);
      if (!n) return n.error();
      (key == "pod" ? scope.pod : scope.segment) = n.value();
    } else if (key == "rack" && !value.empty()) {
      scope.rack = value;
    } else if (key == "devices" && !value.empty()) {
      scope.devices.push_back(value);
    } else if (eq == std::string::npos && !scope.devices.empty()) {
      scope.devices.push_back(key);  // devices=a,b,c: the list continues after commas
    } else {
      return Error{fmt::format("--scope: '{}': expected pod=N, segment=N, rack=NAME or devices=A,B,...", item)};
    }
  }
  return scope;
}

Result<std::vector<int>> hosts_in_scope(const Blueprint& bp, const Scope& scope) {
  std::set<int> hosts;
  FabricIndex index(bp);
  std::set<int> listed;
  for (const auto& name : scope.devices) {
    int d = index.device_by_name(name);
    if (d < 0) return Error{fmt::format("--scope: no device '{}' in the blueprint", name)};
    listed.insert(d);
  }
  if (scope.rack && std::none_of(bp.racks.begin(), bp.racks.end(),
                                 [&](const Rack& r) { return r.name == *scope.rack; })) {
    return Error{fmt::format("--scope: no rack '{}' in the blueprint", *scope.rack)};
  }
  // Hosts behind listed switches.
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::host_tor && listed.count(c.z_device)) hosts.insert(c.a_device);
  }
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& d = bp.devices[i];
    if (d.role != Role::host) continue;
    int me = static_cast<int>(i);
    if (!scope.devices.empty()) {
      if (listed.count(me)) hosts.insert(me);
      continue;
    }
    if (scope.pod && d.pod != *scope.pod) continue;
    if (scope.segment && d.segment != *scope.segment) continue;
    if (scope.rack) {
      // A rack of hosts, or a network rack: the hosts its ToRs serve.
      bool here = d.rack != kNone && bp.racks[d.rack].name == *scope.rack;
      if (!here) continue;
    }
    hosts.insert(me);
  }
  if (scope.rack) {
    for (const auto& c : bp.cables) {
      const Device& tor = bp.devices[c.z_device];
      if (c.kind == CableKind::host_tor && tor.rack != kNone && bp.racks[tor.rack].name == *scope.rack) {
        hosts.insert(c.a_device);
      }
    }
  }
  if (hosts.empty()) return Error{"--scope: no host in scope"};
  return std::vector<int>(hosts.begin(), hosts.end());
}

std::vector<bool> cables_in_scope(const Blueprint& bp, const std::vector<int>& hosts) {
  std::set<int> scope_hosts(hosts.begin(), hosts.end()), tors, pods;
  for (int h : hosts) pods.insert(bp.devices[h].pod);
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::host_tor && scope_hosts.count(c.a_device)) tors.insert(c.z_device);
  }
  std::vector<bool> in(bp.cables.size(), false);
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    switch (c.kind) {
      case CableKind::host_tor: in[i] = scope_hosts.count(c.a_device) > 0; break;
      case CableKind::tor_agg: in[i] = tors.count(c.a_device) > 0; break;
      case CableKind::agg_core: in[i] = pods.count(bp.devices[c.a_device].pod) > 0; break;
      case CableKind::frontend: break;
    }
  }
  return in;
}

std::size_t longest_path_hops(const Blueprint& bp) {
  bool tor = false, agg = false, core = false;
  for (const auto& d : bp.devices) {
    tor |= d.role == Role::tor;
    agg |= d.role == Role::agg;
    core |= d.role == Role::core;
  }
  const std::size_t tiers = static_cast<std::size_t>(tor) + agg + core;
  return tiers == 0 ? 0 : 2 * tiers - 1;
}

std::vector<int> switches_in_scope(const Blueprint& bp, const std::vector<int>& hosts) {
  const auto in = cables_in_scope(bp, hosts);
  std::set<int> switches;
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    if (!in[i]) continue;
    for (int d : {bp.cables[i].a_device, bp.cables[i].z_device}) {
      if (d >= 0 && bp.devices[d].role != Role::host) switches.insert(d);
    }
  }
  return {switches.begin(), switches.end()};
}

std::string bond_address(const Blueprint& bp, int host, int nic) {
  for (const auto& i : bp.interfaces) {
    if (i.device == host && i.nic == nic && i.purpose == InterfacePurpose::host) return i.ipv6;
  }
  return {};
}

namespace {

// Hosts by pod and segment, for picking partners.
std::map<std::pair<int, int>, std::vector<int>> segments_of(const Blueprint& bp) {
  std::map<std::pair<int, int>, std::vector<int>> out;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& d = bp.devices[i];
    if (d.role == Role::host) out[{d.pod, d.segment}].push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace

std::vector<ProbeTarget> initial_plan(const Blueprint& bp, const std::vector<int>& hosts,
                                      const PlanOptions& o) {
  auto segments = segments_of(bp);
  int rails = 0;
  for (const auto& d : bp.devices) rails = std::max(rails, d.rail);
  std::vector<ProbeTarget> plan;
  // Each segment's counterpart in the next pod that has it (the pods wrap).
  std::map<std::pair<int, int>, std::vector<int>> cross_pod;
  std::set<int> pods;
  for (const auto& [key, members] : segments) pods.insert(key.first);
  if (pods.size() > 1) {
    for (const auto& [key, members] : segments) {
      auto next = pods.upper_bound(key.first);
      const int pod = next == pods.end() ? *pods.begin() : *next;
      if (auto it = segments.find({pod, key.second}); it != segments.end()) cross_pod[key] = it->second;
    }
  }
  int next_port = o.first_source_port;
  auto add = [&](int src, const std::string& port, int dst, int nic) {
    ProbeTarget t{src, port, dst, nic, bond_address(bp, dst, nic), {}};
    if (t.dst_address.empty() || dst == src) return;
    for (int k = 0; k < o.probes_per_pair; ++k) {
      t.source_ports.push_back(next_port);
      next_port = next_port >= 65535 ? o.first_source_port : next_port + 1;
    }
    plan.push_back(std::move(t));
  };
  for (int h : hosts) {
    const Device& host = bp.devices[h];
    const auto& mine = segments[{host.pod, host.segment}];
    size_t me = std::find(mine.begin(), mine.end(), h) - mine.begin();
    // The segment after this one in the pod (or the next pod's), so that
    // probes climb through the aggregation layer.
    auto it = segments.find({host.pod, host.segment});
    auto other = std::next(it);
    if (other == segments.end() || other->first.first != host.pod) other = segments.lower_bound({host.pod, 0});
    if (other == it) other = std::next(it) == segments.end() ? segments.begin() : std::next(it);
    for (const auto& port : bp.panels[host.panel].ports) {
      if (port.nic < 1) continue;
      int other_rail = rails > 1 ? port.nic % rails + 1 : port.nic;
      if (other != it) {
        const auto& there = other->second;
        add(h, port.name, there[me % there.size()], port.nic);
        add(h, port.name, there[(me + 1) % there.size()], other_rail);
      }
      if (mine.size() > 1) add(h, port.name, mine[(me + 1) % mine.size()], port.nic);
      // With more than one pod built, the same place in the next pod:
      // through the core, whose port rules only cross-pod traffic shows.
      if (auto far = cross_pod.find({host.pod, host.segment}); far != cross_pod.end()) {
        add(h, port.name, far->second[me % far->second.size()], port.nic);
      }
    }
  }
  return plan;
}

std::vector<ProbeTarget> switch_probes(const Blueprint& bp, const std::vector<int>& hosts, const PlanOptions& o) {
  FabricIndex f(bp);
  std::map<int, std::string> loopback;
  for (const auto& i : bp.interfaces) {
    if (i.purpose == InterfacePurpose::loopback && !i.ipv6.empty()) loopback[i.device] = i.ipv6;
  }
  // The sending port behind each ToR: the first in-scope host's port there.
  std::map<int, std::pair<int, std::string>> sender_of;
  std::set<int> in_scope(hosts.begin(), hosts.end());
  for (const auto& c : bp.cables) {
    if (c.kind != CableKind::host_tor || !in_scope.count(c.a_device)) continue;
    const int nic = bp.panels[bp.devices[c.a_device].panel].ports[bp.panels[bp.devices[c.a_device].panel].find(c.a_port)].nic;
    if (nic < 1) continue;
    sender_of.try_emplace(c.z_device, c.a_device, c.a_port);
  }
  // Per ToR: its aggregation switches, then the cores its aggregation
  // switches are cabled to.
  std::vector<ProbeTarget> out;
  int next_port = o.first_source_port;
  int place = 0;
  for (const auto& [tor, sender] : sender_of) {
    std::vector<int> aggs, cores;
    for (const auto& c : bp.cables) {
      if (c.kind == CableKind::tor_agg && c.a_device == tor) aggs.push_back(c.z_device);
    }
    for (const auto& c : bp.cables) {
      if (c.kind == CableKind::agg_core && std::find(aggs.begin(), aggs.end(), c.a_device) != aggs.end() &&
          std::find(cores.begin(), cores.end(), c.z_device) == cores.end()) {
        cores.push_back(c.z_device);
      }
    }
    std::vector<std::pair<int, int>> targets;  // switch, probes
    for (int a : aggs) targets.push_back({a, 1});
    for (int c : cores) targets.push_back({c, o.probes_per_pair});
    if (targets.empty()) continue;
    std::rotate(targets.begin(), targets.begin() + (place++ % static_cast<int>(targets.size())), targets.end());
    for (const auto& [sw, probes] : targets) {
      auto it = loopback.find(sw);
      if (it == loopback.end()) continue;
      ProbeTarget t{sender.first, sender.second, sw, 0, it->second, {}, kSwitchProbeHopLimit};
      for (int k = 0; k < probes; ++k) {
        t.source_ports.push_back(next_port);
        next_port = next_port >= 65535 ? o.first_source_port : next_port + 1;
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

RoundTrip round_trip(const FabricIndex& f, PortRef sender, int dst, int dst_nic) {
  const Blueprint& bp = f.blueprint();
  RoundTrip trip;
  trip.sender_cable = f.cable_at(sender).cable;
  const PortRef tor = f.far_end(sender);
  if (!tor.valid() || dst < 0 || dst_nic < 0) return trip;
  const Device& first = bp.devices[tor.device];
  const auto& ports = bp.panels[bp.devices[dst].panel].ports;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i].nic != dst_nic) continue;
    const PortRef port{dst, static_cast<int>(i)};
    const PortRef last = f.far_end(port);
    if (!last.valid() || bp.devices[last.device].plane != first.plane) continue;
    trip.arrival_cable = f.cable_at(port).cable;
    trip.reach = last.device == tor.device                 ? Reach::tor
                 : bp.devices[last.device].pod == first.pod ? Reach::agg
                                                            : Reach::core;
    break;
  }
  return trip;
}

namespace {

// Per host cable and direction ([0] a -> z, [1] z -> a): whether a trace
// showed it crossed, and the probes that had to cross it, counted as the
// diff counts them (validator/witness.cpp).
struct HostCableCoverage {
  std::vector<std::array<bool, 2>> heard;
  std::vector<std::array<ProbesByReach, 2>> expected;
  std::set<PortRef> sending;  // host ports some probe was sent from

  bool thin(int cable, int direction, const SilenceRule& rule) const {
    return !heard[cable][direction] && !silence_is_evidence(expected[cable][direction], rule);
  }
};

HostCableCoverage host_coverage(const FabricIndex& f, const ObservationSet& seen) {
  const Blueprint& bp = f.blueprint();
  HostCableCoverage c;
  c.heard.assign(bp.cables.size(), {false, false});
  c.expected.assign(bp.cables.size(), {});
  // A trace crossed its port's cable away from the port (outbound) or toward it.
  auto hear = [&](PortRef port, bool outbound) {
    CableEnd e = f.cable_at(port);
    if (e.cable >= 0) c.heard[e.cable][outbound ? e.end : 1 - e.end] = true;
  };
  for (const auto& o : seen) {
    const int dst = f.device_by_name(o.dst_device);
    if (o.received && dst >= 0) hear({dst, f.port_by_name(dst, o.rx_port)}, false);
    if (o.src_device.empty()) continue;  // a receiver's record: its sender's port is not named
    const int src = f.device_by_name(o.src_device);
    if (src < 0 || dst < 0) continue;
    const PortRef sender{src, f.port_by_name(src, o.src_port)};
    if (o.received) hear(sender, true);
    if (o.direction == ProbeDirection::reverse) continue;  // counted with its probe
    c.sending.insert(sender);
    const RoundTrip trip = round_trip(f, sender, dst, f.nic_of_address(dst, o.dst_address));
    for (int cable : {trip.sender_cable, trip.arrival_cable}) {
      if (cable < 0) continue;
      for (auto& way : c.expected[cable]) ++way[static_cast<int>(trip.reach)];
    }
  }
  return c;
}

struct UplinkCoverage {
  std::map<int, std::map<int, int64_t>> up, down;  // ToR -> uplink cable -> traces, each way
};

UplinkCoverage coverage(const FabricIndex& f, const ObservationSet& seen) {
  const Blueprint& bp = f.blueprint();
  UplinkCoverage c;
  for (const auto& o : seen) {
    if (!o.received) continue;
    for (size_t i = 0; i + 1 < o.hops.size(); ++i) {
      int a = f.device_by_node_id(o.hops[i].node_id), b = f.device_by_node_id(o.hops[i + 1].node_id);
      if (a < 0 || b < 0) continue;
      CableEnd e = f.cable_at({a, f.port_by_id(a, o.hops[i].egress_if)});
      if (e.cable < 0 || bp.cables[e.cable].kind != CableKind::tor_agg) continue;
      int tor = bp.cables[e.cable].a_device;
      (e.end == 0 ? c.up : c.down)[tor][e.cable]++;
    }
  }
  return c;
}

}  // namespace

std::vector<ProbeTarget> next_round(const Blueprint& bp, const std::vector<ProbeTarget>& sent,
                                    const ObservationSet& seen, const PlanOptions& o) {
  FabricIndex f(bp);
  UplinkCoverage c = coverage(f, seen);
  const HostCableCoverage hosts = host_coverage(f, seen);
  // A pair whose round trip crosses a host-cable direction that is silent
  // and still explained by loss: more probes until it is heard or past the rule.
  auto thin_round_trip = [&](const ProbeTarget& t) {
    const PortRef sender{t.src_host, f.port_by_name(t.src_host, t.src_port)};
    if (!hosts.sending.count(sender)) return false;  // never sent from (no interface): more would not be either
    const RoundTrip trip = round_trip(f, sender, t.dst_host, t.dst_nic);
    for (int cable : {trip.sender_cable, trip.arrival_cable}) {
      if (cable >= 0 && (hosts.thin(cable, 0, o.silence) || hosts.thin(cable, 1, o.silence))) return true;
    }
    return false;
  };
  std::map<int, std::vector<int>> uplinks;  // ToR -> its planned uplink cables
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    if (bp.cables[i].kind == CableKind::tor_agg) uplinks[bp.cables[i].a_device].push_back(static_cast<int>(i));
  }
  auto satisfied = [&](int tor, const std::map<int, std::map<int, int64_t>>& way) {
    const auto& members = uplinks[tor];
    auto it = way.find(tor);
    int64_t total = 0;
    bool all_seen = true;
    for (int m : members) {
      int64_t n = it == way.end() ? 0 : (it->second.count(m) ? it->second.at(m) : 0);
      total += n;
      all_seen = all_seen && n > 0;
    }
    double n = static_cast<double>(members.size());
    if (members.size() < 2) return all_seen;
    const double unseen = std::pow(1 - 1 / n, static_cast<double>(total));
    // A member no trace crossed: more source ports, in case a few flows
    // hashed unevenly, until its silence is past doubt by a margin (the
    // chance squared): then more would only add records (at pod scale,
    // each faulty ToR's pairs asking to the bound were a third of them).
    return all_seen ? unseen < o.miss_probability : unseen < o.miss_probability * o.miss_probability;
  };
  // Core rules no trace has exercised yet (core, in-port, destination
  // pod), by the pod and plane whose traffic enters there: only probes
  // between pods can show a core breaking its rules, and hashes decide
  // which in-ports they reach.
  std::set<std::tuple<int, int, int>> exercised;  // core, in-port index, destination pod
  for (const auto& obs : seen) {
    if (!obs.received || obs.direction == ProbeDirection::expired) continue;
    const int dst = f.device_by_name(obs.dst_device);
    if (dst < 0) continue;
    for (const auto& hop : obs.hops) {
      const int d = f.device_by_node_id(hop.node_id);
      if (d >= 0 && bp.devices[d].role == Role::core) exercised.insert({d, f.port_by_id(d, hop.ingress_if), bp.devices[dst].pod});
    }
  }
  std::set<std::tuple<int, int, int>> unexercised;  // source pod, plane, destination pod
  for (const auto& r : bp.core_rules) {
    if (r.status != "active") continue;
    const int in = f.port_by_name(r.core, r.in_port);
    if (in < 0 || exercised.count({r.core, in, r.dst_pod})) continue;
    const PortRef agg = f.far_end({r.core, in});
    if (!agg.valid()) continue;
    unexercised.insert({bp.devices[agg.device].pod, bp.devices[r.core].plane, r.dst_pod});
  }
  auto crosses_unexercised = [&](const ProbeTarget& t, int src_tor) {
    const Device& src = bp.devices[t.src_host];
    const Device& dst = bp.devices[t.dst_host];
    return src.pod != dst.pod && unexercised.count({src.pod, bp.devices[src_tor].plane, dst.pod}) > 0;
  };
  int max_port = o.first_source_port;
  for (const auto& t : sent) {
    for (int p : t.source_ports) max_port = std::max(max_port, p);
  }
  std::vector<std::vector<int>> extra(sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    const ProbeTarget& t = sent[i];
    if (static_cast<int>(t.source_ports.size()) >= o.max_probes_per_pair) continue;
    // The ToR this pair leaves from, and the one it arrives at.
    int src_tor = f.far_end({t.src_host, f.port_by_name(t.src_host, t.src_port)}).device;
    if (src_tor < 0) continue;
    bool want = !satisfied(src_tor, c.up) || !satisfied(src_tor, c.down) || thin_round_trip(t) ||
                crosses_unexercised(t, src_tor);
    if (!want) continue;
    int n = std::min<int>(o.probes_per_pair, o.max_probes_per_pair - static_cast<int>(t.source_ports.size()));
    for (int k = 0; k < n; ++k) {
      max_port = max_port >= 65535 ? o.first_source_port : max_port + 1;
      extra[i].push_back(max_port);
    }
  }
  std::vector<ProbeTarget> more;
  for (size_t i = 0; i < sent.size(); ++i) {
    if (extra[i].empty()) continue;
    ProbeTarget again = sent[i];
    again.source_ports.insert(again.source_ports.end(), extra[i].begin(), extra[i].end());
    more.push_back(std::move(again));
  }
  return more;
}

std::vector<ProbeTarget> next_switch_round(const Blueprint& bp, const std::vector<ProbeTarget>& sent,
                                           const ObservationSet& seen, const PlanOptions& o) {
  FabricIndex f(bp);
  // Per switch addressed: the probes it answered, and for a core the
  // aggregation-core cables their traces came up by.
  std::map<int, int64_t> answered;
  std::map<int, std::set<int>> came_by;
  for (const auto& obs : seen) {
    if (obs.direction != ProbeDirection::expired || !obs.received) continue;
    const int sw = f.device_by_name(obs.dst_device);
    if (sw < 0) continue;
    ++answered[sw];
    for (const auto& hop : obs.hops) {
      const int d = f.device_by_node_id(hop.node_id);
      if (d < 0 || hop.egress_if < 0) continue;
      const CableEnd e = f.cable_at({d, f.port_by_id(d, hop.egress_if)});
      if (e.cable >= 0 && bp.cables[e.cable].kind == CableKind::agg_core && e.end == 0) came_by[sw].insert(e.cable);
    }
  }
  // Per core: its cables from the aggregation switches of the senders' ToRs,
  // the members the ToRs' hashes spread its probes over.
  std::map<int, std::set<int>> reachable;
  std::map<int, std::set<int>> aggs_of;  // ToR -> aggregation switches
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::tor_agg) aggs_of[c.a_device].insert(c.z_device);
  }
  for (const auto& t : sent) {
    if (bp.devices[t.dst_host].role != Role::core) continue;
    const int tor = f.far_end({t.src_host, f.port_by_name(t.src_host, t.src_port)}).device;
    if (tor < 0) continue;
    for (size_t i = 0; i < bp.cables.size(); ++i) {
      const Cable& c = bp.cables[i];
      if (c.kind == CableKind::agg_core && c.z_device == t.dst_host && aggs_of[tor].count(c.a_device)) {
        reachable[t.dst_host].insert(static_cast<int>(i));
      }
    }
  }
  auto satisfied = [&](int sw) {
    const int64_t n = answered.count(sw) ? answered.at(sw) : 0;
    if (bp.devices[sw].role != Role::core) return n > 0;
    const auto& members = reachable[sw];
    const auto& seen_by = came_by[sw];
    const bool all = std::all_of(members.begin(), members.end(), [&](int c) { return seen_by.count(c) > 0; });
    const double m = static_cast<double>(members.size());
    return all && (members.size() < 2 || std::pow(1 - 1 / m, static_cast<double>(n)) < o.miss_probability);
  };
  int max_port = o.first_source_port;
  for (const auto& t : sent) {
    for (int p : t.source_ports) max_port = std::max(max_port, p);
  }
  std::vector<ProbeTarget> more;
  for (const auto& t : sent) {
    if (static_cast<int>(t.source_ports.size()) >= o.max_probes_per_pair || satisfied(t.dst_host)) continue;
    ProbeTarget again = t;
    const int extra = std::min<int>(o.probes_per_pair, o.max_probes_per_pair - static_cast<int>(t.source_ports.size()));
    for (int k = 0; k < extra; ++k) {
      max_port = max_port >= 65535 ? o.first_source_port : max_port + 1;
      again.source_ports.push_back(max_port);
    }
    more.push_back(std::move(again));
  }
  return more;
}

std::vector<ProbeTarget> merge_round(std::vector<ProbeTarget>& plan, const std::vector<ProbeTarget>& more) {
  std::vector<ProbeTarget> fresh;
  for (const auto& t : more) {
    auto it = std::find_if(plan.begin(), plan.end(), [&](const ProbeTarget& p) {
      return p.src_host == t.src_host && p.src_port == t.src_port && p.dst_host == t.dst_host &&
             p.dst_nic == t.dst_nic;
    });
    size_t sent = it == plan.end() ? 0 : std::min(it->source_ports.size(), t.source_ports.size());
    ProbeTarget delta = t;
    delta.source_ports.erase(delta.source_ports.begin(), delta.source_ports.begin() + static_cast<long>(sent));
    if (it == plan.end()) plan.push_back(t); else *it = t;
    if (!delta.source_ports.empty()) fresh.push_back(std::move(delta));
  }
  return fresh;
}

DisjointPaths learn_disjoint_paths(const Blueprint& bp, const ObservationSet& seen) {
  FabricIndex f(bp);
  // (sender, its port, destination) -> source port -> the switch-to-switch cables its path used.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::map<int, std::set<int>>> paths;
  for (const auto& o : seen) {
    if (!o.received || o.direction != ProbeDirection::forward) continue;
    std::set<int> links;
    bool readable = true;
    for (size_t i = 0; i + 1 < o.hops.size(); ++i) {
      int a = f.device_by_node_id(o.hops[i].node_id);
      CableEnd e = f.cable_at({a, f.port_by_id(a, o.hops[i].egress_if)});
      if (e.cable < 0) {
        readable = false;
        break;
      }
      links.insert(e.cable);
    }
    if (readable) paths[{std::string(o.src_device), std::string(o.src_port), std::string(o.dst_device), std::string(o.dst_address)}][o.src_udp_port] = links;
  }
  DisjointPaths out;
  for (const auto& [key, by_port] : paths) {
    const auto& [src, port, dst, address] = key;
    DisjointPaths::Entry e{src, port, dst, address, "", {}};
    int host = f.device_by_name(src);
    int index = f.port_by_name(host, port);
    if (index >= 0) e.bond = fmt::format("bond{}", f.port({host, index}).nic);
    std::set<int> used;
    for (const auto& [source_port, links] : by_port) {
      bool disjoint = std::none_of(links.begin(), links.end(), [&](int l) { return used.count(l); });
      if (!disjoint || (links.empty() && !e.source_ports.empty())) continue;
      used.insert(links.begin(), links.end());
      e.source_ports.push_back(source_port);
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

std::string to_json(const DisjointPaths& paths) {
  using json = nlohmann::ordered_json;
  std::map<std::string, std::map<std::pair<std::string, std::string>, std::pair<std::set<int>, json>>> hosts;
  for (const auto& e : paths.entries) {
    if (e.bond.empty()) continue;
    auto& [ports, measured] = hosts[e.src_device][{e.bond, e.dst_device}];
    ports.insert(e.source_ports.begin(), e.source_ports.end());
    if (measured.is_null()) measured = json::array();
    measured.push_back({{"src_port", e.src_port}, {"dst_address", e.dst_address}, {"source_ports", e.source_ports}});
  }
  json j;
  j["format"] = "hpnctl-paths";
  j["version"] = 1;
  auto& out = j["hosts"] = json::object();
  for (const auto& [host, entries] : hosts) {
    auto& list = out[host] = json::array();
    for (const auto& [key, value] : entries) {
      list.push_back({{"bond", key.first}, {"destination", key.second},
                      {"udp_source_ports", std::vector<int>(value.first.begin(), value.first.end())},
                      {"measured", value.second}});
    }
  }
  return j.dump(2) + "\n";
}

}  // namespace hpn::probe
