// `hpnctl probe plan -o DIR`: the probe plan's rounds as files, for agents
// that a fleet's tooling runs (deploy/ansible/verify.yml), one invocation
// per round. The rounds are verify --lab's (probe/probe_rounds.h); what
// the lab does in memory between rounds lives in DIR:
//
//   summary.json   where the rounds stand, the senders' settings, the
//                  listeners, the switches whose BGP sessions witness the
//                  cables in scope, and this round's senders and files;
//                  `done` once no round is left (schemas/probe-plan.schema.json)
//   plan.jsonl     every entry sent so far, with its kind and source ports
//                  (the numbering each observation's `entry` refers to)
//   rounds/NAME/HOST/PORT.plan.jsonl, rounds/NAME/HOST/all.plan.jsonl
//                  a round's `probe send --plan` files: a switch round has
//                  one per sending port, a host round one per host
//
// The first invocation (DIR absent or empty) starts the plan for a scope
// and writes the first round. Each later one is given the observations
// the senders wrote so far and writes the next round, or marks the plan
// done. A round's files are written before plan.jsonl and summary.json,
// each all or nothing: an invocation that fails leaves DIR at the last
// round, and a DIR whose two files disagree is refused, never resumed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "probe/probe_rounds.h"

namespace hpn::probe {

// How each round's senders send (`probe send --rate --timeout --retries`);
// the plan's silence rule counts retries + 1 attempts per probe.
// The most retries `probe send` makes (agent_sender.h kMaxRetries, which
// asserts the two equal).
inline constexpr int kMaxSenderRetries = 10;

struct SenderSettings {
  int timeout_ms = 400;
  int retries = 2;
  int rate = 5000;               // host rounds, datagrams per second per sender
  int switch_probe_rate = 200;   // switch rounds: the pace each switch is asked to answer at
};

// What a plan is started with; kept in summary.json, and so the same for
// every later round (and for `verify --probe-plan`).
struct PlanSettings {
  std::string scope;  // --scope text; empty: the whole fabric
  int probes_per_pair = 3;
  int max_probes_per_pair = 64;
  int max_rounds = 8;
  bool switch_probes = true;
  std::int64_t lossy_budget = 200000;  // attempts across one direction, the loss rounds' trains in all
  double assume_loss = 10;  // percent, as verify's
  double lossy_warn = 1, lossy_critical = 5, lossy_max_background = 10, lossy_detect = 2;  // percent
  SenderSettings senders;
};

// The rounds' options these settings give (the silence and loss rules
// as verify's with the same numbers), their loss rounds planned by
// `estimate` (validator::loss_state).
RoundOptions round_options(const PlanSettings& settings, const LossEstimator& estimate);

struct PlanStep {
  bool done = false;
  bool started = false;  // this invocation started the plan
  nlohmann::ordered_json summary;  // summary.json as written
};

// Starts the plan in `dir` (absent, or an empty directory).
hpn::Result<PlanStep> start_plan(const Blueprint& bp, const std::string& dir, const PlanSettings& settings,
                                 const LossEstimator& estimate);

// The next round of the plan in `dir`, from the senders' observations so
// far (files, or directories of *.jsonl files, read in name order). A
// plan already done is left as it is.
hpn::Result<PlanStep> next_plan_round(const Blueprint& bp, const std::string& dir,
                                 const std::vector<std::string>& observations, const LossEstimator& estimate);

// Is `dir` a started plan (it has summary.json)?
bool is_plan_dir(const std::string& dir);

// summary.json's text read back (`source` names it in errors): the
// document, and the settings it keeps.
struct PlanSummary {
  nlohmann::json summary;
  PlanSettings settings;
};
hpn::Result<PlanSummary> parse_plan_summary(std::string_view text, const std::string& source);

// A started plan's settings (`verify --probe-plan`): its scope, its rules,
// the attempts its probes make.
hpn::Result<PlanSettings> read_plan_settings(const std::string& dir);

}  // namespace hpn::probe
