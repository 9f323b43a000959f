#include "planner/yaml_lines.h"

namespace hpn {

namespace {

// Does the quoted scalar opening at text[at] close before the end of its
// line? YAML 1.2 §7.3.1 (double: backslash escapes) and §7.3.2 (single:
// '' is a quote).
bool quote_closes_on_line(std::string_view text, size_t at) {
  const char quote = text[at];
  for (size_t i = at + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') return false;
    if (quote == '"' && c == '\\') {
      ++i;  // the escaped character (an escaped line break spans too)
      if (i < text.size() && (text[i] == '\n' || text[i] == '\r')) return false;
      continue;
    }
    if (c != quote) continue;
    if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
      ++i;
      continue;
    }
    return true;
  }
  return false;
}

std::optional<SpilledScalar> check_scalar(const YAML::Node& node, std::string_view text) {
  const YAML::Mark m = node.Mark();
  if (m.pos < 0 || static_cast<size_t>(m.pos) >= text.size()) return std::nullopt;
  size_t at = static_cast<size_t>(m.pos);
  // A tag or an anchor before the value: "!!str &a 'x'".
  while (at < text.size() && (text[at] == '!' || text[at] == '&')) {
    while (at < text.size() && text[at] != ' ' && text[at] != '\n') ++at;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  if (at >= text.size()) return std::nullopt;
  const char c = text[at];
  const SpilledScalar here{m.line + 1, m.column + 1 + static_cast<int>(at - static_cast<size_t>(m.pos)), {}};
  if (c == '|' || c == '>' || c == '*') return std::nullopt;  // a block scalar, an alias
  if (c == '"' || c == '\'') {
    if (quote_closes_on_line(text, at)) return std::nullopt;
    SpilledScalar s = here;
    s.message = "a quoted value that does not end on its line: the lines after it were read into it "
                "(a closing quote missing?)";
    return s;
  }
  // A plain scalar: its value is what its line holds from here on (a
  // comment or more of a flow collection may follow it).
  const size_t end = text.find('\n', at);
  const std::string_view line = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
  if (line.starts_with(node.Scalar())) return std::nullopt;
  SpilledScalar s = here;
  s.message = "a value that goes on over the next line: that line was read into it (a line indented too far, "
              "or a ':' missing?)";
  return s;
}

std::optional<SpilledScalar> walk(const YAML::Node& node, std::string_view text) {
  if (node.IsScalar()) return check_scalar(node, text);
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (auto s = walk(it->first, text)) return s;
      if (auto s = walk(it->second, text)) return s;
    }
  } else if (node.IsSequence()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (auto s = walk(*it, text)) return s;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpilledScalar> first_spilled_scalar(const YAML::Node& root, std::string_view text) {
  return walk(root, text);
}

}  // namespace hpn
