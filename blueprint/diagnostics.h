// Errors that point at the spot: `pod.yaml:14:7: message`, then the source
// line and a caret under the column (the ninja / compiler convention).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hpn {

// Where a key sat in an input file (a spec, a profile), for errors that
// point at it.
struct SourceLocation {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// Renders one located error. Without a location (line 0) only `name: message`.
std::string format_diagnostic(std::string_view source_name, std::string_view source_text,
                              SourceLocation where, std::string_view message);

// The closest candidate by edit distance, or empty if none is close enough
// to be a plausible typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hpn
