// From observations to evidence: each decoded trace becomes a chain of
// directed links (sender port -> first switch's ingress, each switch's egress
// -> the next one's ingress, the last egress -> the receiver's port), checked
// against the blueprint's cables.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "probe/observation.h"
#include "blueprint/fabric_index.h"

namespace hpn::validator {

struct DirectionEvidence {
  int64_t sent = 0;      // probes whose path had to cross this way (first and last cables only)
  int64_t received = 0;  // traces that show the cable crossed this way
};

struct CableEvidence {
  DirectionEvidence dir[2];  // [0] a -> z, [1] z -> a
};

struct Witnesses {
  std::vector<CableEvidence> cables;                       // by cable index
  std::map<std::pair<PortRef, PortRef>, int64_t> unplanned;  // directed links the plan does not have
  std::vector<bool> device_seen;                           // a device on some witnessed link
  std::set<int> probed_hosts;                              // senders and receivers
  bool inter_pod = false;                                  // some probe was meant to cross pods
  int64_t observations = 0, received = 0, lost = 0;
  int64_t unreadable_hops = 0;  // links not decided: unknown node or port ID, or an empty record
  std::set<std::string> unknown_devices;                   // sender or receiver names not in the plan
};

Witnesses collect_witnesses(const FabricIndex& fabric, const std::vector<probe::Observation>& obs);

}  // namespace hpn::validator
