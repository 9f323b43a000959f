// From a received Hop-by-Hop header to the hops an observation records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "blueprint/result.h"
#include "probe/observation.h"

namespace hpn::probe {

// Room pre-allocated in every probe and reply: an HPN path crosses at most 5
// switches (ToR, aggregation, core, aggregation, ToR); twice that leaves room
// for a miswired detour and still fits one option (10 x 8 bytes).
inline constexpr unsigned kProbeTraceHops = 10;

// The Hop-by-Hop header probes and replies are sent with: an empty
// pre-allocated trace (node id, interface ids) of `ioam_namespace`.
std::vector<std::byte> probe_hop_by_hop(std::uint16_t ioam_namespace);

// The hop records, in path order, of the pre-allocated IOAM trace of
// namespace `ioam_namespace` in `hbh` (a whole Hop-by-Hop header). An error
// when the header does not decode or holds no such trace: the probe crossed
// the fabric, but what it says about the path cannot be read. Fields a node
// did not write or marked unavailable are -1; a wide (56-bit) node id stands
// in when the short one is absent and the value fits the 24 bits observations
// allow.
hpn::Result<std::vector<ObservedHop>> observed_hops(std::span<const std::byte> hbh, std::uint16_t ioam_namespace);

}  // namespace hpn::probe
