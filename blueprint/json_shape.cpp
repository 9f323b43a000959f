#include "blueprint/json_shape.h"

#include <fmt/format.h>

namespace hpn {

Status check_json_bounds(std::string_view text, std::string_view source, const JsonBounds& bounds) {
  // Outside strings (RFC 8259 §7: a string ends at an unescaped quote), each
  // array or object opened is a value and a level, and each comma starts
  // one more value: the values of the document are at most 1 + opens +
  // commas, which is what its DOM will hold.
  std::size_t depth = 0, values = 1;
  int line = 1, column = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > bounds.max_depth) {
          return Error{fmt::format("{}:{}:{}: JSON nested deeper than {} levels; {} nests far less", source, line,
                                   column, bounds.max_depth, bounds.what)};
        }
        [[fallthrough]];
      case ',':
        if (++values > bounds.max_values) {
          return Error{fmt::format("{}:{}:{}: more than {} JSON values; too many for {}", source, line, column,
                                   bounds.max_values, bounds.what)};
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return {};
}

}  // namespace hpn
