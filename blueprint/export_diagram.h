// Graphviz diagrams of a plan: one per rail of each segment (the segment's
// hosts in their racks, the rail's ToRs under them, plane 1 left of plane 2;
// rail_diagram.h) and one overview per pod (its segments, each aggregation
// plane, the core switches of that plane, with the cable count and speed on
// each bundle). Each carries a legend of its node kinds and plane colours.
#pragma once

#include <string>
#include <vector>

#include "blueprint/export_scope.h"
#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

struct Diagram {
  std::string name;  // file stem: "segment-P-S-rail-R" or "pod-P"
  std::string kind;  // "segment" or "pod"
  int pod = kNone;
  int segment = kNone;
  int rail = kNone;
  int nodes = 0;     // graph nodes: racks and ToRs, or the overview's bundles of devices
  int edges = 0;     // lines, each a bundle of cables
  int cables = 0;    // the host-ToR cables a segment diagram draws
  std::string dot;   // the DOT source
};

// The diagrams of the scope, in order: for each pod, its overview, then its
// segments ascending, each rail by rail. --segment leaves the overviews out; --switch does not
// apply to diagrams (check it before).
std::vector<Diagram> build_diagrams(const Blueprint& bp, const ExportScope& scope);

}  // namespace hpn
