// The diagram of one rail of one segment: the segment's hosts as they stand
// in their racks, rack rows in floor order, and under them the rail's ToRs,
// plane 1 left of plane 2, with one line per rack and ToR for the cables
// between them.
//
// A whole segment in one picture (136 hosts, 16 ToRs, 2,176 cables) has to
// be a single row of hosts over a band of lines; a rail of it is the same
// 136 hosts but two ToRs, and in the rail-optimized design (HPN §4) every
// rail looks alike, so a technician reads one and knows the others. Hosts
// are rows of a table per rack (unit, host, ToR port), which keeps 136 hosts
// in 34 boxes; a rack's cables to one ToR are one line labelled with their
// count, the cable IDs in its tooltip.
#pragma once

#include <vector>

#include "blueprint/export_diagram.h"
#include "blueprint/model.h"

namespace hpn {

// `tors`: the rail's ToRs in the segment; `cables[t]`: the host-ToR cables
// of device t, in plan order (empty for devices that are not ToRs).
Diagram rail_diagram(const Blueprint& bp, int pod, int segment, int rail, const std::vector<int>& tors,
                     const std::vector<std::vector<int>>& cables);

}  // namespace hpn
