// hpnctl: the command line. Parses arguments, calls the libraries, decides
// the exit code: 0 ok, 1 findings, 2 usage or input error, 3 environment.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "blueprint/render.h"
#include "blueprint/store.h"
#include "cli/lab_command.h"
#include "cli/probe_command.h"
#include "cli/verify_lab.h"
#include "cli/profile_command.h"
#include "planner/diagnostics.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"
#include "probe/observation.h"
#include "probe/probe_plan.h"
#include "validator/diff.h"
#include "validator/report.h"

namespace {

constexpr int kOk = 0;
constexpr int kInputError = 2;
constexpr int kEnvironmentError = 3;

int fail(const std::string& message) {
  std::cerr << "hpnctl: " << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
  return kInputError;
}

// Spec and design errors are already `file:line:col: ...` diagnostics.
int fail_diagnostics(const std::string& text) {
  std::cerr << text;
  return kInputError;
}

struct PlanOptions {
  std::optional<std::string> spec;
  std::string out = "hpn-plan";
  std::string format = "text";
  bool quiet = false;
};

int run_plan(const PlanOptions& o) {
  if (o.format != "text" && o.format != "json") return fail("--format must be text or json");
  if (auto target = hpn::check_plan_target(o.out); !target) return fail(target.error().message);
  auto spec = hpn::load_plan_spec(o.spec);
  if (!spec) return fail_diagnostics(spec.error().message);
  const bool progress = !o.quiet && isatty(STDERR_FILENO);
  if (progress) std::cerr << "hpnctl: expanding " << spec->name << "...";
  auto plan = hpn::make_plan(std::move(spec.value()), HPNCTL_VERSION);
  if (!plan) {
    if (progress) std::cerr << '\n';
    return fail_diagnostics(plan.error().message);
  }
  auto report = [&](const std::string& file) {
    if (progress) std::cerr << "\r\033[Khpnctl: writing " << o.out << "/: " << file << " done";
  };
  auto written = hpn::write_plan(plan->blueprint, plan->summary, o.out, report);
  if (progress) std::cerr << "\r\033[K";
  if (!written) {
    fail(written.error().message);
    return kEnvironmentError;  // the plan was fine; the disk was not
  }
  const auto& warnings = plan->blueprint.warnings;
  if (!warnings.empty() && !o.quiet) {
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < warnings.size() && i < kShown; ++i) {
      std::cerr << "hpnctl: warning: cable " << warnings[i].cable << ": " << warnings[i].message << '\n';
    }
    if (warnings.size() > kShown) {
      std::cerr << fmt::format("hpnctl: warning: ... and {} more, all in {}/warnings.csv\n",
                               warnings.size() - kShown, o.out);
    }
  }
  if (o.format == "json") {
    std::cout << hpn::summary_json(plan->summary).dump(2) << '\n';
  } else if (!o.quiet) {
    hpn::render_summary(plan->summary, o.out, std::cout);
  }
  return kOk;
}

int run_spec_check(const std::string& path) {
  auto spec = hpn::load_spec_file(path);
  if (!spec) return fail_diagnostics(spec.error().message);
  auto plan = hpn::make_plan(std::move(spec.value()), HPNCTL_VERSION);
  if (!plan) return fail_diagnostics(plan.error().message);
  std::cout << fmt::format("{}: ok ({} hosts, {} cables)\n", path,
                           plan->summary.devices.empty() ? 0 : plan->summary.devices[0].second,
                           plan->summary.cable_count);
  return kOk;
}

struct QueryOptions {
  std::string blueprint = "hpn-plan";
  std::string format = "table";
};

struct DeviceOptions : QueryOptions {
  hpn::DeviceFilter filter;
  std::string role, state;
  int pod = -1, segment = -1, plane = -1, rail = -1;
};

int run_devices(DeviceOptions o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail("--format must be table, json or csv");
  hpn::Role role;
  if (!o.role.empty() && !hpn::parse_role(o.role, role)) {
    return fail(fmt::format("--role '{}': one of host, tor, agg, core, frontend", o.role));
  }
  if (!o.state.empty() && o.state != "active" && o.state != "backup") {
    return fail(fmt::format("--state '{}': active or backup", o.state));
  }
  if (!o.role.empty()) o.filter.role = o.role;
  if (!o.state.empty()) o.filter.state = o.state;
  if (o.pod >= 0) o.filter.pod = o.pod;
  if (o.segment >= 0) o.filter.segment = o.segment;
  if (o.plane >= 0) o.filter.plane = o.plane;
  if (o.rail >= 0) o.filter.rail = o.rail;
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(store.error().message);
  auto rows = store->devices(o.filter);
  if (!rows) return fail(rows.error().message);
  hpn::render_devices(rows.value(), format, std::cout);
  return kOk;
}

int run_cable(const std::string& target, const QueryOptions& o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail("--format must be table, json or csv");
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(store.error().message);
  std::string device = target;
  std::optional<std::string> port;
  if (auto colon = target.find(':'); colon != std::string::npos) {
    device = target.substr(0, colon);
    port = target.substr(colon + 1);
  }
  auto found = store->device(device);
  if (!found) return fail(found.error().message);
  if (!found.value()) {
    return fail(fmt::format("no device '{}' in {}", device, store->path()));
  }
  if (port) {
    auto has = store->has_port(device, *port);
    if (!has) return fail(has.error().message);
    if (!has.value()) return fail(fmt::format("device '{}' has no port '{}'", device, *port));
  }
  auto rows = store->cables_of(device, port);
  if (!rows) return fail(rows.error().message);
  if (rows->empty() && format == hpn::OutputFormat::table) {
    std::cout << fmt::format("{}{} has no cable\n", device, port ? ":" + *port : "");
    return kOk;
  }
  hpn::render_cables(device, rows.value(), format, std::cout);
  return kOk;
}

struct VerifyOptions {
  std::string blueprint = "hpn-plan";
  std::string format = "table";
  std::vector<std::string> observations;
  int min_probes = 3;
  bool lab = false;
  std::optional<std::string> wiring;
  std::string scope;
  std::optional<std::string> keep;
  std::optional<std::string> paths_out;
};

constexpr int kFindings = 1;

int run_verify(const VerifyOptions& o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail("--format must be table, json or csv");
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(store.error().message);
  auto bp = store->load();
  if (!bp) return fail(bp.error().message);
  std::vector<hpn::probe::Observation> all;
  if (o.lab) {
    auto seen = hpn::cli::observe_lab(bp.value(), o.blueprint, o.wiring, o.scope, o.keep);
    if (!seen) return fail(seen.error().message);
    all = std::move(seen.value());
  } else if (o.observations.empty()) {
    return fail("verify needs observation files, or --lab to probe a lab built from the plan");
  }
  for (const auto& file : o.observations) {
    auto obs = hpn::probe::read_observation_file(file);
    if (!obs) return fail(obs.error().message);
    all.insert(all.end(), std::make_move_iterator(obs->begin()), std::make_move_iterator(obs->end()));
  }
  hpn::FabricIndex fabric(bp.value());
  hpn::validator::DiffOptions options;
  options.min_probes = o.min_probes;
  auto report = hpn::validator::diff(fabric, hpn::validator::collect_witnesses(fabric, all), options);
  hpn::validator::render_report(report, fabric, format, std::cout);
  if (o.paths_out) {
    // Per sender port and destination, the source ports whose paths are disjoint (HPN §5).
    std::ofstream out(*o.paths_out);
    out << hpn::probe::to_json(hpn::probe::learn_disjoint_paths(bp.value(), all));
    if (!out) return fail(fmt::format("{}: cannot write the disjoint paths", *o.paths_out));
  }
  return report.clean() ? kOk : kFindings;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hpnctl: plan, wire and verify the back-end network of an Alibaba HPN GPU cluster"};
  app.set_version_flag("--version", HPNCTL_VERSION);
  app.require_subcommand(1);
  app.footer("Exit status: 0 ok, 1 findings, 2 usage or input error, 3 environment error.\n"
             "See hpnctl(1) and hpn-pod.yaml(5).");

  PlanOptions plan;
  auto* plan_cmd = app.add_subcommand("plan", "Expand a pod spec into the full blueprint");
  plan_cmd->add_option("spec", plan.spec, "Pod spec (YAML); default: the built-in HPN pod");
  plan_cmd->add_option("-o,--output", plan.out, "Output directory, written all or nothing")
      ->capture_default_str();
  plan_cmd->add_option("--format", plan.format, "Summary on stdout: text or json")->capture_default_str();
  plan_cmd->add_flag("-q,--quiet", plan.quiet, "No summary, no progress");

  auto* spec_cmd = app.add_subcommand("spec", "Show or check pod specs");
  spec_cmd->require_subcommand(1);
  auto* spec_default = spec_cmd->add_subcommand("default", "Print the built-in default pod spec");
  std::string check_path;
  auto* spec_check = spec_cmd->add_subcommand("check", "Validate a spec and its design; write nothing");
  spec_check->add_option("spec", check_path, "Pod spec (YAML)")->required();

  DeviceOptions dev;
  auto* dev_cmd = app.add_subcommand("devices", "List devices of a plan, filtered");
  dev_cmd->add_option("--blueprint", dev.blueprint, "Plan directory")->capture_default_str();
  dev_cmd->add_option("--role", dev.role, "host, tor, agg, core or frontend");
  dev_cmd->add_option("--state", dev.state, "active or backup");
  dev_cmd->add_option("--pod", dev.pod, "Pod (0-based)");
  dev_cmd->add_option("--segment", dev.segment, "Segment within the pod (0-based)");
  dev_cmd->add_option("--plane", dev.plane, "Plane (1 or 2)");
  dev_cmd->add_option("--rail", dev.rail, "Rail (1-based, = back-end NIC)");
  dev_cmd->add_option("--format", dev.format, "table, json or csv")->capture_default_str();

  QueryOptions cable;
  std::string cable_target;
  auto* cable_cmd = app.add_subcommand("cable", "Show the cables of a device or port and their far ends");
  cable_cmd->add_option("target", cable_target, "DEVICE or DEVICE:PORT")->required();
  cable_cmd->add_option("--blueprint", cable.blueprint, "Plan directory")->capture_default_str();
  cable_cmd->add_option("--format", cable.format, "table, json or csv")->capture_default_str();

  VerifyOptions verify;
  auto* verify_cmd = app.add_subcommand("verify", "Compare probe observations with the blueprint");
  verify_cmd->add_option("observations", verify.observations, "Observation files (JSON lines)");
  verify_cmd->add_flag("--lab", verify.lab,
                       "Bring up the lab from the plan (and --wiring), probe it, diff, take it down");
  verify_cmd->add_option("--wiring", verify.wiring, "With --lab: the wiring file the lab is built from");
  verify_cmd->add_option("--scope", verify.scope, "With --lab: pod=N, segment=N, rack=NAME or devices=A,B,...");
  verify_cmd->add_option("--keep-observations", verify.keep, "With --lab: also write the observations here");
  verify_cmd->add_option("--paths-out", verify.paths_out,
                         "Write per destination the source ports whose traced paths are disjoint");
  verify_cmd->add_option("--blueprint", verify.blueprint, "Plan directory")->capture_default_str();
  verify_cmd->add_option("--format", verify.format, "table, json or csv")->capture_default_str();
  verify_cmd->add_option("--min-probes", verify.min_probes,
                         "Probes a host cable's direction needs before silence counts as absence")
      ->check(CLI::Range(1, 1000))->capture_default_str();

  int lab_exit = -1;
  hpn::cli::add_lab_commands(app, lab_exit);
  int probe_exit = -1;
  hpn::cli::add_probe_commands(app, probe_exit);
  int profile_exit = -1;
  hpn::cli::add_profile_command(app, profile_exit);

  // "did you mean" for a mistyped command, before CLI11's generic message.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string guess = hpn::closest_match(argv[1], names);
      return fail(fmt::format("unknown command '{}'{}; see 'hpnctl --help'", argv[1],
                              guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kInputError;
  }

  if (lab_exit >= 0) return lab_exit;
  if (probe_exit >= 0) return probe_exit;
  if (profile_exit >= 0) return profile_exit;
  if (plan_cmd->parsed()) return run_plan(plan);
  if (spec_default->parsed()) {
    std::cout << hpn::default_spec_text();
    return kOk;
  }
  if (spec_check->parsed()) return run_spec_check(check_path);
  if (dev_cmd->parsed()) return run_devices(dev);
  if (cable_cmd->parsed()) return run_cable(cable_target, cable);
  if (verify_cmd->parsed()) return run_verify(verify);
  return kInputError;
}
