// Cable faults as the lab realises them (FIELD.md §3: no netem here):
//   down          both ends of the veth pair stay administratively down;
//   drop-a-z      an nftables netdev ingress chain on the z end drops everything;
//   loss-a-z:N    the same chain drops N% at random (`numgen random mod 100`);
//   --loss N      every cable that is not down, both directions, N% at random
//                 (drawn apart from the cable's own fault).
// Each chain counts what arrives and what each rule drops (nft counters), so
// a test can read the rate the kernel really applied.
// One-way faults act where the packet arrives, so the sender's interface,
// counters and neighbour entry look healthy: the fibre, not the port, is broken.
#pragma once

#include <string>

#include "dataplane/lab_topology.h"

namespace hpn::lab {

// The nftables table name every fault chain of the lab lives in.
inline constexpr const char* kFaultTable = "hpnctl_lab_faults";

// The `nft -f` script for the faults arriving at one node, or empty when none.
std::string fault_script(const LabTopology& topology, int node);

// Does this end of the link stay down?
bool stays_down(const LabLink& link);

}  // namespace hpn::lab
