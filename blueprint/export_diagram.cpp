#include "blueprint/export_diagram.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace hpn {

namespace {

std::string dot_id(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '\n') {
      s += "\\n";  // a line break in a label
      continue;
    }
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  s += '"';
  return s;
}

// Plane 1 blue, plane 2 red (Tableau 10), anything else grey.
const char* plane_color(int plane) {
  if (plane == 1) return "#1f77b4";
  if (plane == 2) return "#d62728";
  return "#7f7f7f";
}

std::string plane_name(int plane) { return plane == kNone ? "no plane" : fmt::format("plane {}", plane); }

// "480 x 400G", or "240 x 400G + 8 x 200G" when speeds differ.
std::string bundle_label(const std::map<int, int>& count_by_speed) {
  std::string label;
  for (auto it = count_by_speed.rbegin(); it != count_by_speed.rend(); ++it) {
    if (!label.empty()) label += " + ";
    label += fmt::format("{} x {}G", it->second, it->first);
  }
  return label;
}

// An invisible line through the devices, in order: keeps them left to right.
std::string chain(const Blueprint& bp, const std::vector<int>& devices) {
  if (devices.size() < 2) return "";
  std::string s = "    ";
  for (size_t i = 0; i < devices.size(); ++i) s += (i ? " -- " : "") + dot_id(bp.devices[devices[i]].name);
  return s + " [style=invis];\n";
}

// The devices of one segment, in plan order.
struct SegmentDevices {
  std::vector<int> hosts, tors;
};

Diagram segment_diagram(const Blueprint& bp, int pod, int segment, const SegmentDevices& members,
                        const std::vector<std::vector<int>>& host_cables) {
  Diagram d;
  d.name = fmt::format("segment-{}-{}", pod, segment);
  d.kind = "segment";
  d.pod = pod;
  d.segment = segment;
  int backups = 0;
  for (int h : members.hosts) backups += bp.devices[h].state == State::backup;
  int cables = 0;
  for (int h : members.hosts) {
    for (int c : host_cables[h]) cables += bp.cables[c].kind == CableKind::host_tor;
  }

  std::string& s = d.dot;
  s += fmt::format("graph {} {{\n", dot_id(d.name));
  s += fmt::format("  label={}; labelloc=t; fontsize=24;\n",
                   dot_id(fmt::format("pod {}, segment {}: {} hosts ({} backup), {} ToRs, {} host-ToR cables", pod,
                                      segment, members.hosts.size(), backups, members.tors.size(), cables)));
  // Every host has a line to every ToR of its rails, so crossings cannot be
  // minimised away: hosts keep plan order (an invisible chain) and
  // Graphviz's crossing and ranking searches are cut short, which makes a
  // 136-host segment render in a fraction of a second instead of several.
  s += "  splines=line; nodesep=0.08; ranksep=5; outputorder=edgesfirst;\n";
  s += "  mclimit=0.01; nslimit=0.2; nslimit1=0.2; remincross=false;\n";
  s += "  node [shape=box, style=filled, fillcolor=white, fontname=Helvetica, fontsize=9];\n";
  s += "  edge [penwidth=0.5];\n";
  s += "  { rank=same;\n";
  for (int h : members.hosts) {
    const Device& host = bp.devices[h];
    std::string where = host.rack == kNone ? "" : bp.racks[host.rack].name;
    if (host.ru != kNone) where += fmt::format(" U{}", host.ru);
    s += fmt::format("    {} [tooltip={}{}];\n", dot_id(host.name), dot_id(fmt::format("{} {}", host.name, where)),
                     host.state == State::backup ? ", style=\"filled,dashed\", fillcolor=\"#eeeeee\"" : "");
    ++d.nodes;
  }
  s += chain(bp, members.hosts);
  s += "  }\n";
  // ToRs grouped by rail: the rail-optimized design puts NIC r of every host on rail r's ToR pair.
  std::map<int, std::vector<int>> rails;
  for (int t : members.tors) rails[bp.devices[t].rail].push_back(t);
  for (const auto& [rail, tors] : rails) {
    s += fmt::format("  subgraph {} {{\n    label={}; style=rounded; fontsize=14;\n",
                     dot_id(rail == kNone ? "cluster_rail_none" : fmt::format("cluster_rail_{}", rail)),
                     dot_id(rail == kNone ? "no rail" : fmt::format("rail {}", rail)));
    for (int t : tors) {
      const Device& tor = bp.devices[t];
      s += fmt::format("    {} [label={}, color={}, penwidth=2];\n", dot_id(tor.name),
                       dot_id(fmt::format("{}\n{}", tor.name, plane_name(tor.plane))), dot_id(plane_color(tor.plane)));
      ++d.nodes;
    }
    s += "  }\n";
  }
  for (int h : members.hosts) {
    for (int ci : host_cables[h]) {
      const Cable& c = bp.cables[ci];
      if (c.kind != CableKind::host_tor) continue;
      const Device& tor = bp.devices[c.z_device];
      s += fmt::format("  {} -- {} [color={}, tooltip={}{}];\n", dot_id(bp.devices[c.a_device].name),
                       dot_id(tor.name), dot_id(plane_color(tor.plane)),
                       dot_id(fmt::format("{} {}:{} - {}:{}", c.id, bp.devices[c.a_device].name, c.a_port, tor.name,
                                          c.z_port)),
                       c.state == State::backup ? ", style=dashed" : "");
      ++d.edges;
    }
  }
  s += "}\n";
  return d;
}

Diagram pod_diagram(const Blueprint& bp, int pod, const std::vector<int>& segments) {
  Diagram d;
  d.name = fmt::format("pod-{}", pod);
  d.kind = "pod";
  d.pod = pod;
  // Bundles: (segment, plane) -> speed -> ToR-agg cables; plane -> speed -> agg-core cables.
  std::map<std::pair<int, int>, std::map<int, int>> tor_agg;
  std::map<int, std::map<int, int>> agg_core;
  std::map<int, std::vector<int>> aggs, cores;  // by plane
  std::map<int, std::pair<int, int>> segment_size;  // hosts, ToRs
  std::vector<bool> core_seen(bp.devices.size(), false);
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& dev = bp.devices[i];
    if (dev.pod != pod) continue;
    if (dev.role == Role::agg) aggs[dev.plane].push_back(static_cast<int>(i));
    if (dev.role == Role::host) ++segment_size[dev.segment].first;
    if (dev.role == Role::tor) ++segment_size[dev.segment].second;
  }
  for (const auto& c : bp.cables) {
    const Device& a = bp.devices[c.a_device];
    const Device& z = bp.devices[c.z_device];
    if (c.kind == CableKind::tor_agg && a.pod == pod) ++tor_agg[{a.segment, z.plane}][c.speed_gbps];
    if (c.kind == CableKind::agg_core && a.pod == pod) {
      ++agg_core[a.plane][c.speed_gbps];
      if (!core_seen[c.z_device]) {
        core_seen[c.z_device] = true;
        cores[a.plane].push_back(c.z_device);
      }
    }
  }
  auto agg_id = [&](int plane) { return dot_id(fmt::format("agg-p{}-{}", pod, plane_name(plane))); };
  auto core_id = [&](int plane) { return dot_id(fmt::format("core-{}", plane_name(plane))); };
  auto segment_id = [&](int segment) { return dot_id(fmt::format("segment-{}-{}", pod, segment)); };
  auto members = [&](const std::vector<int>& devices) {
    std::string first = bp.devices[devices.front()].name, last = bp.devices[devices.back()].name;
    return devices.size() == 1 ? first : fmt::format("{} .. {}", first, last);
  };

  std::string& s = d.dot;
  s += fmt::format("graph {} {{\n", dot_id(d.name));
  s += fmt::format("  label={}; labelloc=t; fontsize=24;\n",
                   dot_id(fmt::format("pod {}: {} segments, {} aggregation planes", pod, segments.size(),
                                      aggs.size())));
  s += "  ranksep=2; nodesep=0.3;\n";
  s += "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=Helvetica, fontsize=11];\n";
  s += "  edge [fontname=Helvetica, fontsize=9];\n";
  // Each tier on one rank, left to right in plane and segment order (invisible chains).
  auto in_order = [&](const std::vector<std::string>& ids) {
    if (ids.size() < 2) return std::string();
    return fmt::format("    {} [style=invis];\n", fmt::join(ids, " -- "));
  };
  std::vector<std::string> ids;
  s += "  { rank=same;\n";
  for (const auto& [plane, list] : cores) {
    ids.push_back(core_id(plane));
    s += fmt::format("    {} [label={}, color={}, penwidth=2];\n", core_id(plane),
                     dot_id(fmt::format("{} core\n{} switches\n{}", plane_name(plane), list.size(), members(list))),
                     dot_id(plane_color(plane)));
    ++d.nodes;
  }
  s += in_order(ids) + "  }\n  { rank=same;\n";
  ids.clear();
  for (const auto& [plane, list] : aggs) {
    ids.push_back(agg_id(plane));
    s += fmt::format("    {} [label={}, color={}, penwidth=2];\n", agg_id(plane),
                     dot_id(fmt::format("{} aggregation\n{} switches\n{}", plane_name(plane), list.size(),
                                        members(list))),
                     dot_id(plane_color(plane)));
    ++d.nodes;
  }
  s += in_order(ids) + "  }\n  { rank=same;\n";
  ids.clear();
  for (int segment : segments) {
    ids.push_back(segment_id(segment));
    auto [hosts, tors] = segment_size[segment];
    s += fmt::format("    {} [label={}];\n", segment_id(segment),
                     dot_id(fmt::format("segment {}\n{} hosts, {} ToRs", segment, hosts, tors)));
    ++d.nodes;
  }
  s += in_order(ids) + "  }\n";
  // Declared top-down (core, aggregation, segments) so dot ranks them that way.
  for (const auto& [plane, speeds] : agg_core) {
    if (!aggs.count(plane)) continue;
    s += fmt::format("  {} -- {} [label={}, color={}, penwidth=3];\n", core_id(plane), agg_id(plane),
                     dot_id(bundle_label(speeds)), dot_id(plane_color(plane)));
    ++d.edges;
  }
  for (const auto& [key, speeds] : tor_agg) {
    auto [segment, plane] = key;
    if (!std::binary_search(segments.begin(), segments.end(), segment) || !aggs.count(plane)) continue;
    s += fmt::format("  {} -- {} [label={}, color={}];\n", agg_id(plane), segment_id(segment),
                     dot_id(bundle_label(speeds)), dot_id(plane_color(plane)));
    ++d.edges;
  }
  s += "}\n";
  return d;
}

}  // namespace

std::vector<Diagram> build_diagrams(const Blueprint& bp, const ExportScope& scope) {
  // Each host's cables, so a segment's cables are found without a pass over all of them.
  std::vector<std::vector<int>> host_cables(bp.devices.size());
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (c.kind == CableKind::host_tor) host_cables[c.a_device].push_back(static_cast<int>(i));
  }
  std::map<std::pair<int, int>, SegmentDevices> segments;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& dev = bp.devices[i];
    if (dev.pod == kNone || dev.segment == kNone || !device_in_scope(dev, scope)) continue;
    if (dev.role == Role::host) segments[{dev.pod, dev.segment}].hosts.push_back(static_cast<int>(i));
    if (dev.role == Role::tor) segments[{dev.pod, dev.segment}].tors.push_back(static_cast<int>(i));
  }
  std::vector<Diagram> diagrams;
  for (int pod : pods_of(bp)) {
    if (scope.pod && pod != *scope.pod) continue;
    std::vector<int> in_pod;
    for (const auto& [key, members] : segments) {
      if (key.first == pod) in_pod.push_back(key.second);
    }
    if (!scope.segment) diagrams.push_back(pod_diagram(bp, pod, in_pod));
    for (int segment : in_pod) {
      diagrams.push_back(segment_diagram(bp, pod, segment, segments[{pod, segment}], host_cables));
    }
  }
  return diagrams;
}

}  // namespace hpn
