#include "cli/plan_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/exit.h"

#include "planner/diagnostics.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"

namespace hpn::cli {

namespace {

struct PlanOptions {
  std::optional<std::string> spec;
  std::string out = "hpn-plan";
  std::string format = "text";
  bool quiet = false;
};

int run_plan(const PlanOptions& o) {
  if (o.format != "text" && o.format != "json") return fail(kInputError, "--format must be text or json");
  if (auto target = hpn::check_plan_target(o.out); !target) return fail(kInputError, target.error().message);
  auto spec = hpn::load_plan_spec(o.spec);
  if (!spec) return fail_located(kInputError, spec.error().message);
  const bool progress = !o.quiet && isatty(STDERR_FILENO);
  if (progress) std::cerr << "hpnctl: expanding " << spec->name << "...";
  auto plan = hpn::make_plan(std::move(spec.value()), HPNCTL_VERSION);
  if (!plan) {
    if (progress) std::cerr << '\n';
    return fail_located(kInputError, plan.error().message);
  }
  auto report = [&](const std::string& file) {
    if (progress) std::cerr << "\r\033[Khpnctl: writing " << o.out << "/: " << file << " done";
  };
  auto written = hpn::write_plan(plan->blueprint, plan->summary, o.out, report);
  if (progress) std::cerr << "\r\033[K";
  if (!written) {
    return fail(kEnvironmentError, written.error().message);  // the plan was fine; the disk was not
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
  if (!spec) return fail_located(kInputError, spec.error().message);
  auto plan = hpn::make_plan(std::move(spec.value()), HPNCTL_VERSION);
  if (!plan) return fail_located(kInputError, plan.error().message);
  std::cout << fmt::format("{}: ok ({} hosts, {} cables)\n", path,
                           plan->summary.devices.empty() ? 0 : plan->summary.devices[0].second,
                           plan->summary.cable_count);
  return kOk;
}

}  // namespace

void add_plan_commands(CLI::App& app, int& exit_code) {
  auto plan = std::make_shared<PlanOptions>();
  auto* plan_cmd = app.add_subcommand("plan", "Expand a pod spec into the full blueprint");
  plan_cmd->add_option("spec", plan->spec, "Pod spec (YAML); default: the built-in HPN pod");
  plan_cmd->add_option("-o,--output", plan->out, "Output directory, written all or nothing")
      ->capture_default_str();
  plan_cmd->add_option("--format", plan->format, "Summary on stdout: text or json")->capture_default_str();
  plan_cmd->add_flag("-q,--quiet", plan->quiet, "No summary, no progress");

  auto* spec_cmd = app.add_subcommand("spec", "Show or check pod specs");
  spec_cmd->require_subcommand(1);
  auto* spec_default = spec_cmd->add_subcommand("default", "Print the built-in default pod spec");
  auto check_path = std::make_shared<std::string>();
  auto* spec_check = spec_cmd->add_subcommand("check", "Validate a spec and its design; write nothing");
  spec_check->add_option("spec", *check_path, "Pod spec (YAML)")->required();

  plan_cmd->callback([plan, &exit_code] { exit_code = run_plan(*plan); });
  spec_default->callback([&exit_code] {
    std::cout << default_spec_text();
    exit_code = kOk;
  });
  spec_check->callback([check_path, &exit_code] { exit_code = run_spec_check(*check_path); });
}

}  // namespace hpn::cli
