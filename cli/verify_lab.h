// `hpnctl verify --lab`: the lab brought up from the plan (and a wiring
// file), probed from every host, taken down again; the observations and
// every switch's BGP sessions come back for the diff.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "cli/progress.h"
#include "blueprint/result.h"
#include "lab/wiring.h"
#include "probe/loss_stats.h"
#include "probe/observation.h"
#include "probe/silence.h"
#include "validator/bgp.h"

namespace hpn::cli {

// `loss_percent`: random loss on every cable of the lab (lab up --loss).
// `silence`: the rule the diff will judge by; the probe plan's extra rounds
// go on until each silent host-cable direction is past it (its `attempts`
// are this lab's, lab_probe_attempts()). `loss` and `loss_budget`: the
// lossy rule the diff will judge by (its `detect` sizes the loss rounds'
// trains), and the attempts those may make across any one direction
// (probe/loss_trains.h).
struct LabEvidence {
  probe::ObservationSet observations;
  std::vector<validator::BgpDump> bgp;  // one per switch, as its bgpd reported once converged
  std::string teardown_error;           // lab down failed after the probing: the lab may be partly up
};
// On failure `failure_code` says whose: kInputError (the wiring file, a lab
// too big) or kEnvironmentError (not root, the lab, the probes). Progress
// shows on a terminal unless `verbosity` is quiet.
Result<LabEvidence> observe_lab(const Blueprint& bp, const std::string& blueprint_dir,
                                const std::optional<std::string>& wiring, const std::string& scope,
                                const std::optional<std::string>& keep, int loss_percent,
                                const probe::SilenceRule& silence, const probe::LossOptions& loss, std::int64_t loss_budget,
                                const Verbosity& verbosity, int& failure_code);

// The attempts each probe of verify --lab makes (its senders' retries + 1).
int lab_probe_attempts();

}  // namespace hpn::cli
