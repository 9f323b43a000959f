#include "cli/query_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "cli/completion.h"
#include "cli/exit.h"

#include "blueprint/pull_list.h"
#include "blueprint/render.h"
#include "blueprint/store.h"
#include "blueprint/target.h"
#include "blueprint/diagnostics.h"
#include "planner/plant.h"
#include "planner/spec_loader.h"

namespace hpn::cli {

namespace {

struct QueryOptions {
  std::string blueprint = "hpn-plan";
  std::string format = "table";
};

struct DeviceOptions : QueryOptions {
  hpn::DeviceFilter filter;
  std::string role, state, rack;
  int pod = -1, segment = -1, plane = -1, rail = -1;
};

struct CableOptions : QueryOptions {
  std::string kind, state, rack;
  int pod = -1, segment = -1;
};

// A value the plan has no device of is a mistake, never an empty list.
// Empty when each given value (-1: not given) is in its range, else the message.
std::string out_of_range(const std::vector<std::tuple<const char*, int, std::pair<int, int>>>& checks) {
  for (const auto& [name, value, range] : checks) {
    if (value == -1) continue;
    if (range.first == hpn::kNone || value < range.first || value > range.second) {
      return range.first == hpn::kNone
                 ? fmt::format("{} {}: the plan has none", name, value)
                 : fmt::format("{} {}: the plan has {} to {}", name, value, range.first, range.second);
    }
  }
  return "";
}

// The racks in floor order; an unknown `rack` (when given) is a mistake
// told with the closest name and the plan's range of racks.
hpn::Result<std::vector<hpn::Rack>> floor_of(const hpn::BlueprintStore& store, const std::string& rack) {
  auto floor = store.racks();
  if (!floor || rack.empty()) return floor;
  std::vector<std::string> names;
  for (const auto& r : floor.value()) names.push_back(r.name);
  if (std::find(names.begin(), names.end(), rack) != names.end()) return floor;
  if (names.empty()) return hpn::Error{fmt::format("--rack {}: the plan has no racks", rack)};
  const std::string guess = hpn::closest_match(rack, names);
  return hpn::Error{fmt::format("--rack {}: no such rack{}; the plan has {} racks, {} to {}", rack,
                                guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess), names.size(),
                                names.front(), names.back())};
}

int run_devices(DeviceOptions o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail(kInputError, "--format must be table, json or csv");
  hpn::Role role;
  if (!o.role.empty() && !hpn::parse_role(o.role, role)) {
    return fail(kInputError, fmt::format("--role '{}': one of host, tor, agg, core, frontend", o.role));
  }
  if (!o.state.empty() && o.state != "active" && o.state != "backup") {
    return fail(kInputError, fmt::format("--state '{}': active or backup", o.state));
  }
  if (!o.role.empty()) o.filter.role = o.role;
  if (!o.state.empty()) o.filter.state = o.state;
  if (o.pod >= 0) o.filter.pod = o.pod;
  if (o.segment >= 0) o.filter.segment = o.segment;
  if (o.plane >= 0) o.filter.plane = o.plane;
  if (o.rail >= 0) o.filter.rail = o.rail;
  if (!o.rack.empty()) o.filter.rack = o.rack;
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto ranges = store->ranges();
  if (!ranges) return fail(kInputError, ranges.error().message);
  if (auto bad = out_of_range({{"--pod", o.pod, ranges->pod},
                               {"--segment", o.segment, ranges->segment},
                               {"--plane", o.plane, ranges->plane},
                               {"--rail", o.rail, ranges->rail}});
      !bad.empty()) {
    return fail(kInputError, bad);
  }
  auto floor = floor_of(store.value(), o.rack);
  if (!floor) return fail(kInputError, floor.error().message);
  auto rows = store->devices(o.filter);
  if (!rows) return fail(kInputError, rows.error().message);
  // A rack's devices as they are racked, unit by unit.
  if (!o.rack.empty()) hpn::sort_by_place(rows.value(), floor.value());
  hpn::render_devices(rows.value(), format, std::cout);
  return kOk;
}

int run_cables(const CableOptions& o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail(kInputError, "--format must be table, json or csv");
  hpn::CableKind kind;
  if (!o.kind.empty() && !hpn::parse_cable_kind(o.kind, kind)) {
    return fail(kInputError, fmt::format("--kind '{}': one of host-tor, tor-agg, agg-core, frontend", o.kind));
  }
  if (!o.state.empty() && o.state != "active" && o.state != "backup") {
    return fail(kInputError, fmt::format("--state '{}': active or backup", o.state));
  }
  hpn::CableFilter filter;
  if (!o.kind.empty()) filter.kind = o.kind;
  if (!o.state.empty()) filter.state = o.state;
  if (!o.rack.empty()) filter.rack = o.rack;
  if (o.pod >= 0) filter.pod = o.pod;
  if (o.segment >= 0) filter.segment = o.segment;
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto ranges = store->ranges();
  if (!ranges) return fail(kInputError, ranges.error().message);
  if (auto bad = out_of_range({{"--pod", o.pod, ranges->pod}, {"--segment", o.segment, ranges->segment}});
      !bad.empty()) {
    return fail(kInputError, bad);
  }
  auto floor = floor_of(store.value(), o.rack);
  if (!floor) return fail(kInputError, floor.error().message);
  auto rows = store->cables(filter);
  if (!rows) return fail(kInputError, rows.error().message);
  const auto list = hpn::pull_list(std::move(rows.value()), floor.value(),
                                   o.rack.empty() ? std::nullopt : std::optional<std::string>(o.rack));
  hpn::render_pull_list(list, format, std::cout);
  return kOk;
}

// The optic in each end's cage, as the BOM counts them: the spec's part for
// the cable's media at the cage's speed (a breakout lane's cage carries one
// optic for all its lanes: "QSFP-DD-400G-SR8 (2 x 200G)"); none on copper.
hpn::Status add_optics(const hpn::BlueprintStore& store, std::vector<hpn::CableRow>& cables) {
  auto yaml = store.meta("spec_yaml");
  if (!yaml) return yaml.error();
  auto spec = hpn::load_spec(yaml.value(), "the blueprint's spec");
  if (!spec) return hpn::Error{"the blueprint's spec does not load: re-plan"};
  std::map<std::pair<std::string, int>, std::string> parts;
  for (const auto& o : spec->media.optics) parts[{o.media, o.speed_gbps}] = o.part;
  auto optic = [&](const std::string& media, int speed, const std::string& device,
                   const std::string& port) -> hpn::Result<std::string> {
    if (!hpn::is_fibre(media)) return std::string();
    auto info = store.port_info(device, port);
    if (!info) return info.error();
    int cage_speed = speed;
    std::string lanes;
    if (*info && !(*info)->breakout_of.empty()) {
      auto cage = store.port_info(device, (*info)->breakout_of);
      if (!cage) return cage.error();
      if (*cage && (*cage)->speed_gbps > speed) {
        cage_speed = (*cage)->speed_gbps;
        lanes = fmt::format(" ({} x {}G)", cage_speed / speed, speed);
      }
    }
    auto it = parts.find({media, cage_speed});
    return it == parts.end() ? std::string() : it->second + lanes;
  };
  for (auto& c : cables) {
    auto a = optic(c.media, c.speed_gbps, c.a_device, c.a_port);
    if (!a) return a.error();
    auto z = optic(c.media, c.speed_gbps, c.z_device, c.z_port);
    if (!z) return z.error();
    c.a_optic = a.value();
    c.z_optic = z.value();
  }
  return {};
}

int run_cable(const std::string& text, const QueryOptions& o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail(kInputError, "--format must be table, json or csv");
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto target = hpn::find_target(store.value(), text);
  if (!target) return fail(kInputError, target.error().message);
  if (target->cables.empty() && format == hpn::OutputFormat::table) {
    std::cout << fmt::format("{}{} has no cable\n", target->device, target->port ? ":" + *target->port : "");
    return kOk;
  }
  if (auto st = add_optics(store.value(), target->cables); !st) return fail(kInputError, st.error().message);
  hpn::render_cables(target->device, target->cables, format, std::cout);
  return kOk;
}

}  // namespace

void add_query_commands(CLI::App& app, int& exit_code) {
  auto dev = std::make_shared<DeviceOptions>();
  auto* dev_cmd = app.add_subcommand("devices", "List devices of a plan, filtered");
  dev_cmd->add_option("--blueprint", dev->blueprint, "Plan directory")->capture_default_str();
  with_values(dev_cmd->add_option("--role", dev->role, "host, tor, agg, core or frontend"), {"host", "tor", "agg", "core", "frontend"});
  with_values(dev_cmd->add_option("--state", dev->state, "active or backup"), {"active", "backup"});
  dev_cmd->add_option("--pod", dev->pod, "Pod (0-based)");
  dev_cmd->add_option("--segment", dev->segment, "Segment within the pod (0-based)");
  dev_cmd->add_option("--plane", dev->plane, "Plane (1 or 2)");
  dev_cmd->add_option("--rail", dev->rail, "Rail (1-based, = back-end NIC)");
  dev_cmd->add_option("--rack", dev->rack, "Rack by name (racks.csv); sorted by unit");
  with_values(dev_cmd->add_option("--format", dev->format, "table, json or csv"), {"table", "json", "csv"})->capture_default_str();

  auto cables = std::make_shared<CableOptions>();
  auto* cables_cmd = app.add_subcommand("cables", "List cables as a pull list, rack by rack and unit by unit");
  cables_cmd->add_option("--blueprint", cables->blueprint, "Plan directory")->capture_default_str();
  with_values(cables_cmd->add_option("--kind", cables->kind, "host-tor, tor-agg, agg-core or frontend"),
              {"host-tor", "tor-agg", "agg-core", "frontend"});
  with_values(cables_cmd->add_option("--state", cables->state, "active or backup"), {"active", "backup"});
  cables_cmd->add_option("--pod", cables->pod, "With an end in the pod (0-based)");
  cables_cmd->add_option("--segment", cables->segment, "With an end in the segment (0-based)");
  cables_cmd->add_option("--rack", cables->rack, "With an end in the rack, seen from that end");
  with_values(cables_cmd->add_option("--format", cables->format, "table, json or csv"), {"table", "json", "csv"})
      ->capture_default_str();

  auto cable = std::make_shared<QueryOptions>();
  auto cable_target = std::make_shared<std::string>();
  auto* cable_cmd = app.add_subcommand("cable", "Show the cables of a device or port and their far ends");
  with_devices(cable_cmd->add_option("target", *cable_target,
                                     "DEVICE, DEVICE:PORT (a cage's name gives its breakout lanes), a cable ID (C0H00001) "
                                     "or its label"))
      ->required();
  cable_cmd->add_option("--blueprint", cable->blueprint, "Plan directory")->capture_default_str();
  with_values(cable_cmd->add_option("--format", cable->format, "table, json or csv"), {"table", "json", "csv"})->capture_default_str();

  dev_cmd->callback([dev, &exit_code] { exit_code = run_devices(*dev); });
  cables_cmd->callback([cables, &exit_code] { exit_code = run_cables(*cables); });
  cable_cmd->callback([cable, cable_target, &exit_code] { exit_code = run_cable(*cable_target, *cable); });
}

}  // namespace hpn::cli
