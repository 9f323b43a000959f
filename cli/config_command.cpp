#include "cli/config_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "blueprint/store.h"
#include "cli/completion.h"
#include "cli/exit.h"
#include "cli/progress.h"
#include "blueprint/diagnostics.h"
#include "switchconfig/config_db.h"
#include "switchconfig/config_set.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/linux_sysctl.h"

namespace hpn::cli {

namespace {

struct ConfigArgs {
  std::string device;
  bool all = false;
  std::string output;
  std::string blueprint = "hpn-plan";
  std::string format = "frr";
  bool bring_up = false;
};

int run(const ConfigArgs& a, const Verbosity& verbosity) {
  using namespace hpn::switchconfig;
  if (a.all == !a.device.empty()) return fail(kInputError, "name one SWITCH, or give --all -o DIR");
  if (a.all && a.output.empty()) return fail(kInputError, "--all writes every switch's configuration: give -o DIR");
  if (!a.all && !a.output.empty()) {
    return fail(kInputError, "-o DIR goes with --all; one switch's configuration goes to stdout");
  }
  if (a.format != "frr" && a.format != "sonic" && a.format != "json" && a.format != "sysctl") {
    return fail(kInputError, fmt::format("--format '{}': one of frr, sonic, json, sysctl", a.format));
  }
  if (a.all) {
    if (auto target = check_config_target(a.output); !target) return fail(kInputError, target.error().message);
  }
  Progress progress(verbosity);
  progress.phase("reading the blueprint");
  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  auto builder = ConfigBuilder::create(bp.value(), {.bring_up = a.bring_up});
  if (!builder) return fail(kInputError, builder.error().message);

  if (a.all) {
    progress.phase("writing switch configurations");
    auto written = write_config_set(bp.value(), builder.value(), a.output, [&](int done, int total) {
      if (progress.terminal()) progress.status(fmt::format("{} of {} switches", done, total));
    });
    progress.finish();
    if (!written) return fail(kEnvironmentError, written.error().message);
    if (!verbosity.quiet) {
      std::cout << fmt::format("wrote {} switch configurations ({} files, {:.1f} MB) to {}/\n", written->switches,
                               written->files, static_cast<double>(written->bytes) / 1e6, a.output);
    }
    return kOk;
  }
  progress.finish();
  const int device = builder->find(a.device);
  if (device < 0) {
    std::vector<std::string> names;
    for (int d : builder->switches()) names.push_back(bp->devices[d].name);
    for (const auto& d : bp->devices) {
      if (d.name == a.device) {
        return fail(kInputError, fmt::format("{} is a host, not a switch; its configuration is "
                                             "'hpnctl profile {}'", a.device, a.device));
      }
    }
    const std::string guess = closest_match(a.device, names);
    return fail(kInputError, fmt::format("no switch '{}' in {}{}", a.device, store->path(),
                                         guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
  }
  const SwitchConfig config = builder->build(device);
  if (a.format == "frr") {
    std::cout << frr_conf(config);
  } else if (a.format == "sonic") {
    std::cout << config_db(config);
  } else if (a.format == "sysctl") {
    std::cout << sysctl_conf(config);
  } else {
    std::cout << config_json(config).dump(2) << '\n';
  }
  return kOk;
}

}  // namespace

void add_config_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ConfigArgs>();
  auto* cmd = app.add_subcommand("config", "Switch configurations: FRR, SONiC config_db, sysctl.d");
  with_devices(cmd->add_option("switch", args->device, "The switch to configure (stdout)"), "SWITCH");
  cmd->add_flag("--all", args->all, "Every switch of the blueprint, into -o DIR");
  cmd->add_option("-o,--output", args->output, "Directory for --all, written all or nothing");
  cmd->add_option("--blueprint", args->blueprint, "Plan directory")->capture_default_str();
  with_values(cmd->add_option("--format", args->format, "One switch: frr, sonic, json or sysctl"), {"frr", "sonic", "json", "sysctl"})->capture_default_str();
  cmd->add_flag("--bring-up", args->bring_up,
                "For the wiring check: ports without a planned cable lit and peering, not shut");
  cmd->callback([args, cmd, &exit_code] { exit_code = run(*args, verbosity_of(*cmd)); });
}

}  // namespace hpn::cli
