// Graphviz diagrams of a plan: one per segment (its hosts above, its ToRs
// below in one cluster per rail, a line per host-ToR cable coloured by plane)
// and one overview per pod (its segments, each aggregation plane, the core
// switches of that plane, with the cable count and speed on each bundle).
#pragma once

#include <string>
#include <vector>

#include "blueprint/export_scope.h"
#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

struct Diagram {
  std::string name;  // file stem: "segment-P-S" or "pod-P"
  std::string kind;  // "segment" or "pod"
  int pod = kNone;
  int segment = kNone;
  int nodes = 0;     // graph nodes (devices, or bundles of them in the overview)
  int edges = 0;
  std::string dot;   // the DOT source
};

// The diagrams of the scope, in order: for each pod, its overview, then its
// segments ascending. --segment leaves the overviews out; --switch does not
// apply to diagrams (check it before).
std::vector<Diagram> build_diagrams(const Blueprint& bp, const ExportScope& scope);

}  // namespace hpn
