#include "cli/impact_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/store.h"
#include "blueprint/target.h"
#include "cli/completion.h"
#include "cli/exit.h"
#include "blueprint/diagnostics.h"
#include "planner/impact.h"
#include "planner/impact_output.h"

namespace hpn::cli {

namespace {

struct ImpactArgs {
  std::vector<std::string> targets;
  std::string blueprint = "hpn-plan";
  std::string format = "table";
};

// " (did you mean 'X'?)" for a device or port name the plan lacks, or "".
std::string suggestion(const FabricIndex& index, const std::string& text) {
  const auto colon = text.find(':');
  const std::string device = text.substr(0, colon);
  const Blueprint& bp = index.blueprint();
  std::vector<std::string> names;
  std::string typed = device;
  const int d = index.device_by_name(device);
  if (d < 0) {
    for (const auto& dev : bp.devices) names.push_back(dev.name);
  } else if (colon != std::string::npos) {
    for (const auto& p : bp.panels[bp.devices[d].panel].ports) names.push_back(p.name);
    typed = text.substr(colon + 1);
  }
  const std::string guess = closest_match(typed, names);
  return guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess);
}

int run(const ImpactArgs& a) {
  if (a.format != "table" && a.format != "json") {
    return fail(kInputError, fmt::format("impact: --format '{}': table or json", a.format));
  }
  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  const FabricIndex index(bp.value());
  std::unordered_map<std::string, int> cable_index;
  for (size_t i = 0; i < bp->cables.size(); ++i) cable_index.emplace(bp->cables[i].id, static_cast<int>(i));

  // Every name first: one that does not resolve stops the command before any output.
  std::vector<Failure> failures;
  for (size_t i = 0; i < a.targets.size(); ++i) {
    const std::string& text = a.targets[i];
    const std::string where = fmt::format("impact: argument {} '{}'", i + 1, text);
    auto target = find_target(store.value(), text);
    if (!target) return fail(kInputError, fmt::format("{}: {}{}", where, target.error().message, suggestion(index, text)));
    if (target->is_device()) {
      failures.push_back({Failure::Kind::device, index.device_by_name(target->device)});
      continue;
    }
    if (target->cables.empty()) return fail(kInputError, fmt::format("{}: the port has no cable to fail", where));
    for (const auto& c : target->cables) failures.push_back({Failure::Kind::cable, cable_index.at(c.cable_id)});
  }

  const ImpactReport report = assess_impact(bp.value(), failures);
  if (a.format == "json") {
    std::cout << impact_json(bp.value(), report).dump(2) << '\n';
  } else {
    render_impact_table(bp.value(), report, std::cout);
  }
  // A host cut off a rail is the finding a script asks about.
  return report.hosts_dark_on_a_rail() > 0 ? kFindings : kOk;
}

}  // namespace

void add_impact_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ImpactArgs>();
  auto* cmd = app.add_subcommand("impact", "What failing cables or devices costs: hosts, capacity, redundancy");
  with_devices(cmd->add_option("targets", args->targets,
                               "Cables and devices that fail together: a cable ID or label, DEVICE:PORT, or DEVICE"))
      ->required();
  cmd->add_option("--blueprint", args->blueprint, "Plan directory")->capture_default_str();
  with_values(cmd->add_option("--format", args->format, "table or json"), {"table", "json"})->capture_default_str();
  cmd->footer("Exit status: 0 no host loses every path on a rail, 1 some host does, 2 usage or input error.");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace hpn::cli
