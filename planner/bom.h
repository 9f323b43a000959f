// The bill of materials: devices by role, cables by media and stocked length,
// optics by part.
#pragma once

#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "planner/spec.h"

namespace hpn {

// The stocked length a cable of `length_m` is cut from: the smallest bin
// that covers it (bins ascending, as the spec checks), rounded up to whole
// metres; beyond the last bin, the length itself.
int stock_length_m(const std::vector<double>& bins_m, int length_m);

// Cables are counted in the smallest stocked length (media.length_bins_m)
// that covers them (Cable::stock_length_m). Optics: one per optical cable end; a broken-out cage
// takes one optic for all its sub-ports (the fan-out is in the fibre).
Result<std::vector<BomLine>> bill_of_materials(const Spec& spec, const Blueprint& bp);

}  // namespace hpn
