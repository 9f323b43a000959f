// Path classes: how far apart two hosts of the fabric are, by the blueprint,
// and what that costs in round-trip time. NCCLX sizes its transport per class
// (same rack, zone, datacenter), so a class's numbers must hold for every pair
// of hosts in it: each class is measured on its longest path.
//
//   same-segment  host - ToR - host                         1 switch hop
//   cross-rail    host - ToR - agg - ToR - host             3 (same segment, another rail)
//   same-pod      host - ToR - agg - ToR - host             3 (another segment)
//   same-hall     host - ToR - agg - core - agg - ToR - host 5 (another pod)
//   other-hall    the same 5 hops, to a pod in another building
//
// Rails: rail-optimized traffic keeps to its rail where it can (NCCL's PXN
// moves data to the GPU of the right rail over NVLink first), so the other
// classes run NIC r to NIC r. Traffic that does not (a GPU of rail r sending
// to a GPU of rail r' of another host of its segment) has no ToR in common
// with its peer: it goes up to an aggregation switch of its plane and down
// to the ToR of the other rail. HPN keeps the aggregation layer any-to-any
// for exactly that traffic (HPN section 5). The class is symmetric, like
// every other: which rail is whose does not change the path's length.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/model.h"
#include "planner/spec.h"

namespace hpn {

enum class PathScope { same_segment, cross_rail, same_pod, same_hall, other_hall };
std::string_view to_string(PathScope scope);

// One cable of a class's longest path, source end first.
struct PathLeg {
  CableKind kind = CableKind::host_tor;
  std::string cable;  // its ID
  int length_m = 0;
};

struct PathClass {
  PathScope scope = PathScope::same_segment;
  int hops = 0;                // switches crossed one way
  std::vector<PathLeg> legs;   // the longest path of the class, cable by cable
  int length_m = 0;            // the sum of the legs
  int64_t rtt_ns = 0;
  int64_t bdp_bytes = 0;       // at the NIC speed the class was computed for
};

// The timing inputs of a class, from the spec's transport section.
struct PathTiming {
  int switch_latency_ns = 0;
  int nic_latency_ns = 0;
  double fibre_ns_per_m = 0;
  int nic_gbps = 0;            // the bond's usable bandwidth
};
PathTiming path_timing(const TransportSpec& transport, int nic_gbps);

// RTT = 2 x (hops x switch latency + 2 x NIC latency + metres x fibre delay),
// rounded up to a nanosecond; BDP = RTT x NIC speed, rounded up to a byte.
int64_t round_trip_ns(int hops, int length_m, const PathTiming& timing);
int64_t bdp_bytes(int64_t rtt_ns, int nic_gbps);

// Every class the blueprint has at least one pair of hosts for, nearest
// first. The longest path of a class is the sum of the longest cable of each
// of its legs, taken over the pair of segments (pods, halls) that makes it
// longest: an upper bound of every path of the class, reached or nearly so.
std::vector<PathClass> path_classes(const Blueprint& bp, const PathTiming& timing);

}  // namespace hpn
