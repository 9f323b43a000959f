#include "planner/bom.h"

#include "planner/plant.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace hpn {
namespace {

bool optical(const std::string& media) { return is_fibre(media); }

// A cable's line: copper and AOC by speed; fibre by grade, connector and
// polarity, which the line also carries in its own columns.
BomLine cable_line(const MediaSpec& m, const std::string& media, int speed) {
  if (media == "dac") return {.category = "cable", .part = fmt::format("DAC {}G", speed), .media = media};
  if (media == "aoc") return {.category = "cable", .part = fmt::format("AOC {}G", speed), .media = media};
  const Connector connector = connector_for(m, media, speed);
  BomLine line{.category = "cable", .media = media};
  line.fibre = m.fibre_of(media);
  line.connector = std::string(to_string(connector));
  line.polarity = std::string(polarity_of(connector));
  line.part = fmt::format("{} {} patch cord {}G, polarity {}", line.fibre, line.connector, speed, line.polarity);
  return line;
}

}  // namespace

int stock_length_m(const std::vector<double>& bins_m, int length_m) {
  auto bin = std::find_if(bins_m.begin(), bins_m.end(), [&](double b) { return b >= length_m; });
  return bin == bins_m.end() ? length_m : static_cast<int>(std::ceil(*bin));
}

Result<std::vector<BomLine>> bill_of_materials(const Spec& spec, const Blueprint& bp) {
  using Key = std::tuple<int, std::string, std::string, int>;  // category order, part, media, length
  std::map<Key, int64_t> counts;

  for (const auto& d : bp.devices) {
    std::string part;
    switch (d.role) {
      case Role::host:
        part = fmt::format("host, {} GPUs, {} back-end NICs {}x{}G", spec.host.gpus,
                           spec.host.backend_nics, spec.host.ports_per_nic, spec.host.port_speed_gbps);
        break;
      case Role::tor: part = fmt::format("ToR switch {}x{}G", spec.tor.radix, spec.tor.port_speed_gbps); break;
      case Role::agg:
        part = fmt::format("aggregation switch {}x{}G", spec.aggregation.radix,
                           spec.aggregation.port_speed_gbps);
        break;
      case Role::core: part = fmt::format("core switch {}x{}G", spec.core.radix, spec.core.port_speed_gbps); break;
      case Role::frontend:
        part = fmt::format("front-end leaf {}x{}G", spec.frontend.radix, spec.frontend.port_speed_gbps);
        break;
    }
    ++counts[{0, part, "", 0}];
  }

  // A cable end's port, through its device's panel.
  std::vector<std::unordered_map<std::string_view, size_t>> by_name(bp.panels.size());
  for (size_t p = 0; p < bp.panels.size(); ++p) {
    for (size_t i = 0; i < bp.panels[p].ports.size(); ++i) by_name[p].emplace(bp.panels[p].ports[i].name, i);
  }
  auto port_index = [&](int device, std::string_view name) -> int {
    const auto& table = by_name[bp.devices[device].panel];
    auto it = table.find(name);
    return it == table.end() ? -1 : static_cast<int>(it->second);
  };
  std::map<std::pair<std::string, int>, std::string> parts;
  for (const auto& o : spec.media.optics) parts[{o.media, o.speed_gbps}] = o.part;

  // Counted by small integer keys first (hundreds of thousands of cables),
  // named once at the end.
  std::vector<std::string> media_names;
  auto media_index = [&](const std::string& m) -> uint64_t {
    for (size_t i = 0; i < media_names.size(); ++i) if (media_names[i] == m) return i;
    media_names.push_back(m);
    return media_names.size() - 1;
  };
  auto pack = [](uint64_t a, uint64_t b, uint64_t c, uint64_t d) { return a << 48 | b << 32 | c << 16 | d; };
  std::map<uint64_t, int64_t> cable_counts;  // media, speed, length bin
  std::map<uint64_t, int64_t> optic_counts;  // media, optic speed, fan-out, port speed
  std::unordered_set<uint64_t> cages_with_optic;

  auto optic = [&](const Cable& c, uint64_t media, int device, const std::string& port) -> Status {
    int speed = c.speed_gbps, fanout = 1;
    int index = port_index(device, port);
    if (index >= 0) {
      const Panel& panel = bp.panels[bp.devices[device].panel];
      const PanelPort& p = panel.ports[index];
      if (!p.breakout_of.empty()) {
        // A sub-port of a broken-out cage: one optic in the cage serves all.
        int cage = port_index(device, p.breakout_of);
        if (!cages_with_optic.insert(uint64_t(device) << 20 | uint64_t(cage & 0xfffff)).second) return {};
        if (cage >= 0) speed = panel.ports[cage].speed_gbps;
        fanout = speed / c.speed_gbps;
      }
    }
    if (!parts.count({c.media, speed})) {
      return Error{fmt::format("media.optics has no part for {} at {}G (needed by cable {})",
                               c.media, speed, c.id)};
    }
    ++optic_counts[pack(media, speed, fanout, c.speed_gbps)];
    return {};
  };

  for (const auto& c : bp.cables) {
    uint64_t media = media_index(c.media);
    if (c.patched()) {  // a cord at each end, lanes of trunks between (counted below)
      for (int i = c.first_leg; i < c.first_leg + c.legs; ++i) {
        const RunLeg& leg = bp.legs[i];
        if (leg.trunk == kNone) ++cable_counts[pack(media, c.speed_gbps, static_cast<uint64_t>(leg.stock_length_m), 0)];
      }
    } else {
      ++cable_counts[pack(media, c.speed_gbps, static_cast<uint64_t>(c.stock_length_m), 0)];
    }
    if (optical(c.media)) {
      if (auto st = optic(c, media, c.a_device, c.a_port); !st) return st.error();
      if (auto st = optic(c, media, c.z_device, c.z_port); !st) return st.error();
    }
  }
  auto field = [](uint64_t key, int n) { return static_cast<int>(key >> (48 - 16 * n) & 0xffff); };
  // The fibre columns of a line, by its part (one part, one fibre and connector).
  std::map<std::string, BomLine> fibre_of_part;
  for (const auto& [key, count] : cable_counts) {
    const std::string& media = media_names[field(key, 0)];
    BomLine line = cable_line(spec.media, media, field(key, 1));
    counts[{1, line.part, media, field(key, 2)}] += count;
    fibre_of_part.emplace(line.part, line);
  }
  for (const auto& [key, count] : optic_counts) {
    const std::string& media = media_names[field(key, 0)];
    int speed = field(key, 1), fanout = field(key, 2), port_speed = field(key, 3);
    std::string part = parts[{media, speed}];
    if (fanout > 1) part += fmt::format(" ({}x{}G breakout)", fanout, port_speed);
    counts[{2, part, media, 0}] += count;
    const Connector connector = connector_for(spec.media, media, speed);
    BomLine line{.category = "optic", .part = part, .media = media};
    line.fibre = spec.media.fibre_of(media);
    line.connector = std::string(to_string(connector));
    line.polarity = std::string(polarity_of(connector));
    fibre_of_part.emplace(part, line);
  }

  // Trunks, bought with media.trunk_lanes lanes whatever they carry; panels,
  // 1U of media.panel_ports ports per connector and fibre in each.
  auto fibre_line = [&](const char* category, const std::string& media, const std::string& connector,
                        const std::string& what) {
    Connector c = Connector::mpo12;
    (void)parse_connector(connector, c);
    BomLine line{.category = category, .media = media};
    line.fibre = spec.media.fibre_of(media);
    line.connector = connector;
    line.polarity = std::string(polarity_of(c));
    line.part = fmt::format("{} {} {}, polarity {}", line.fibre, connector, what, line.polarity);
    fibre_of_part.emplace(line.part, line);
    return line.part;
  };
  for (const auto& t : bp.trunks) {
    counts[{3, fibre_line("trunk", t.media, t.connector, fmt::format("trunk, {} lanes", spec.media.trunk_lanes)),
            t.media, t.stock_length_m}] += 1;
  }
  // A panel's ports are numbered for every run between its rows, patched
  // or not (planner/plant.h): it takes the 1U panels up to the highest port
  // a patched run uses, of the fibre and connector of its runs.
  struct PanelUse {
    int highest = 0;
    const Cable* cable = nullptr;
  };
  std::vector<PanelUse> used(bp.patch_panels.size());
  for (const auto& leg : bp.legs) {
    for (auto [panel, port] : {std::pair{leg.from_panel, leg.from_port}, std::pair{leg.to_panel, leg.to_port}}) {
      if (panel == kNone) continue;
      used[panel].highest = std::max(used[panel].highest, port);
      if (!used[panel].cable) used[panel].cable = &bp.cables[leg.cable];
    }
  }
  for (const auto& u : used) {
    if (!u.cable) continue;
    const std::string connector(to_string(connector_for(spec.media, u.cable->media, u.cable->speed_gbps)));
    const int64_t units = (u.highest + spec.media.panel_ports - 1) / spec.media.panel_ports;
    counts[{4, fibre_line("panel", u.cable->media, connector,
                          fmt::format("patch panel 1U, {} ports", spec.media.panel_ports)),
            u.cable->media, 0}] += units;
  }

  static const char* kCategory[] = {"device", "cable", "optic", "trunk", "panel"};
  std::vector<BomLine> lines;
  for (const auto& [key, count] : counts) {
    const auto& [category, part, media, length] = key;
    BomLine line{.category = kCategory[category], .part = part, .media = media, .length_m = length, .count = count};
    if (auto it = fibre_of_part.find(part); it != fibre_of_part.end()) {
      line.fibre = it->second.fibre;
      line.connector = it->second.connector;
      line.polarity = it->second.polarity;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace hpn
