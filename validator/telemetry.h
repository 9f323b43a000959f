// Telemetry the probes could not get, as findings of their own: switch
// ports that wrote no IOAM record into the traces that entered them (the
// gaps of validator/witness.h), and switches that sent no ICMPv6 error
// for any of the switch probes addressed to them. Neither is a cabling
// fault, and neither may read as one: the cables whose only evidence ran
// through a gap are unobserved, with the reason gap_reason() gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/fabric_index.h"
#include "probe/silence.h"
#include "validator/diff.h"
#include "validator/witness.h"

namespace hpn::validator {

// One `telemetry` finding (a warning) per switch port that wrote nothing
// where the plan puts it in a gap, or one per switch that wrote nothing in
// the whole run, naming its ports; one per gap no single switch explains;
// one per switch that answered none of its switch probes although other
// evidence shows it up (`answered`: Witnesses::device_answered), when loss
// alone would silence that many with a chance below rule.chance. Sorted by
// switch, then port.
std::vector<Finding> telemetry_findings(const FabricIndex& fabric, const Witnesses& w, const probe::SilenceRule& rule);

// Why cable directions crossed across gaps are not seen, as a clause, from
// their DirectionEvidence::silent: "switch tor-p0-s00-r1a wrote no
// telemetry on port etp1a" (ports of one switch together, "at all" for a
// switch that wrote no record in the run; port -1: the switch alone is
// known). A gap start a record of that switch on that port contradicts,
// or none, is "a switch next to it".
std::string gap_reason(const FabricIndex& fabric, const Witnesses& w, const std::vector<PortRef>& silent);

// Is the silence of `probes` switch probes, all addressed to `device` and
// none answered, evidence that it answers none? Loss as in
// probe/silence.h: a switch probe and its error cross the cables up to the
// switch and back, at most 3 each way (host, ToR, aggregation switch,
// core), counted as 2 for a ToR or an aggregation switch and 4 for a core.
bool switch_silence_is_evidence(const Blueprint& bp, int device, std::int64_t probes, const probe::SilenceRule& rule);

}  // namespace hpn::validator
