#include "planner/bom.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace hpn {
namespace {

bool optical(const std::string& media) { return media == "mmf" || media == "smf"; }

std::string cable_part(const std::string& media, int speed) {
  if (media == "dac") return fmt::format("DAC {}G", speed);
  if (media == "aoc") return fmt::format("AOC {}G", speed);
  if (media == "mmf") return "MMF MPO patch cord";
  return "SMF LC patch cord";
}

}  // namespace

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

  // Finding a cable end's port: a device's ports are contiguous in bp.ports
  // and devices of one role share a panel, so a name -> offset table per role
  // (checked against the actual row, with a scan as the fallback) finds it.
  std::vector<size_t> first_port(bp.devices.size() + 1, bp.ports.size());
  for (size_t i = bp.ports.size(); i-- > 0;) first_port[bp.ports[i].device] = i;
  for (size_t d = bp.devices.size(); d-- > 0;) first_port[d] = std::min(first_port[d], first_port[d + 1]);
  std::map<Role, std::unordered_map<std::string, size_t>> offsets;
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    auto [it, fresh] = offsets.try_emplace(bp.devices[d].role);
    if (!fresh) continue;
    for (size_t i = first_port[d]; i < first_port[d + 1]; ++i) it->second.emplace(bp.ports[i].name, i - first_port[d]);
  }
  auto find_port = [&](int device, const std::string& name) -> const Port* {
    const auto& table = offsets[bp.devices[device].role];
    auto it = table.find(name);
    if (it != table.end()) {
      size_t i = first_port[device] + it->second;
      if (i < first_port[device + 1] && bp.ports[i].name == name) return &bp.ports[i];
    }
    for (size_t i = first_port[device]; i < first_port[device + 1]; ++i) {
      if (bp.ports[i].name == name) return &bp.ports[i];
    }
    return nullptr;
  };
  std::map<std::pair<std::string, int>, std::string> parts;
  for (const auto& o : spec.media.optics) parts[{o.media, o.speed_gbps}] = o.part;
  std::set<std::pair<int, std::string>> cages_with_optic;

  auto optic = [&](const Cable& c, int device, const std::string& port) -> Status {
    const Port* p = find_port(device, port);
    int speed = c.speed_gbps;
    std::string note;
    if (p && !p->breakout_of.empty()) {
      // A sub-port of a broken-out cage: one optic in the cage serves all.
      if (!cages_with_optic.insert({device, p->breakout_of}).second) return {};
      if (const Port* cage = find_port(device, p->breakout_of)) speed = cage->speed_gbps;
      note = fmt::format(" ({}x{}G breakout)", speed / c.speed_gbps, c.speed_gbps);
    }
    auto part = parts.find({c.media, speed});
    if (part == parts.end()) {
      return Error{fmt::format("media.optics has no part for {} at {}G (needed by cable {})",
                               c.media, speed, c.id)};
    }
    ++counts[{2, part->second + note, c.media, 0}];
    return {};
  };

  for (const auto& c : bp.cables) {
    int length = c.length_m;
    auto bin = std::find_if(spec.media.length_bins_m.begin(), spec.media.length_bins_m.end(),
                            [&](double b) { return b >= c.length_m; });
    if (bin != spec.media.length_bins_m.end()) length = static_cast<int>(std::ceil(*bin));
    ++counts[{1, cable_part(c.media, c.speed_gbps), c.media, length}];
    if (optical(c.media)) {
      if (auto st = optic(c, c.a_device, c.a_port); !st) return st.error();
      if (auto st = optic(c, c.z_device, c.z_port); !st) return st.error();
    }
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
