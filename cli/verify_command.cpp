#include "cli/verify_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/completion.h"
#include "cli/exit.h"
#include "cli/progress.h"

#include "blueprint/atomic_file.h"
#include "blueprint/fabric_index.h"
#include "blueprint/render.h"
#include "blueprint/store.h"
#include "cli/verify_lab.h"
#include "probe/observation.h"
#include "probe/plan_dir.h"
#include "probe/probe_plan.h"
#include "validator/bgp.h"
#include "validator/diff.h"
#include "validator/lldp.h"
#include "validator/report.h"
#include "validator/verify.h"

namespace hpn::cli {

namespace {

struct VerifyOptions {
  std::string blueprint = "hpn-plan";
  std::string format = "table";
  std::vector<std::string> observations;
  int min_probes = 3;
  int loss = 0;             // --lab: random loss on every cable of the lab, percent
  double assume_loss = 10;  // per-cable loss, percent, the silence rule allows for
  bool lab = false;
  std::optional<std::string> wiring;
  std::string scope;
  std::optional<std::string> keep;
  std::optional<std::string> paths_out;
  std::vector<std::string> lldp;  // DEVICE=FILE or DEVICE.json
  std::vector<std::string> bgp;   // likewise
  std::string lldp_match = "description";
  double lossy_warn = 1;       // percent: a lossy direction's warning rate
  double lossy_critical = 5;   // percent: and its critical rate
  std::int64_t lossy_budget = 200000;  // --lab: attempts across any one direction, the loss rounds in all
  double lossy_detect = 2;     // percent: the loss the trains are sized to find, and undecided below
  double lossy_max_background = 10;  // percent: above it no direction is judged lossy
  // --probe-plan DIR: the plan the observations were sent by (probe plan);
  // its scope, its rules and its probes' attempts are the diff's.
  std::optional<std::string> probe_plan;
  int attempts = 1;                     // per unanswered probe: the senders' retries + 1
  std::vector<std::string> plan_owned;  // the options given that the plan decides
};

hpn::probe::LossOptions loss_options(const VerifyOptions& o) {
  hpn::probe::LossOptions loss;
  loss.warn = o.lossy_warn / 100;
  loss.critical = o.lossy_critical / 100;
  loss.max_background = o.lossy_max_background / 100;
  loss.detect = o.lossy_detect / 100;
  return loss;
}


// When a silent direction is evidence (probe/silence.h): the loss assumed,
// and the attempts behind each unanswered probe, known only for --lab's own.
hpn::probe::SilenceRule silence_rule(const VerifyOptions& o) {
  hpn::probe::SilenceRule rule;
  rule.max_loss = o.assume_loss / 100;
  rule.attempts = o.lab ? lab_probe_attempts() : o.attempts;
  return rule;
}

int run_verify(VerifyOptions o, const Verbosity& verbosity) {
  if (o.probe_plan) {
    if (o.lab) return fail(kInputError, "--probe-plan is a fleet's plan: --lab probes by its own");
    if (!o.plan_owned.empty()) {
      return fail(kInputError, fmt::format("--probe-plan {} decides {}: give them to `probe plan` when starting it",
                                           *o.probe_plan, fmt::join(o.plan_owned, ", ")));
    }
    auto plan = hpn::probe::read_plan_settings(*o.probe_plan);
    if (!plan) return fail_located(kInputError, plan.error().message);
    o.scope = plan->scope;
    o.assume_loss = plan->assume_loss;
    o.lossy_warn = plan->lossy_warn;
    o.lossy_critical = plan->lossy_critical;
    o.lossy_max_background = plan->lossy_max_background;
    o.lossy_detect = plan->lossy_detect;
    o.attempts = plan->senders.retries + 1;
  }
  hpn::OutputFormat format;
  if (!hpn::parse_format(o.format, format)) return fail(kInputError, "--format must be table, json or csv");
  // Options that only mean something to a lab this command builds.
  if (!o.lab) {
    for (const auto& [given, name] : {std::pair{o.wiring.has_value(), "--wiring"},
                                      std::pair{o.keep.has_value(), "--keep-observations"},
                                      std::pair{o.loss > 0, "--loss"},
                                      std::pair{o.lossy_budget != VerifyOptions{}.lossy_budget, "--lossy-budget"}}) {
      if (given) return fail(kInputError, fmt::format("{} needs --lab (it is about the lab verify builds)", name));
    }
  }
  if (o.lossy_warn > o.lossy_critical) {
    return fail(kInputError, fmt::format("--lossy-warn ({}) must not be above --lossy-critical ({})", o.lossy_warn,
                                         o.lossy_critical));
  }
  // A loss at the warning rate is estimated below it half the time: no
  // number of attempts finds it for sure.
  if (o.lossy_detect > 0 && o.lossy_detect <= o.lossy_warn) {
    return fail(kInputError, fmt::format("--lossy-detect ({}) must be above --lossy-warn ({}), or 0", o.lossy_detect,
                                         o.lossy_warn));
  }
  auto store = hpn::BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  hpn::validator::VerifyOptions verdict;
  if (!hpn::validator::parse_lldp_match(o.lldp_match, verdict.lldp_match)) {
    return fail(kInputError, "--lldp-match must be description or port-id");
  }
  // The dumps are read before anything runs (a lab in particular): a bad
  // one is an input error, never half a diff.
  hpn::validator::Evidence evidence;
  for (const auto& argument : o.lldp) {
    auto source = hpn::validator::parse_lldp_argument(argument);
    if (!source) return fail(kInputError, source.error().message);
    auto dump = hpn::validator::read_lldp_dump(source.value());
    if (!dump) return fail_located(kInputError, dump.error().message);
    evidence.lldp.push_back(std::move(dump.value()));
  }
  auto& bgp = evidence.bgp;
  for (const auto& argument : o.bgp) {
    auto dump = hpn::validator::read_bgp_dump(argument);
    if (!dump) return fail_located(kInputError, dump.error().message);
    bgp.push_back(std::move(dump.value()));
  }
  hpn::FabricIndex fabric(bp.value());
  hpn::probe::ObservationSet& all = evidence.observations;
  std::string teardown_error;
  if (o.lab) {
    int failure = kEnvironmentError;
    auto seen = hpn::cli::observe_lab(bp.value(), o.blueprint, o.wiring, o.scope, o.keep, o.loss, silence_rule(o),
                                      loss_options(o), o.lossy_budget, verbosity, failure);
    if (!seen) {
      return failure == kInputError ? fail_located(kInputError, seen.error().message)
                                    : fail(kEnvironmentError, seen.error().message);
    }
    all = std::move(seen->observations);
    teardown_error = seen->teardown_error;
    // The lab's own sessions, unless dumps were given for its switches.
    for (auto& d : seen->bgp) {
      if (std::none_of(bgp.begin(), bgp.end(), [&](const auto& g) { return g.device == d.device; })) {
        bgp.push_back(std::move(d));
      }
    }
  } else if (o.observations.empty() && o.lldp.empty() && o.bgp.empty()) {
    return fail(kInputError,
                "verify needs observation files, --lldp or --bgp neighbour dumps, or --lab to probe a lab built "
                "from the plan");
  }
  if (!o.observations.empty()) {
    // A record with more hops than the plan's longest path is no path of
    // this fabric: skipped as malformed, and counted below.
    const std::size_t longest = hpn::probe::longest_path_hops(bp.value());
    auto read = hpn::probe::read_observation_inputs(o.observations, longest);
    if (!read) return fail(kInputError, read.error().message);
    if (all.size() + read->size() > hpn::probe::kMaxObservations) {
      return fail(kInputError, fmt::format("more than {} observation records in all", hpn::probe::kMaxObservations));
    }
    if (const std::size_t skipped = read->skipped_long_paths(); skipped > 0) {
      std::cerr << shown(fmt::format("hpnctl: warning: {} observation record{} with more hops than the plan's longest "
                                     "path ({}) skipped as malformed (the first: {})\n",
                                     skipped, skipped == 1 ? "" : "s", longest, read->first_skipped_long_path()));
    }
    if (all.empty()) all = std::move(read.value());
    else all.append(read.value());
  }
  hpn::validator::DiffOptions& options = verdict.diff;
  options.min_probes = o.min_probes;
  options.silence = silence_rule(o);
  options.loss = loss_options(o);
  if (!o.scope.empty()) {
    auto scope = hpn::probe::parse_scope(o.scope);
    if (!scope) return fail(kInputError, "--scope: " + scope.error().message);
    auto hosts = hpn::probe::hosts_in_scope(bp.value(), scope.value());
    if (!hosts) return fail(kInputError, "--scope: " + hosts.error().message);
    options.scope_hosts = std::move(hosts.value());
  }
  verdict.plan_name = store->path();
  auto verified = hpn::validator::verify(fabric, evidence, verdict);
  if (!verified) return fail_located(kInputError, verified.error().message);
  const hpn::validator::Report& report = verified.value();
  hpn::validator::render_report(report, fabric, format, std::cout);
  if (o.paths_out) {
    // Per sender port and destination, the source ports whose paths are disjoint (HPN §5).
    auto paths = hpn::probe::to_json(hpn::probe::learn_disjoint_paths(bp.value(), all));
    if (auto st = hpn::write_file_atomic(*o.paths_out, paths); !st) {
      return fail(kEnvironmentError, "cannot write the disjoint paths: " + st.error().message);
    }
  }
  if (!teardown_error.empty()) {
    return fail(kEnvironmentError, "the report stands, but taking the lab down failed: " + teardown_error +
                                       "; 'hpnctl lab down' retries");
  }
  return report.clean() ? kOk : kFindings;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto verify = std::make_shared<VerifyOptions>();
  auto* verify_cmd =
      app.add_subcommand("verify", "Compare probe observations, LLDP neighbours and BGP sessions with the blueprint");
  verify_cmd->add_option("observations", verify->observations,
                         "Observation files (JSON lines), or directories of them (*.jsonl)");
  verify_cmd->add_option("--probe-plan", verify->probe_plan,
                         "The `probe plan` directory the observations were sent by: its scope, rules and retries");
  verify_cmd->add_flag("--lab", verify->lab,
                       "Bring up the lab from the plan (and --wiring), probe it, diff, take it down");
  verify_cmd->add_option("--wiring", verify->wiring, "With --lab: the wiring file the lab is built from");
  verify_cmd->add_option("--scope", verify->scope,
                         "The verdict is about pod=N, segment=N, rack=NAME or devices=A,B,... (and --lab probes it)");
  verify_cmd->add_option("--keep-observations", verify->keep, "With --lab: also write the observations here");
  verify_cmd->add_option("--paths-out", verify->paths_out,
                         "Write per destination the source ports whose traced paths are disjoint");
  verify_cmd->add_option("--lldp", verify->lldp,
                         "`lldpcli -f json0 show neighbors details` dumps, each DEVICE=FILE or DEVICE.json");
  verify_cmd->add_option("--bgp", verify->bgp,
                         "`vtysh -c 'show bgp neighbors json'` dumps, each DEVICE=FILE or DEVICE.json");
  verify_cmd->add_option("--lldp-match", verify->lldp_match,
                         "Name a neighbour's port by its port description or its port ID: description or port-id")
      ->capture_default_str();
  verify_cmd->add_option("--blueprint", verify->blueprint, "Plan directory")->capture_default_str();
  with_values(verify_cmd->add_option("--format", verify->format, "table, json or csv"), {"table", "json", "csv"})->capture_default_str();
  verify_cmd->add_option("--min-probes", verify->min_probes,
                         "Probes a host cable's direction needs before silence counts as absence")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  verify_cmd->add_option("--assume-loss", verify->assume_loss,
                         "Per-cable loss (percent) a silent direction must be beyond before it counts as "
                         "broken; see hpnctl(1)")
      ->check(CLI::Range(0.0, 50.0))->capture_default_str();
  verify_cmd->add_option("--lossy-warn", verify->lossy_warn,
                         "Loss (percent) of a cable's direction, above the run's background, that is a lossy "
                         "warning; see hpnctl(1)")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  verify_cmd->add_option("--lossy-critical", verify->lossy_critical,
                         "Loss (percent) of a cable's direction that makes a lossy finding critical")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  verify_cmd->add_option("--lossy-max-background", verify->lossy_max_background,
                         "Background loss (percent, fitted to the run) above which no cable is judged lossy; "
                         "see hpnctl(1)")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  verify_cmd->add_option("--lossy-detect", verify->lossy_detect,
                         "Loss (percent, above the background) the loss rounds' trains are sized to find; a "
                         "direction whose interval still reaches it is undecided; 0: no loss rounds; see hpnctl(1)")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  verify_cmd->add_option("--lossy-budget", verify->lossy_budget,
                         "With --lab: attempts the loss rounds' trains may make across any one direction")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{100'000'000}))->capture_default_str();
  verify_cmd->add_option("--loss", verify->loss, "With --lab: random loss (percent) on every cable of the lab")
      ->check(CLI::Range(0, hpn::lab::kMaxBackgroundLoss))->capture_default_str();

  verify_cmd->callback([verify, verify_cmd, &exit_code] {
    for (const char* name : {"--scope", "--assume-loss", "--lossy-warn", "--lossy-critical", "--lossy-max-background",
                             "--lossy-detect"}) {
      if (verify_cmd->count(name) > 0) verify->plan_owned.push_back(name);
    }
    exit_code = run_verify(*verify, verbosity_of(*verify_cmd));
  });
}

}  // namespace hpn::cli
