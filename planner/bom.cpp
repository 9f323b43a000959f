#include "planner/bom.h"

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

bool optical(const std::string& media) { return media == "mmf" || media == "smf"; }

std::string cable_part(const std::string& media, int speed) {
  if (media == "dac") return fmt::format("DAC {}G", speed);
  if (media == "aoc") return fmt::format("AOC {}G", speed);
  if (media == "mmf") return fmt::format("MMF MPO patch cord {}G", speed);
  return fmt::format("SMF patch cord {}G", speed);
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
    ++cable_counts[pack(media, c.speed_gbps, static_cast<uint64_t>(c.stock_length_m), 0)];
    if (optical(c.media)) {
      if (auto st = optic(c, media, c.a_device, c.a_port); !st) return st.error();
      if (auto st = optic(c, media, c.z_device, c.z_port); !st) return st.error();
    }
  }
  auto field = [](uint64_t key, int n) { return static_cast<int>(key >> (48 - 16 * n) & 0xffff); };
  for (const auto& [key, count] : cable_counts) {
    const std::string& media = media_names[field(key, 0)];
    counts[{1, cable_part(media, field(key, 1)), media, field(key, 2)}] += count;
  }
  for (const auto& [key, count] : optic_counts) {
    const std::string& media = media_names[field(key, 0)];
    int speed = field(key, 1), fanout = field(key, 2), port_speed = field(key, 3);
    std::string part = parts[{media, speed}];
    if (fanout > 1) part += fmt::format(" ({}x{}G breakout)", fanout, port_speed);
    counts[{2, part, media, 0}] += count;
  }

  static const char* kCategory[] = {"device", "cable", "optic"};
  std::vector<BomLine> lines;
  for (const auto& [key, count] : counts) {
    const auto& [category, part, media, length] = key;
    lines.push_back({kCategory[category], part, media, length, count});
  }
  return lines;
}

}  // namespace hpn
