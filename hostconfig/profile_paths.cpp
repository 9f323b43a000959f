#include "hostconfig/profile_paths.h"

#include "blueprint/input_file.h"
#include "blueprint/json_shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace hpn {

namespace {

using nlohmann::json;

// A paths file lists a few ports per destination; anything near this is not one.
constexpr size_t kMaxPathsBytes = 256u << 20;
// The format nests 7 levels (hosts, a host's list, an entry, its evidence);
// a pod's file holds a few million values. The evidence, which hpnctl does
// not read back, is dropped while parsing, so the DOM is what is kept.
constexpr JsonBounds kPathsBounds{16, std::size_t{16} << 20, "a paths file"};
// An entry's keys that are read; the others are the verify step's evidence.
bool kept_entry_key(const json& key) {
  return key == "bond" || key == "destination" || key == "udp_source_ports";
}

Result<MeasuredPorts> read_entry(const json& e, const std::string& where) {
  if (!e.is_object()) return Error{where + ": expected an object"};
  MeasuredPorts m;
  for (const char* key : {"bond", "destination"}) {
    auto it = e.find(key);
    if (it == e.end()) return Error{fmt::format("{}: missing key '{}'", where, key)};
    if (!it->is_string() || it->get<std::string>().empty()) {
      return Error{fmt::format("{}.{}: expected a non-empty string", where, key)};
    }
    (std::string_view(key) == "bond" ? m.bond : m.destination) = it->get<std::string>();
  }
  auto ports = e.find("udp_source_ports");
  if (ports == e.end()) return Error{where + ": missing key 'udp_source_ports'"};
  if (!ports->is_array()) return Error{where + ".udp_source_ports: expected a list"};
  std::set<int> seen;
  for (size_t i = 0; i < ports->size(); ++i) {
    const json& p = (*ports)[i];
    std::string at = fmt::format("{}.udp_source_ports[{}]", where, i);
    if (!p.is_number_integer()) return Error{at + ": expected an integer"};
    int64_t port = p.get<int64_t>();
    if (port < 1 || port > 65535) return Error{fmt::format("{}: {} is not a UDP port (1 to 65535)", at, port)};
    if (!seen.insert(static_cast<int>(port)).second) return Error{fmt::format("{}: port {} listed twice", at, port)};
  }
  m.udp_source_ports.assign(seen.begin(), seen.end());
  return m;
}

}  // namespace

Result<PathsFile> parse_paths(std::string_view text, const std::string& source) {
  if (text.size() > kMaxPathsBytes) {
    return Error{fmt::format("{}: too large for a paths file (more than {} bytes)", source, kMaxPathsBytes)};
  }
  if (auto st = check_json_bounds(text, source, kPathsBounds); !st) return st.error();
  json doc;
  try {
    // Depth 4 is an entry of hosts.HOST[i].
    doc = json::parse(text, [](int depth, json::parse_event_t event, json& parsed) {
      return event != json::parse_event_t::key || depth != 4 || kept_entry_key(parsed);
    });
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number past a double ("1e1111",
    // found by fuzz_paths), which is no parse_error.
    return Error{fmt::format("{}: not JSON: {}", source, e.what())};
  }
  if (!doc.is_object()) return Error{source + ": expected a JSON object"};
  // value() would throw on a "format" that is not a string (found by fuzz_paths).
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || format->get<std::string>() != kPathsFormat) {
    return Error{fmt::format("{}: format is not '{}'", source, kPathsFormat)};
  }
  if (!doc.contains("version") || doc["version"] != kPathsVersion) {
    return Error{fmt::format("{}: this hpnctl reads version {} of {}", source, kPathsVersion, kPathsFormat)};
  }
  auto hosts = doc.find("hosts");
  if (hosts == doc.end() || !hosts->is_object()) return Error{source + ": hosts: expected an object"};
  PathsFile out;
  out.source = source;
  for (const auto& [host, entries] : hosts->items()) {
    std::string where = "hosts." + host;
    if (!entries.is_array()) return Error{fmt::format("{}: {}: expected a list", source, where)};
    std::vector<MeasuredPorts> list;
    for (size_t i = 0; i < entries.size(); ++i) {
      auto m = read_entry(entries[i], fmt::format("{}[{}]", where, i));
      if (!m) return Error{source + ": " + m.error().message};
      for (const auto& other : list) {
        if (other.bond == m->bond && other.destination == m->destination) {
          return Error{fmt::format("{}: {}[{}]: {} to {} listed twice", source, where, i, m->bond,
                                   m->destination)};
        }
      }
      list.push_back(std::move(m.value()));
    }
    std::sort(list.begin(), list.end(), [](const MeasuredPorts& a, const MeasuredPorts& b) {
      return std::tie(a.bond, a.destination) < std::tie(b.bond, b.destination);
    });
    out.hosts[host] = std::move(list);
  }
  return out;
}

Result<PathsFile> load_paths_file(const std::string& path) {
  auto text = read_input_file(path, "a paths file", kMaxPathsBytes);
  if (!text) return text.error();
  return parse_paths(text.value(), path);
}

}  // namespace hpn
