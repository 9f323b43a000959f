// Errors that point at the spot: `pod.yaml:14:7: message`, then the source
// line and a caret under the column (the ninja / compiler convention).
#pragma once

#include <string>
#include <string_view>

#include "planner/spec.h"

namespace hpn {

// Renders one located error. Without a location (line 0) only `name: message`.
std::string format_diagnostic(std::string_view source_name, std::string_view source_text,
                              SourceLocation where, std::string_view message);

// The closest candidate by edit distance, or empty if none is close enough
// to be a plausible typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hpn
