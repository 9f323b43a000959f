#include "cli/plan_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/exit.h"
#include "cli/progress.h"

#include "blueprint/render.h"
#include "blueprint/store.h"

#include "blueprint/diagnostics.h"
#include "planner/plan.h"
#include "planner/plan_diff.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"

namespace hpn::cli {

namespace {

struct PlanOptions {
  std::optional<std::string> spec;
  std::string out = "hpn-plan";
  bool out_given = false;  // -o on the command line: --diff writes only when asked
  std::string format = "text";
  bool quiet = false;
  std::optional<std::string> diff;  // the plan directory to compare with
  bool allow_renumber = false;
};

// One line per cause of warning (hpn::plan_notes), not one per cable.
void print_warnings(const hpn::PlanSummary& summary) {
  for (const auto& n : summary.notes) {
    if (n.severity == "warning") std::cerr << "hpnctl: warning: " << shown(n.text) << '\n';
  }
}

// Progress while writing: one line naming each file as it is done.
hpn::ProgressFn file_progress(Progress& progress, const std::string& dir) {
  return [&progress, dir](const std::string& file) { progress.status(fmt::format("writing {}/: {} done", dir, file)); };
}

// Loads and expands the spec, one progress phase each. On an error it prints
// the located diagnostics and returns nothing.
std::optional<hpn::Plan> expand_spec(const std::optional<std::string>& path, Progress& progress) {
  progress.phase("loading the spec");
  auto spec = hpn::load_plan_spec(path);
  if (!spec) {
    progress.finish();
    fail_located(kInputError, spec.error().message);
    return std::nullopt;
  }
  progress.phase("expanding " + spec->name);
  auto plan = hpn::make_plan(std::move(spec.value()), HPNCTL_VERSION);
  if (!plan) {
    progress.finish();
    fail_located(kInputError, plan.error().message);
    return std::nullopt;
  }
  return std::move(plan.value());
}

int run_plan(const PlanOptions& o, Verbosity v) {
  if (o.format != "text" && o.format != "json") {
    return fail(kInputError, fmt::format("--format {}: a plan's summary is text or json (table and csv are "
                                         "for --diff)", o.format));
  }
  const bool quiet = o.quiet || v.quiet;
  if (auto target = hpn::check_plan_target(o.out); !target) return fail(kInputError, target.error().message);
  Progress progress({quiet, v.verbose});
  auto plan = expand_spec(o.spec, progress);
  if (!plan) return kInputError;
  progress.phase(fmt::format("writing {}/", o.out));
  auto written = hpn::write_plan(plan->blueprint, plan->summary, o.out, file_progress(progress, o.out));
  progress.finish();
  if (!written) {
    return fail(kEnvironmentError, written.error().message);  // the plan was fine; the disk was not
  }
  if (!quiet) print_warnings(plan->summary);
  if (o.format == "json") {
    std::cout << hpn::summary_json(plan->summary).dump(2) << '\n';
  } else if (!quiet) {
    hpn::render_summary(plan->summary, o.out, std::cout);
  }
  return kOk;
}

// plan --diff: like diff(1), exit 0 when the new spec plans the fabric on
// disk unchanged and 1 when there is work to do, with or without -o; 2 for
// bad input or a refused renumbering (then nothing is written).
int run_plan_diff(const PlanOptions& o, Verbosity v) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) {
    return fail(kInputError, fmt::format("--format {}: the work order is table, csv or json", o.format));
  }
  const bool quiet = o.quiet || v.quiet;
  if (o.out_given) {
    if (auto target = hpn::check_plan_target(o.out); !target) return fail(kInputError, target.error().message);
  }
  Progress progress({quiet, v.verbose});
  progress.phase(fmt::format("reading {}", *o.diff));
  hpn::Blueprint before;
  {
    auto store = hpn::BlueprintStore::open(*o.diff);
    if (!store) {
      progress.finish();
      return fail(kInputError, fmt::format("--diff: {}", store.error().message));
    }
    auto loaded = store->load();
    if (!loaded) {
      progress.finish();
      return fail(kInputError, fmt::format("--diff: {}", loaded.error().message));
    }
    before = std::move(loaded.value());
  }  // closed before -o may swap a new plan into the same place
  auto plan = expand_spec(o.spec, progress);
  if (!plan) return kInputError;
  progress.phase("comparing");
  hpn::PlanDiff diff = hpn::diff_plans(before, plan->blueprint);
  progress.finish();
  if (!o.allow_renumber) {
    if (auto refused = hpn::check_no_renumbering(diff); !refused) {
      return fail(kInputError, fmt::format("plan --diff {}: {}", *o.diff, refused.error().message));
    }
  }
  if (o.out_given) {
    progress.phase(fmt::format("writing {}/", o.out));
    auto written = hpn::write_plan_with_work_order(plan->blueprint, plan->summary, diff, o.out,
                                                   file_progress(progress, o.out));
    progress.finish();
    if (!written) return fail(kEnvironmentError, written.error().message);
    if (!quiet) {
      print_warnings(plan->summary);
      std::cerr << fmt::format("hpnctl: wrote the new plan to {}/, its work order to {}/{}\n", o.out, o.out,
                               hpn::kWorkOrderFile);
    }
  }
  if (format != hpn::OutputFormat::table || !quiet) hpn::render_plan_diff(diff, format, std::cout);
  return diff.empty() ? kOk : kFindings;
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
  auto* out_opt = plan_cmd->add_option("-o,--output", plan->out,
                                        "Output directory, written all or nothing (with --diff: only when given)")
                      ->capture_default_str();
  plan_cmd->add_option("--format", plan->format,
                       "Summary on stdout: text or json; with --diff the work order: table, csv or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "table", "csv", "json"}));
  plan_cmd->add_flag("-q,--quiet", plan->quiet, "No summary, no progress (with --diff: only the exit status)");
  plan_cmd->add_option("--diff", plan->diff,
                       "Compare with the plan in this directory: the work order from it to the new spec; "
                       "exit 0 unchanged, 1 changed");
  plan_cmd->add_flag("--allow-renumber", plan->allow_renumber,
                     "With --diff: plan a change that renumbers existing devices (node ID, ASN, place)");

  auto* spec_cmd = app.add_subcommand("spec", "Show or check pod specs");
  spec_cmd->require_subcommand(1);
  auto* spec_default = spec_cmd->add_subcommand("default", "Print the built-in default pod spec");
  auto check_path = std::make_shared<std::string>();
  auto* spec_check = spec_cmd->add_subcommand("check", "Validate a spec and its design; write nothing");
  spec_check->add_option("spec", *check_path, "Pod spec (YAML)")->required();

  plan_cmd->callback([plan, plan_cmd, out_opt, &exit_code] {
    plan->out_given = out_opt->count() > 0;
    Verbosity v = verbosity_of(*plan_cmd);
    if (plan->diff) {
      exit_code = run_plan_diff(*plan, v);
    } else if (plan->allow_renumber) {
      exit_code = fail(kInputError, "--allow-renumber applies to --diff only");
    } else {
      exit_code = run_plan(*plan, v);
    }
  });
  spec_default->callback([&exit_code] {
    std::cout << default_spec_text();
    exit_code = kOk;
  });
  spec_check->callback([check_path, &exit_code] { exit_code = run_spec_check(*check_path); });
}

}  // namespace hpn::cli
