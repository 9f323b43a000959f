// The path a probe took, as its trace shows it: the planned cables it
// crossed, each in the direction crossed. The loss rounds aim their trains
// along the paths traced before (probe/loss_trains.h), and the loss
// evidence counts each attempt over them (validator/loss_evidence.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "blueprint/fabric_index.h"
#include "probe/observation.h"

namespace hpn::probe {

// A cable's direction: cable * 2 + direction ([0] a -> z, [1] z -> a).
using DirectedCable = std::int32_t;

// Appends to `links` the planned cables a trace crossed, from `out` through
// `hops` to `end` (invalid `end`: the trace ends at its last hop, a switch
// probe's), and returns how many crossings were of no planned cable (a
// miswired one): they lose as any cable does, and a path that leaves them
// out expects too little loss of every cable it names. Appending lets the
// caller reuse one buffer for every trace.
int trace_of(const FabricIndex& fabric, PortRef out, std::span<const ObservedHop> hops, PortRef end,
             std::vector<DirectedCable>& links);

// The directed cables a sender's received record (forward, reverse or
// expired) shows crossed, in path order.
std::vector<DirectedCable> traced_cables(const FabricIndex& fabric, const Observation& received);

}  // namespace hpn::probe
