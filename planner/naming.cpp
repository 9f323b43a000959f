#include "planner/naming.h"

#include <fmt/format.h>

#include <map>

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

std::string render_sample(std::string_view key, const std::string& p) {
  if (key == "host") return host_name(p, 1, 2, 3, 0);
  if (key == "tor") return tor_name(p, 1, 2, 3, "a", 1);
  if (key == "agg") return agg_name(p, 1, 1, 3);
  if (key == "core") return core_name(p, 1, 3);
  if (key == "frontend") return frontend_name(p, 1, 2, 3, "a");
  if (key == "host_port") return host_port_name(p, 1, 2);
  if (key == "switch_port") return switch_port_name(p, 3, "a");
  if (key == "cable") return cable_name(p, 1, "H", 3);
  return rack_name(p, 0, 2, 3);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& f : v) s += (s.empty() ? "" : ", ") + f;
  return s;
}

}  // namespace

Status check_pattern(std::string_view key, const std::string& pattern) {
  const auto& fields = pattern_fields(key);
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
  }
  std::string sample;
  try {
    sample = render_sample(key, pattern);
  } catch (const fmt::format_error& e) {
    return Error{fmt::format("pattern '{}' is not valid: {}", pattern, e.what())};
  }
  for (char c : sample) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) {
      return Error{fmt::format("pattern '{}' gives '{}': names may hold letters, digits, '-', "
                               "'_' and '.' only", pattern, sample)};
    }
  }
  if (sample.empty()) return Error{fmt::format("pattern '{}' gives an empty name", pattern)};
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
