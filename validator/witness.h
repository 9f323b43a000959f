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

#include "probe/loss_tomography.h"
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
  // down to another: (source ToR, destination ToR) -> how many. Where the
  // traffic down a ToR's uplinks came from, which decides what their
  // silence means (diff.cpp).
  std::map<std::pair<int, int>, int64_t> tor_to_tor;
  // Every attempt of every probe, by the directed cables it crossed: what
  // the loss estimate (probe/loss_tomography.h) works from.
  probe::LossEvidence loss;
};

Witnesses collect_witnesses(const FabricIndex& fabric, const probe::ObservationSet& obs);

}  // namespace hpn::validator
