// A YAML value that runs onto the lines after it, where the file's layout
// says each value ends on its own line. A double- or single-quoted scalar may
// span lines in YAML 1.2 (§7.3), and yaml-cpp also takes a quote that is
// never closed as running to the end of the file: one missing quote then
// swallows every line after it into one string, and the sections there are
// silently not read. A plain scalar continued on a more indented line
// (§7.3.3) folds that line into itself the same way. Pod specs and NIC
// maps have no value that needs a line break, so both are refused; block
// scalars (`|`, `>`), which say they span lines, are not.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

namespace hpn {

struct SpilledScalar {
  int line = 0, column = 0;  // 1-based, of the value's first character
  std::string message;
};

// The first scalar of `root` (keys and values, in document order) whose
// source in `text` runs past the end of its line.
std::optional<SpilledScalar> first_spilled_scalar(const YAML::Node& root, std::string_view text);

}  // namespace hpn
