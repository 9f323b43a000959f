#include "blueprint/rail_diagram.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "blueprint/diagram_style.h"

namespace hpn {

namespace {

constexpr const char* kBackupFill = "#dddddd";

// A rack's cables to one ToR: one line in the diagram.
struct Bundle {
  int cables = 0, backups = 0;
  std::map<int, int> count_by_speed;
  std::vector<std::string> cable_lines;  // the tooltip: "C0H00001 host:port - tor:port"
};

struct HostRow {
  int host = 0;
  std::vector<std::string> ports;  // the ToR port of each of the rail's ToRs, "" if none
};

struct RackBox {
  int rack = kNone;
  std::vector<HostRow> hosts;   // top of the rack first
  std::vector<Bundle> bundles;  // one per ToR of the rail
};

// Floor order: hall, row, position; hosts without a rack last.
std::tuple<int, int, int> floor_place(const Blueprint& bp, int rack) {
  if (rack == kNone) return {INT32_MAX, INT32_MAX, INT32_MAX};
  const Rack& r = bp.racks[rack];
  return {r.hall, r.row, r.position};
}

std::string rack_name(const Blueprint& bp, int rack) { return rack == kNone ? "no rack" : bp.racks[rack].name; }

// The hosts' names without what they all share up to its last '-'
// ("host-p0-s00-"), so a rack's box stays narrow; the title names the prefix.
size_t common_prefix(const Blueprint& bp, const std::vector<RackBox>& racks) {
  const std::string* first = nullptr;
  size_t length = std::string::npos;
  for (const auto& box : racks) {
    for (const auto& row : box.hosts) {
      const std::string& name = bp.devices[row.host].name;
      if (!first) {
        first = &name;
        length = name.size();
        continue;
      }
      size_t n = 0;
      while (n < length && n < name.size() && name[n] == (*first)[n]) ++n;
      length = n;
    }
  }
  if (!first) return 0;
  size_t dash = first->rfind('-', length == 0 ? 0 : length - 1);
  return dash == std::string::npos || length == 0 ? 0 : dash + 1;
}

// The rack as a table: its name, a row per host (unit, host, ToR port), and
// a cell per ToR (port tK) where that ToR's line starts; the cells on the
// side facing the ToRs.
std::string rack_label(const Blueprint& bp, const RackBox& box, const std::vector<int>& tors, size_t prefix,
                       bool above_tors) {
  std::string cells;
  for (size_t k = 0; k < tors.size(); ++k) {
    const Bundle& b = box.bundles[k];
    if (b.cables == 0) continue;
    cells += fmt::format("<td port=\"t{}\" bgcolor=\"{}\"><font color=\"white\" point-size=\"8\">{}</font></td>", k,
                         plane_color(bp.devices[tors[k]].plane), bundle_label(b.count_by_speed));
  }
  std::string bundles = fmt::format(
      "<tr><td colspan=\"3\" cellpadding=\"0\"><table border=\"0\" cellborder=\"0\" cellspacing=\"2\" "
      "cellpadding=\"1\"><tr>{}</tr></table></td></tr>",
      cells);
  std::string s = "<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"2\" bgcolor=\"white\">";
  if (!above_tors) s += bundles;
  s += fmt::format("<tr><td colspan=\"3\"><b>{}</b></td></tr>", html_text(rack_name(bp, box.rack)));
  for (const auto& row : box.hosts) {
    const Device& host = bp.devices[row.host];
    std::string fill = host.state == State::backup ? fmt::format(" bgcolor=\"{}\"", kBackupFill) : "";
    // Both ToRs of a pair give a host the same port number: say it once.
    std::vector<std::string> ports;
    for (const auto& p : row.ports) {
      if (!p.empty() && std::find(ports.begin(), ports.end(), p) == ports.end()) ports.push_back(p);
    }
    s += fmt::format(
        "<tr><td align=\"left\"{0}>{1}</td><td align=\"left\"{0}>{2}</td><td align=\"left\"{0}>{3}</td></tr>", fill,
        host.ru == kNone ? "" : fmt::format("U{:02}", host.ru), html_text(std::string_view(host.name).substr(prefix)),
        html_text(fmt::format("{}", fmt::join(ports, "/"))));
  }
  if (above_tors) s += bundles;
  return s + "</table>>";
}

// An invisible line through the nodes, in order: keeps them left to right.
std::string in_order(const std::vector<std::string>& ids) {
  if (ids.size() < 2) return "";
  return fmt::format("    {} [style=invis];\n", fmt::join(ids, " -- "));
}

// What a rail's diagram shows, before it is DOT.
struct RailPicture {
  std::vector<int> tors;                   // left to right: plane 1 first
  std::vector<RackBox> boxes;              // floor order
  std::vector<std::vector<size_t>> bands;  // boxes side by side, top band first
  size_t bands_above = 0;                  // bands above the ToRs; the rest are below
  int hosts = 0, backups = 0, cables = 0;
};

RailPicture lay_out_rail(const Blueprint& bp, const std::vector<int>& rail_tors,
                         const std::vector<std::vector<int>>& cables) {
  RailPicture picture;
  std::vector<int>& tors = picture.tors;
  std::vector<RackBox>& boxes = picture.boxes;
  std::vector<std::vector<size_t>>& rows = picture.bands;
  // Plane 1 left of plane 2, a ToR without a plane last.
  tors = rail_tors;
  auto plane_order = [&](int t) {
    int plane = bp.devices[t].plane;
    return std::pair(plane == kNone ? INT32_MAX : plane, bp.devices[t].name);
  };
  std::sort(tors.begin(), tors.end(), [&](int a, int b) { return plane_order(a) < plane_order(b); });

  std::map<int, size_t> box_of_rack;
  std::map<int, std::pair<size_t, size_t>> place_of_host;  // host -> its box and row in it
  for (size_t k = 0; k < tors.size(); ++k) {
    for (int ci : cables[tors[k]]) {
      const Cable& c = bp.cables[ci];
      const Device& host = bp.devices[c.a_device];
      auto [box_it, new_box] = box_of_rack.try_emplace(host.rack, boxes.size());
      if (new_box) {
        boxes.push_back({});
        boxes.back().rack = host.rack;
        boxes.back().bundles.resize(tors.size());
      }
      RackBox& box = boxes[box_it->second];
      auto [place, new_host] = place_of_host.try_emplace(c.a_device, box_it->second, box.hosts.size());
      if (new_host) box.hosts.push_back({c.a_device, std::vector<std::string>(tors.size())});
      HostRow& row = box.hosts[place->second.second];
      if (!row.ports[k].empty()) row.ports[k] += "/";
      row.ports[k] += c.z_port;
      Bundle& b = box.bundles[k];
      ++b.cables;
      b.backups += c.state == State::backup;
      ++b.count_by_speed[c.speed_gbps];
      b.cable_lines.push_back(
          fmt::format("{} {}:{} - {}:{}", c.id, host.name, c.a_port, bp.devices[tors[k]].name, c.z_port));
      ++picture.cables;
    }
  }
  // Racks in floor order, hosts top of the rack first, as a technician facing it sees them.
  std::sort(boxes.begin(), boxes.end(),
            [&](const RackBox& a, const RackBox& b) { return floor_place(bp, a.rack) < floor_place(bp, b.rack); });
  for (auto& box : boxes) {
    std::sort(box.hosts.begin(), box.hosts.end(), [&](const HostRow& a, const HostRow& b) {
      const Device &x = bp.devices[a.host], &y = bp.devices[b.host];
      if (x.ru != y.ru) return x.ru > y.ru;
      return x.name < y.name;
    });
    picture.hosts += static_cast<int>(box.hosts.size());
    for (const auto& row : box.hosts) picture.backups += bp.devices[row.host].state == State::backup;
  }
  // Rack rows: the first half above the ToRs, the rest below, so no row's
  // lines have to cross another row of racks when there are two.
  auto floor_row = [&](size_t box) {
    auto place = floor_place(bp, boxes[box].rack);
    return std::pair(std::get<0>(place), std::get<1>(place));
  };
  for (size_t i = 0; i < boxes.size(); ++i) {
    if (i == 0 || floor_row(i) != floor_row(i - 1)) rows.emplace_back();
    rows.back().push_back(i);
  }
  // A segment in one long row (the single-ToR baseline: 17 racks) is cut in
  // two halves all the same, or it is a strip again.
  constexpr size_t kRacksInOneBand = 9;
  if (rows.size() == 1 && rows[0].size() > kRacksInOneBand) {
    std::vector<size_t> second(rows[0].begin() + (rows[0].size() + 1) / 2, rows[0].end());
    rows[0].resize(rows[0].size() - second.size());
    rows.push_back(second);
  }
  picture.bands_above = (rows.size() + 1) / 2;
  return picture;
}

}  // namespace

Diagram rail_diagram(const Blueprint& bp, int pod, int segment, int rail, const std::vector<int>& rail_tors,
                     const std::vector<std::vector<int>>& cables) {
  Diagram d;
  d.name = fmt::format("segment-{}-{}-rail-{}", pod, segment, rail);
  d.kind = "segment";
  d.pod = pod;
  d.segment = segment;
  d.rail = rail;
  const RailPicture picture = lay_out_rail(bp, rail_tors, cables);
  const auto& tors = picture.tors;
  const auto& boxes = picture.boxes;
  const auto& rows = picture.bands;
  const size_t rows_above = picture.bands_above;
  const size_t prefix = common_prefix(bp, boxes);
  d.cables = picture.cables;

  auto count = [](size_t n, const char* one) { return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s"); };
  std::string title = fmt::format("pod {}, segment {}, rail {}: {} ({} backup) in {}, {}, {}", pod, segment, rail,
                                  count(picture.hosts, "host"), picture.backups, count(boxes.size(), "rack"),
                                  count(tors.size(), "ToR"), count(d.cables, "host-ToR cable"));
  if (prefix > 0 && !boxes.empty()) {
    title += fmt::format("; hosts named {}...", bp.devices[boxes.front().hosts.front().host].name.substr(0, prefix));
  }
  std::vector<LegendEntry> legend{{LegendEntry::Swatch::box, "black", "host rack: unit, host, ToR port"}};
  std::vector<int> planes;
  for (int t : tors) {
    int plane = bp.devices[t].plane;
    if (std::find(planes.begin(), planes.end(), plane) == planes.end()) planes.push_back(plane);
  }
  for (int plane : planes) {
    legend.push_back({LegendEntry::Swatch::box, plane_color(plane), "ToR, " + plane_name(plane)});
  }
  for (int plane : planes) {
    legend.push_back({LegendEntry::Swatch::line, plane_color(plane), plane_name(plane) + " cables of a rack"});
  }
  bool backup_bundle = false;
  for (const auto& box : boxes) {
    for (const auto& b : box.bundles) backup_bundle |= b.cables > 0 && b.backups == b.cables;
  }
  if (picture.backups > 0) legend.push_back({LegendEntry::Swatch::filled_box, kBackupFill, "backup host"});
  if (backup_bundle) legend.push_back({LegendEntry::Swatch::dashed_line, "#555555", "backup cables"});

  std::string& s = d.dot;
  s += fmt::format("graph {} {{\n", dot_id(d.name));
  s += fmt::format("  label={}; labelloc=t; labeljust=l;\n", heading_with_legend(title, legend));
  // Straight lines: each can be followed from its rack to its ToR, where
  // curves routed around one another cross many times more.
  s += "  fontname=Helvetica; nodesep=0.15; ranksep=1.4; splines=line;\n";
  s += "  node [shape=plain, fontname=Helvetica, fontsize=9];\n";
  s += "  edge [penwidth=1.2];\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> ids;
    s += "  { rank=same;\n";
    for (size_t i : rows[r]) {
      std::string id = dot_id(rack_name(bp, boxes[i].rack));
      ids.push_back(id);
      s += fmt::format("    {} [label={}];\n", id, rack_label(bp, boxes[i], tors, prefix, r < rows_above));
      ++d.nodes;
    }
    s += in_order(ids) + "  }\n";
  }
  std::vector<std::string> tor_ids;
  s += "  { rank=same;\n";
  for (int t : tors) {
    const Device& tor = bp.devices[t];
    std::string where = tor.rack == kNone ? "" : bp.racks[tor.rack].name;
    if (tor.ru != kNone) where += fmt::format(" U{}", tor.ru);
    tor_ids.push_back(dot_id(tor.name));
    s +=
        fmt::format("    {} [label={}, shape=box, style=filled, fillcolor=white, color={}, penwidth=2, fontsize=12];\n",
                    dot_id(tor.name), dot_id(fmt::format("{}\n{}\n{}", tor.name, plane_name(tor.plane), where)),
                    dot_id(plane_color(tor.plane)));
    ++d.nodes;
  }
  s += in_order(tor_ids) + "  }\n";
  // Lines run from the racks above down to the ToRs and from the ToRs down
  // to the racks below: the tail is what dot ranks first.
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i : rows[r]) {
      const RackBox& box = boxes[i];
      std::string rack = dot_id(rack_name(bp, box.rack));
      for (size_t k = 0; k < tors.size(); ++k) {
        const Bundle& b = box.bundles[k];
        if (b.cables == 0) continue;
        std::string attrs = fmt::format("color={}, tooltip={}{}", dot_id(plane_color(bp.devices[tors[k]].plane)),
                                        dot_id(fmt::format("{}", fmt::join(b.cable_lines, "\n"))),
                                        b.backups == b.cables ? ", style=dashed" : "");
        if (r < rows_above) {
          s += fmt::format("  {}:t{}:s -- {}:n [{}];\n", rack, k, tor_ids[k], attrs);
        } else {
          s += fmt::format("  {}:s -- {}:t{}:n [{}];\n", tor_ids[k], rack, k, attrs);
        }
        ++d.edges;
      }
    }
  }
  s += "}\n";
  return d;
}

}  // namespace hpn
