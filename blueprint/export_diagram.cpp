#include "blueprint/export_diagram.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "blueprint/diagram_style.h"
#include "blueprint/rail_diagram.h"

namespace hpn {

namespace {

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
  std::vector<LegendEntry> legend{{LegendEntry::Swatch::box, "black", "segment: its hosts and ToRs"}};
  for (const auto& [plane, list] : aggs) {
    legend.push_back({LegendEntry::Swatch::box, plane_color(plane), plane_name(plane) + " switches"});
  }
  for (const auto& [plane, list] : aggs) {
    legend.push_back({LegendEntry::Swatch::line, plane_color(plane), plane_name(plane) + " cables (count x speed)"});
  }
  s += fmt::format("  label={}; labelloc=t; labeljust=l; fontname=Helvetica;\n",
                   heading_with_legend(fmt::format("pod {}: {} segments, {} aggregation planes", pod,
                                                   segments.size(), aggs.size()),
                                       legend));
  s += "  ranksep=2; nodesep=0.15;\n";
  s += "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=Helvetica, fontsize=10];\n";
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
    // The uplinks on the node, not on 30 lines: labels on that many lines
    // would each take their own space and double the diagram's width.
    // In the plane's colour, as the lines are: the legend says which is which.
    std::string label = fmt::format("<segment {}<br/>{} hosts, {} ToRs", segment, hosts, tors);
    for (const auto& [plane, list] : aggs) {
      auto it = tor_agg.find({segment, plane});
      if (it == tor_agg.end()) continue;
      label += fmt::format("<br/><font color=\"{}\">{}</font>", plane_color(plane), bundle_label(it->second));
    }
    s += fmt::format("    {} [label={}>, margin=\"0.04,0.03\"];\n", segment_id(segment), label);
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
    s += fmt::format("  {} -- {} [tooltip={}, color={}, penwidth=1.5];\n", agg_id(plane), segment_id(segment),
                     dot_id(fmt::format("segment {} - {}: {}", segment, plane_name(plane), bundle_label(speeds))),
                     dot_id(plane_color(plane)));
    ++d.edges;
  }
  s += "}\n";
  return d;
}

}  // namespace

std::vector<Diagram> build_diagrams(const Blueprint& bp, const ExportScope& scope) {
  // Each ToR's host cables, so a rail's cables are found without a pass over all of them.
  std::vector<std::vector<int>> tor_cables(bp.devices.size());
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (c.kind == CableKind::host_tor) tor_cables[c.z_device].push_back(static_cast<int>(i));
  }
  struct SegmentDevices {
    std::vector<int> hosts, tors;
  };
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
      std::map<int, std::vector<int>> rails;
      for (int t : segments[{pod, segment}].tors) rails[bp.devices[t].rail].push_back(t);
      for (const auto& [rail, tors] : rails) diagrams.push_back(rail_diagram(bp, pod, segment, rail, tors, tor_cables));
    }
  }
  return diagrams;
}

}  // namespace hpn
