// Diagrams on disk: a directory of DOT files, or of SVG files rendered by
// Graphviz's `dot`, which runs as a subprocess (libgvc from
// libgraphviz-dev would link all of Graphviz's layout engines and plugins
// into hpnctl for one call per diagram; `dot` is the graphviz package the
// tests need anyway, and a process per diagram renders them in parallel).
#pragma once

#include <string>
#include <vector>

#include "blueprint/export_diagram.h"
#include "blueprint/result.h"

namespace hpn {

// Refuses a target that is not empty and not an earlier diagram set (it has
// a diagrams.json), before anything is built.
Status check_diagram_target(const std::string& dir);

// Is Graphviz's `dot` on PATH?
bool graphviz_available();

// Writes the diagrams into directory `dir`, all or nothing (a staged
// directory, like plans), with a diagrams.json index: NAME.dot each, or
// NAME.svg each rendered by `dot -Tsvg` when `svg` is set. Graphviz runs as a
// subprocess, as many at a time as there are CPUs.
Status write_diagrams(const Blueprint& bp, const std::vector<Diagram>& diagrams, const std::string& dir, bool svg);

}  // namespace hpn
