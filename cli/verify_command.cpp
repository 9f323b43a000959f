#include "cli/verify_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/exit.h"

#include "blueprint/fabric_index.h"
#include "blueprint/render.h"
#include "blueprint/store.h"
#include "cli/verify_lab.h"
#include "probe/observation.h"
#include "probe/probe_plan.h"
#include "validator/diff.h"
#include "validator/report.h"

namespace hpn::cli {

namespace {

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

int run_verify(const VerifyOptions& o) {
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail(kInputError, "--format must be table, json or csv");
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  std::vector<hpn::probe::Observation> all;
  if (o.lab) {
    auto seen = hpn::cli::observe_lab(bp.value(), o.blueprint, o.wiring, o.scope, o.keep);
    if (!seen) return fail(kInputError, seen.error().message);
    all = std::move(seen.value());
  } else if (o.observations.empty()) {
    return fail(kInputError, "verify needs observation files, or --lab to probe a lab built from the plan");
  }
  for (const auto& file : o.observations) {
    auto obs = hpn::probe::read_observation_file(file);
    if (!obs) return fail(kInputError, obs.error().message);
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
    if (!out) return fail(kInputError, fmt::format("{}: cannot write the disjoint paths", *o.paths_out));
  }
  return report.clean() ? kOk : kFindings;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto verify = std::make_shared<VerifyOptions>();
  auto* verify_cmd = app.add_subcommand("verify", "Compare probe observations with the blueprint");
  verify_cmd->add_option("observations", verify->observations, "Observation files (JSON lines)");
  verify_cmd->add_flag("--lab", verify->lab,
                       "Bring up the lab from the plan (and --wiring), probe it, diff, take it down");
  verify_cmd->add_option("--wiring", verify->wiring, "With --lab: the wiring file the lab is built from");
  verify_cmd->add_option("--scope", verify->scope, "With --lab: pod=N, segment=N, rack=NAME or devices=A,B,...");
  verify_cmd->add_option("--keep-observations", verify->keep, "With --lab: also write the observations here");
  verify_cmd->add_option("--paths-out", verify->paths_out,
                         "Write per destination the source ports whose traced paths are disjoint");
  verify_cmd->add_option("--blueprint", verify->blueprint, "Plan directory")->capture_default_str();
  verify_cmd->add_option("--format", verify->format, "table, json or csv")->capture_default_str();
  verify_cmd->add_option("--min-probes", verify->min_probes,
                         "Probes a host cable's direction needs before silence counts as absence")
      ->check(CLI::Range(1, 1000))->capture_default_str();

  verify_cmd->callback([verify, &exit_code] { exit_code = run_verify(*verify); });
}

}  // namespace hpn::cli
