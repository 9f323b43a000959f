// Cable faults as the lab realises them (FIELD.md §3: no netem here):
//   down          both ends of the veth pair stay administratively down;
//   drop-a-z      an nftables netdev egress chain on the a end drops everything;
//   loss-a-z:N    the same chain drops N% at random (`numgen random mod 100`);
//   --loss N      every cable that is not down, both directions, N% at random
//                 (drawn apart from the cable's own fault).
// Each chain counts what is sent and what each rule drops (nft counters), so
// a test can read the rate the kernel really applied.
// One-way faults act at the sender's egress hook, before the frame reaches
// the veth and so before anything on the far side can see it: the far end's
// stack and its packet sockets (lldpd, tcpdump) hear nothing, as behind a
// broken fibre. (An ingress hook runs after the receiver's packet sockets
// have been handed the frame, so LLDP would still hear a dropped direction.)
#pragma once

#include <string>

#include "lab/lab_topology.h"

namespace hpn::lab {

// The nftables table name every fault chain of the lab lives in.
inline constexpr const char* kFaultTable = "hpnctl_lab_faults";

// When a fault strikes. A one-way break on a cable between two switches is
// there before BGP starts, so its session never forms (the far end hears
// the near end's router advertisements or nothing; verify --bgp reads
// which). A one-way break on a host cable, and all loss, strike the
// converged fabric: the HPN incident of a NIC sending into a fibre broken
// one way, whose ToR still held the host (HPN §10).
enum class FaultPhase { before_routing, converged };

// The `nft -f` script for the faults leaving one node that are in force in
// `phase` (those of before_routing stay in force later), or empty when
// none. A converged-phase script replaces the node's earlier table in one
// transaction.
std::string fault_script(const LabTopology& topology, int node, FaultPhase phase);

// Does this end of the link stay down?
bool stays_down(const LabLink& link);

}  // namespace hpn::lab
