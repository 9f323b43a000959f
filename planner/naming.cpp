#include "planner/naming.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "blueprint/names.h"

namespace hpn {

const std::vector<std::string>& pattern_fields(std::string_view key) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> fields{
      {"host", {"pod", "segment", "host", "hall"}},
      {"tor", {"pod", "segment", "rail", "side", "plane"}},
      {"agg", {"pod", "plane", "index"}},
      {"core", {"plane", "index"}},
      {"frontend", {"pod", "segment", "leaf", "side"}},
      {"host_port", {"nic", "port"}},
      {"switch_port", {"cage", "sub"}},
      {"cable", {"pod", "kind", "seq"}},
      {"rack", {"hall", "row", "position"}},
  };
  static const std::vector<std::string> none;
  auto it = fields.find(key);
  return it == fields.end() ? none : it->second;
}

std::string letter(int n) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('a' + n % 26));
    n = n / 26 - 1;
  } while (n >= 0);
  return s;
}

std::string host_name(const std::string& p, int pod, int segment, int host, int hall) {
  return fmt::format(fmt::runtime(p), fmt::arg("pod", pod), fmt::arg("segment", segment),
                     fmt::arg("host", host), fmt::arg("hall", hall));
}
std::string tor_name(const std::string& p, int pod, int segment, int rail, std::string_view side, int plane) {
  return fmt::format(fmt::runtime(p), fmt::arg("pod", pod), fmt::arg("segment", segment),
                     fmt::arg("rail", rail), fmt::arg("side", side), fmt::arg("plane", plane));
}
std::string agg_name(const std::string& p, int pod, int plane, int index) {
  return fmt::format(fmt::runtime(p), fmt::arg("pod", pod), fmt::arg("plane", plane),
                     fmt::arg("index", index));
}
std::string core_name(const std::string& p, int plane, int index) {
  return fmt::format(fmt::runtime(p), fmt::arg("plane", plane), fmt::arg("index", index));
}
std::string frontend_name(const std::string& p, int pod, int segment, int leaf, std::string_view side) {
  return fmt::format(fmt::runtime(p), fmt::arg("pod", pod), fmt::arg("segment", segment),
                     fmt::arg("leaf", leaf), fmt::arg("side", side));
}
std::string host_port_name(const std::string& p, int nic, int port) {
  return fmt::format(fmt::runtime(p), fmt::arg("nic", nic), fmt::arg("port", port));
}
std::string switch_port_name(const std::string& p, int cage, std::string_view sub) {
  return fmt::format(fmt::runtime(p), fmt::arg("cage", cage), fmt::arg("sub", sub));
}
std::string cable_name(const std::string& p, int pod, std::string_view kind, int seq) {
  return fmt::format(fmt::runtime(p), fmt::arg("pod", pod), fmt::arg("kind", kind),
                     fmt::arg("seq", seq));
}
std::string rack_name(const std::string& p, int hall, int row, int position) {
  return fmt::format(fmt::runtime(p), fmt::arg("hall", hall), fmt::arg("row", row),
                     fmt::arg("position", position));
}

namespace {

// The values a field takes when the planner names something, small and
// large: a string field may be empty (a single-ToR fabric has no side, a
// cage no sub-port), and an integer grows to six digits (cable sequence
// numbers). A name is checked for each combination.
const std::vector<std::string>& string_samples(std::string_view key, std::string_view field) {
  static const std::vector<std::string> side_or_sub{"", "a", "b", "ab"}, kinds{"H", "A", "C", "F"},
      sides{"a", "b"};
  if (field == "kind") return kinds;
  if (key == "frontend" && field == "side") return sides;  // front-end leaves always come in pairs
  return side_or_sub;
}

bool is_string_field(std::string_view field) { return field == "side" || field == "sub" || field == "kind"; }

// Interface names (host_port) stay within IFNAMSIZ: a host has tens of NICs
// and ports, not millions.
const std::vector<int>& int_samples(std::string_view key) {
  static const std::vector<int> names{0, 1, 10, 999999}, ports{0, 1, 10, 99};
  return key == "host_port" ? ports : names;
}

std::string render(std::string_view key, const std::string& p, const std::map<std::string, std::string>& strings,
                   const std::map<std::string, int>& ints) {
  auto i = [&](const char* f) { return ints.count(f) ? ints.at(f) : 1; };
  auto s = [&](const char* f) { return strings.count(f) ? strings.at(f) : std::string("a"); };
  if (key == "host") return host_name(p, i("pod"), i("segment"), i("host"), i("hall"));
  if (key == "tor") return tor_name(p, i("pod"), i("segment"), i("rail"), s("side"), i("plane"));
  if (key == "agg") return agg_name(p, i("pod"), i("plane"), i("index"));
  if (key == "core") return core_name(p, i("plane"), i("index"));
  if (key == "frontend") return frontend_name(p, i("pod"), i("segment"), i("leaf"), s("side"));
  if (key == "host_port") return host_port_name(p, i("nic"), i("port"));
  if (key == "switch_port") return switch_port_name(p, i("cage"), s("sub"));
  if (key == "cable") return cable_name(p, i("pod"), s("kind"), i("seq"));
  return rack_name(p, i("hall"), i("row"), i("position"));
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& f : v) s += (s.empty() ? "" : ", ") + f;
  return s;
}

// The format spec of one replacement field ("02", ".>2"), held to what the
// samples below can vouch for: fill, alignment, sign, '#', '0' and a width,
// and a type that writes digits. Refused: a nested field ({pod:{host}}, a
// width taken from a value), a precision, 'L' (the locale's separators) and
// the type 'c' (an integer as a character: host 47 would be '/').
// https://fmt.dev/latest/syntax/#format-specification-mini-language
std::string spec_problem(std::string_view spec) {
  if (spec.find_first_of("{}") != std::string_view::npos) return "a format spec cannot hold another field";
  std::size_t i = 0;
  if (spec.size() >= 2 && (spec[1] == '<' || spec[1] == '>' || spec[1] == '^')) {
    i = 2;
  } else if (!spec.empty() && (spec[0] == '<' || spec[0] == '>' || spec[0] == '^')) {
    i = 1;
  }
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) ++i;
  if (i < spec.size() && spec[i] == '#') ++i;
  std::size_t digits = 0;
  while (i < spec.size() && spec[i] >= '0' && spec[i] <= '9') ++i, ++digits;
  if (digits > 2) return "a width is at most 2 digits";
  if (i < spec.size() && spec[i] == '.') return "no precision: it can cut a name down to nothing";
  if (i < spec.size() && spec[i] == 'L') return "no 'L': the locale's digit separators are not name characters";
  if (i + 1 == spec.size() && std::string_view("dxXobBs").find(spec[i]) != std::string_view::npos) return {};
  if (i == spec.size()) return {};
  return fmt::format("'{}' is not a type a name can use (d, x, X, o, b, B, s)", spec.substr(i));
}

}  // namespace

Status check_pattern(std::string_view key, const std::string& pattern) {
  const auto& fields = pattern_fields(key);
  std::vector<std::string> used;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') continue;
    if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t end = pattern.find_first_of(":}", i + 1);
    if (end == std::string::npos) break;  // fmt reports the unclosed brace below
    std::string field = pattern.substr(i + 1, end - i - 1);
    bool known = false;
    for (const auto& f : fields) known = known || f == field;
    if (!known) {
      return Error{fmt::format("unknown field '{}' in pattern '{}'; fields are {}",
                               field.empty() ? "{}" : field, pattern, join(fields))};
    }
    if (pattern[end] == ':') {
      // The spec runs to the first '}' (a nested field's '{' is refused).
      const size_t close = pattern.find('}', end + 1);
      if (close == std::string::npos) break;
      if (std::string problem = spec_problem(std::string_view(pattern).substr(end + 1, close - end - 1));
          !problem.empty()) {
        return Error{fmt::format("pattern '{}': field '{}': {}", pattern, field, problem)};
      }
      end = close;
    }
    used.push_back(field);
    i = end;
  }
  // Every combination of small, large and empty values of the fields it
  // uses: with the format specs held as above, a name that breaks the rule
  // for some value breaks it for one of these (a fill shows at the smallest
  // values, the length at the largest, '.'/'..' with every string empty).
  std::vector<std::string> distinct;
  for (const auto& f : used) {
    if (std::find(distinct.begin(), distinct.end(), f) == distinct.end()) distinct.push_back(f);
  }
  std::map<std::string, std::string> strings;
  std::map<std::string, int> ints;
  std::vector<size_t> at(distinct.size(), 0);
  for (;;) {
    for (size_t k = 0; k < distinct.size(); ++k) {
      if (is_string_field(distinct[k])) strings[distinct[k]] = string_samples(key, distinct[k])[at[k]];
      else ints[distinct[k]] = int_samples(key)[at[k]];
    }
    std::string sample;
    try {
      sample = render(key, pattern, strings, ints);
    } catch (const fmt::format_error& e) {
      return Error{fmt::format("pattern '{}' is not valid: {}", pattern, e.what())};
    }
    std::string problem = key == "host_port" ? ifname_problem(sample) : name_problem(sample);
    if (!problem.empty()) {
      if (sample.empty()) return Error{fmt::format("pattern '{}' gives an empty name", pattern)};
      return Error{fmt::format("pattern '{}' gives '{}': {}", pattern, sample, problem)};
    }
    size_t k = 0;
    for (; k < distinct.size(); ++k) {
      const size_t n = is_string_field(distinct[k]) ? string_samples(key, distinct[k]).size() : int_samples(key).size();
      if (++at[k] < n) break;
      at[k] = 0;
    }
    if (k == distinct.size()) break;
  }
  return {};
}

const char* cable_kind_code(CableKind kind) {
  switch (kind) {
    case CableKind::host_tor: return "H";
    case CableKind::tor_agg: return "A";
    case CableKind::agg_core: return "C";
    case CableKind::frontend: return "F";
  }
  return "?";
}

}  // namespace hpn
