// The rounds of one verify's probing, wherever the senders run: verify
// --lab hands each round to agents in the lab's namespaces, `hpnctl probe
// plan` writes it to files that a fleet's agents (verify.yml) send, one
// invocation per round. Both go the same way, so a rack verified through
// Ansible is probed as verify --lab probes it:
//
//   the switch probes' rounds (switch_probes(), then next_switch_round()),
//   then the rounds between hosts (initial_plan(), then next_round()),
//   then the loss rounds' trains (probe/loss_trains.h: first_loss_round(),
//   then next_loss_round()), when options.plan.loss_detect is above 0,
//   each phase until nothing more is asked for or max_rounds are sent.
//
// Every target sent is numbered once, in the order first sent (its entry,
// which `probe send --plan` writes into each observation), and keeps every
// source port sent to it. The whole state is what entries() holds plus
// where the rounds stand, so it is saved between rounds (to_json) and
// rebuilt (from_json) to the same numbering.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "probe/loss_trains.h"
#include "probe/observation.h"
#include "probe/probe_plan.h"

namespace hpn::probe {

struct RoundOptions {
  PlanOptions plan;
  int max_rounds = 8;         // per phase
  bool switch_probes = true;  // the switch probes' phase, before the hosts'
  // The loss estimate the loss rounds are sized and aimed by
  // (validator::loss_state); needed when plan.loss_detect is above 0.
  LossEstimator estimate;
};

enum class RoundKind { switches, hosts, losses };

// One sender's share of a round: the lines of its `probe send --plan` file.
// A switch round has a sender per port (each port's switches are its own
// plane's, and a sender's pace is the pace each switch is asked to answer
// at); a host round one per host (`port` empty).
struct RoundSender {
  int host = -1;
  std::string port;
  std::string plan_text;  // JSON lines: entry, from, to, source_ports
  int probes = 0;
  std::int64_t train_datagrams = 0;
};

// A target of a round, with only the source ports this round sends.
struct RoundTarget {
  std::size_t entry = 0;
  ProbeTarget target;
};

struct Round {
  RoundKind kind = RoundKind::hosts;
  int number = 0;    // within its phase, from 1
  std::string name;  // "switches1", "round1", "loss1": file names and progress
  std::vector<RoundTarget> targets;  // in plan order
  std::vector<RoundSender> senders;  // by host, then port: the same probes
  int probes = 0;
  std::int64_t train_datagrams = 0;  // of a loss round: its trains' datagrams
};

// An entry of the plan: a target as sent so far, and whose probes it is.
struct PlanEntry {
  RoundKind kind = RoundKind::hosts;
  ProbeTarget target;
};

class ProbeRounds {
 public:
  // The first round's targets for `hosts` (the hosts in scope). Throws
  // std::invalid_argument if the options ask for loss rounds and give no
  // estimate to plan them by.
  ProbeRounds(const Blueprint& bp, const std::vector<int>& hosts, const RoundOptions& options);

  // The next round to send, numbered: its targets become entries (or add
  // source ports to theirs). Before it, what the last round's senders saw
  // (`seen`: every observation of the senders so far) decides what more
  // the phase asks for. No value once both phases are over. `can_send`:
  // whether a host's port can send at all (a lab port with no cable has no
  // interface); its probes are left out. Empty: every port can.
  using CanSend = std::function<bool(int host, const std::string& port)>;
  std::optional<Round> next(const Blueprint& bp, const ObservationSet& seen, const CanSend& can_send = {});

  bool done() const { return phase_ == Phase::done; }
  const std::vector<PlanEntry>& entries() const { return entries_; }
  // The hosts the plan sends to: where listeners must run (later rounds
  // add source ports to the first round's pairs, never new destinations).
  std::vector<int> destinations(const Blueprint& bp) const;

  // The state between rounds, with `entries()` as JSON lines beside it
  // (entries_jsonl, the `plan.jsonl` of probe plan and of verify
  // --keep-observations). from_json rebuilds the rounds for the same hosts
  // and options, and checks the entries against `bp`, the state and the
  // plan those give: a plan of another blueprint, scope or options, or a
  // half-written one, is refused. A saved plan is resumed as though every
  // port could send (no CanSend), as `probe plan` hands its rounds out.
  nlohmann::json state_json() const;
  std::string entries_jsonl(const Blueprint& bp) const;
  static hpn::Result<ProbeRounds> from_json(const Blueprint& bp, const std::vector<int>& hosts,
                                       const RoundOptions& options, const nlohmann::json& state,
                                       const std::string& entries, const std::string& entries_name);

 private:
  enum class Phase { switches, hosts, losses, done };
  ProbeRounds() = default;
  Round assign(const Blueprint& bp, const std::vector<ProbeTarget>& round, const CanSend& can_send);

  RoundOptions options_;
  std::vector<int> hosts_;
  Phase phase_ = Phase::switches;
  int number_ = 0;  // rounds handed out in this phase
  std::vector<ProbeTarget> switch_plan_, host_plan_;  // every target of each phase, merged
  std::vector<PlanEntry> entries_;
};

// "switch" / "host" / "loss", as plan.jsonl names an entry's kind.
const char* to_string(RoundKind kind);

}  // namespace hpn::probe
