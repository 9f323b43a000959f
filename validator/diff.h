// The diff: witnessed links against the blueprint's cables, as findings a
// technician can act on. Pure: a blueprint and evidence in, a Report out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "blueprint/fabric_index.h"
#include "validator/loss_estimate.h"
#include "probe/silence.h"
#include "validator/finding.h"
#include "validator/witness.h"

namespace hpn::validator {

struct DiffOptions {
  // A deterministic direction (a host cable) needs this many probes, and
  // enough that loss alone would silence them all with a chance below
  // silence.chance (probe/silence.h), before its silence counts as
  // evidence of absence.
  int min_probes = 3;
  probe::SilenceRule silence;
  // An ECMP member's silence counts once the chance that uniform hashing
  // missed it by luck, (1 - 1/n)^N after N probes over n members, is below this.
  double miss_probability = 1e-3;
  // --scope: the hosts whose cables, and whose ToRs' uplinks and pods'
  // core cables, the verdict is about; empty: the whole fabric.
  std::vector<int> scope_hosts;
  // When a direction is lossy, and how sure (validator/loss_estimate.h).
  probe::LossOptions loss;
};

// What a lossy finding rests on (validator/loss_estimate.h).
struct LossFinding {
  int direction = 0;                    // [0] a -> z, [1] z -> a
  std::int64_t attempts = 0, lost = 0;  // attempts whose path crossed it, and of them lost
  double rate = 0, low = 0, high = 0;   // its own loss, with its 95% interval
  double baseline = 0;                  // the run's background loss per crossing
};

struct Finding {
  FindingKind kind = FindingKind::missing;
  Severity severity = Severity::critical;
  std::vector<int> cables;  // blueprint cable indices this finding concerns
  std::string expected;  // the planned ends, "a-device:port -- z-device:port"
  std::string observed;  // what the traces showed
  std::string message;   // one sentence a technician can act on
  std::optional<LossFinding> loss;  // lossy only
  // telemetry and unreached: the switch they are about, and for telemetry
  // the ports it wrote nothing on (empty: not known, or none is the point).
  std::string device;
  std::vector<std::string> ports;
};

struct Report {
  std::vector<Finding> findings;
  std::vector<CableEvidence> evidence;  // by cable index (per direction sent/received)
  struct Coverage {
    int64_t in_scope = 0, verified = 0, unobserved = 0, out_of_scope = 0;
  };
  struct Summary {
    int64_t observations = 0, received = 0, lost = 0, unreadable_hops = 0;
    int64_t cables_in_scope = 0, cables_verified = 0, cables_out_of_scope = 0;
    std::map<FindingKind, int64_t> by_kind;
    // Per cable kind ("host-tor", "tor-agg", "agg-core"): a cable in scope
    // is verified (seen both ways), found at fault, or unobserved.
    std::map<std::string, Coverage> coverage;
    // The loss estimate: background loss per crossing, the directions
    // crossed (tested), and those left undecided (more probes would tell).
    double baseline_loss = 0;
    int64_t loss_directions_tested = 0, loss_undecided = 0;
    bool loss_judged = true;  // false: the background was above LossOptions::max_background
  } summary;
  std::vector<std::string> unknown_devices;
  // A verdict needs evidence: no finding above "info", at least one cable
  // in scope, and every cable in scope verified both ways. Unobserved
  // cables keep a run from being clean without being called missing.
  bool clean() const;
};

Report diff(const FabricIndex& fabric, const Witnesses& witnesses, const DiffOptions& options = {});

}  // namespace hpn::validator
