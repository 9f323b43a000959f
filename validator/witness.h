// From observations to evidence: each decoded trace becomes a chain of
// directed links (sender port -> first switch's ingress, each switch's egress
// -> the next one's ingress, the last egress -> the receiver's port), checked
// against the blueprint's cables.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "validator/loss_evidence.h"
#include "probe/observation.h"
#include "probe/silence.h"
#include "blueprint/fabric_index.h"

namespace hpn::validator {

struct DirectionEvidence {
  // Probes that, or whose reply, had to cross this way (host cables only:
  // the first and last cables of a path are fixed by the sender and the
  // destination; the ones between are an ECMP choice).
  int64_t sent = 0;
  int64_t received = 0;  // traces that show the cable crossed this way
  // `sent` by how far each probe reached (probe/silence.h): what decides
  // whether their silence can be loss.
  probe::ProbesByReach sent_by_reach{};
  // LLDP ran at both ends (validator/lldp.h): this direction's silence is
  // evidence whatever the probe counts.
  bool lldp = false;
  // Both ends' BGP sessions were read (validator/bgp.h): likewise.
  bool bgp = false;
  // Distinct five-tuples whose traces show this way crossed. An ECMP
  // group's silence is judged by these, not by traces: every datagram of
  // one five-tuple hashes alike, and a loss round's train reuses the
  // five-tuple of a probe already traced (probe/loss_trains.h).
  int64_t flows = 0;
  // Traces that crossed this way by the plan but where a switch wrote no
  // telemetry (a gap: see Witnesses::gaps), so they cannot show it; and
  // the gap_start() of those gaps, the lowest one when several.
  int64_t across_gap = 0;
  PortRef silent;
};

// A BGP session whose peer spoke with an AS the plan does not give it.
struct AsnMismatch {
  int cable = -1;             // the planned cable at `port`, -1 if none
  PortRef port;               // where the session runs
  std::int64_t planned = 0;   // the AS the plan gives the device at the far end
  std::int64_t observed = 0;  // what its OPEN said
  std::string peer;           // the peer as it named itself
};

struct CableEvidence {
  DirectionEvidence dir[2];  // [0] a -> z, [1] z -> a
};

struct Witnesses {
  std::vector<CableEvidence> cables;                       // by cable index
  std::map<std::pair<PortRef, PortRef>, int64_t> unplanned;  // directed links the plan does not have
  std::vector<bool> device_seen;                           // a device on some witnessed link
  std::set<int> probed_hosts;                              // senders and receivers
  std::set<int> probed_switches;                           // switches that answered a switch probe
  // Switch probes addressed to each switch, answered or not: a switch that
  // answers none of enough of them sends no ICMPv6 errors (diff.cpp).
  std::map<int, int64_t> switch_probes_sent;
  // A device some evidence shows alive on the fabric: it wrote a trace
  // record, answered a switch probe, forwarded a probe as the first switch
  // of a telemetry gap (gap_start()), or a BGP session or an LLDP agent of
  // its own or of a peer heard it or was heard by it. A dump read from a
  // switch whose sessions hear nothing is no such evidence.
  std::vector<bool> device_answered;
  bool inter_pod = false;                                  // some probe was meant to cross pods
  int64_t observations = 0, received = 0, lost = 0;
  int64_t expired = 0;  // of received: hop-limited probes quoted by the switch where they ran out
  int64_t unreadable_hops = 0;  // links not decided: unknown node or port ID, or an empty record
  std::set<std::string> unknown_devices;                   // sender or receiver names not in the plan
  std::set<int> lldp_devices;                              // devices whose LLDP neighbour dump was read
  std::set<int> bgp_devices;                               // devices whose BGP sessions were read
  std::vector<AsnMismatch> asn_mismatches;
  // Traces through a core: (core, in-port, destination pod, out-port) ->
  // how many, port indexes of the core's panel. What core-rules.csv says
  // of the same (core, in-port, pod) is the diff's to check.
  std::map<std::tuple<int, int, int, int>, int64_t> core_hops;
  // Traces that went up from one ToR through an aggregation switch and
  // down to another: (source ToR, destination ToR) -> how many distinct
  // five-tuples. Where the traffic down a ToR's uplinks came from, which
  // decides what their silence means (diff.cpp).
  std::map<std::pair<int, int>, int64_t> tor_to_tor;
  // Telemetry gaps. Each switch writes one IOAM record into a probe it
  // forwards, its hop limit one less than the switch before it (RFC 9197
  // §4.4.2.1; the Linux kernel writes it after decrementing): two records
  // whose hop limits differ by more than one, a trace that starts past
  // its sender's ToR or ends before its receiver's (a host is cabled to
  // ToRs only), or a switch probe's trace that ends before the switch it
  // was addressed to, crossed switches that wrote nothing. Nothing is
  // witnessed across a gap: a missing record would otherwise join two
  // switches that have no cable between them, a false miswire. The cables
  // at its two ends are credited `across_gap` instead. (the last port
  // seen before the gap, the first seen after it, invalid when the trace
  // ended) -> traces; gap_start() names the switch that left it.
  std::map<std::pair<PortRef, PortRef>, int64_t> gaps;
  // By device, then port index: the switch ports some record names as
  // its ingress. A gap's first port that another trace shows writing was
  // not what left the gap.
  std::vector<std::vector<bool>> recorded_ingress;
  // Every attempt of every probe, by the directed cables it crossed: what
  // the loss estimate (validator/loss_estimate.h) works from.
  LossEvidence loss;
};

Witnesses collect_witnesses(const FabricIndex& fabric, const probe::ObservationSet& obs);

// The first switch of a telemetry gap from `from` to `to` (either may be
// invalid), by the plan: the planned peer of `from`, the port it entered
// by; failing that the switch the plan puts before `to`, its port -1 (not
// known); failing that, invalid. Judged on the plan alone (see
// Witnesses::recorded_ingress for what contradicts it).
PortRef gap_start(const FabricIndex& fabric, PortRef from, PortRef to);

}  // namespace hpn::validator
