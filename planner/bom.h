// The bill of materials: devices by role, cables by media and stocked length,
// optics by part.
#pragma once

#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "planner/spec.h"

namespace hpn {

// Cables are counted in the smallest stocked length (media.length_bins_m)
// that covers them. Optics: one per optical cable end; a broken-out cage
// takes one optic for all its sub-ports (the fan-out is in the fibre).
Result<std::vector<BomLine>> bill_of_materials(const Spec& spec, const Blueprint& bp);

}  // namespace hpn
