// Random mixes of the faults the forwarding model can put on a wiring
// (forwarding_model.h), each with the finding the diff should give for
// it, and the score of a report against them: for the diagnosis tests and
// benchmark at pod scale.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "validator/diff.h"
#include "fabricmodel/forwarding_model.h"

namespace hpn::fabricmodel {

struct InjectedFault {
  validator::FindingKind kind = validator::FindingKind::missing;  // the finding it should give
  std::string fault;          // what was done, for messages: "down", "drop-a-z", "loss-z-a:5", "swap", ...
  std::vector<int> cables;    // the cables the finding should name, ascending
  int direction = -1;         // lossy: the lossy direction
};

// `count` faults on distinct ToRs and hosts (so that no two meet at a ToR
// and each has one right answer), on host and ToR-aggregation cables,
// drawn with `random`, applied to `wiring`: dark cables, one-way breaks,
// swaps at a ToR, cables on the wrong port or aggregation switch, host
// cables exchanged across rails, uplinks exchanged across planes, a host
// cable on the same rail's ToR of another segment; at the hosts' side,
// the host ends of two hosts' cables exchanged, a host's cables exchanged
// between two NICs, both ports of a NIC dark; an uplink's ToR end on
// another port; and one-way loss of 2%, 5% or 30%. A kind the fabric has
// no room for (a spare port, a partner ToR) is skipped; a dark NIC is two
// faults, one per cable. `losses` false: miswires and breaks only.
std::vector<InjectedFault> inject_faults(const FabricIndex& fabric, std::vector<lab::WiredCable>& wiring, int count,
                                         std::mt19937_64& random, bool losses = true);

struct DiagnosisScore {
  int faults = 0, named = 0;          // faults, and of them named exactly
  int findings = 0, correct = 0;      // findings above info, and of them naming an injected fault exactly
  std::map<std::string, std::pair<int, int>> by_kind;  // kind -> (named, injected)
  std::vector<std::string> misses;    // faults not named exactly, and false findings, as sentences
  double precision() const { return findings ? static_cast<double>(correct) / findings : 1; }
  double recall() const { return faults ? static_cast<double>(named) / faults : 1; }
};

DiagnosisScore score_report(const FabricIndex& fabric, const validator::Report& report, const std::vector<InjectedFault>& faults);

}  // namespace hpn::fabricmodel
