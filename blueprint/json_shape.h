// A bound on the shape of JSON text, checked before a DOM is built from it.
// nlohmann::json holds every value as a node of its own (16 bytes, plus a
// vector or map entry for each member), so a few megabytes of nothing but
// brackets ("[[[[...", "[[],[],...") become gigabytes of DOM: a 60 MB dump of
// nested brackets took 2.35 GB. The scan counts nesting and values without
// allocating, and refuses text past the bounds with the line and column of
// the first bracket or value too many.
#pragma once

#include <cstddef>
#include <string_view>

#include "blueprint/result.h"

namespace hpn {

struct JsonBounds {
  std::size_t max_depth;   // nesting of arrays and objects
  std::size_t max_values;  // values of every kind, members and elements
  std::string_view what;   // "an LLDP dump", for the message
};

// SOURCE:LINE:COL: JSON nested deeper than N levels; WHAT nests far less
// SOURCE:LINE:COL: more than N JSON values; too many for WHAT
// Text that is not JSON passes: the parser that follows says why.
Status check_json_bounds(std::string_view text, std::string_view source, const JsonBounds& bounds);

}  // namespace hpn
