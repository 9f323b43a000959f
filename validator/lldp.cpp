#include "validator/lldp.h"

#include "validator/dump_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace hpn::validator {
namespace {

using json = nlohmann::json;

std::string kind_of(const json& j) {
  switch (j.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

// Walks the fixed paths of a json0 dump; the first error wins. A value the
// reader needs and does not find makes the dump unreadable: a neighbour half
// read would be a link half decided.
class Json0Reader {
 public:
  explicit Json0Reader(std::string_view source) : source_(source) {}

  Result<std::vector<LldpNeighbour>> read(const json& root) {
    if (!root.is_object()) return fail("", "expected an object with key \"lldp\", found " + kind_of(root));
    const json* lldp = member(root, "", "lldp", true);
    if (!lldp) return *error_;
    if (!lldp->is_array()) {
      return fail("/lldp", fmt::format("expected an array, found {}: is this `lldpcli -f json0`? "
                                       "(plain -f json changes shape with the number of neighbours)",
                                       kind_of(*lldp)));
    }
    std::vector<LldpNeighbour> out;
    for (size_t i = 0; i < lldp->size(); ++i) {
      const std::string at = fmt::format("/lldp/{}", i);
      const json& entry = (*lldp)[i];
      if (!entry.is_object()) return fail(at, "expected an object, found " + kind_of(entry));
      const json* interfaces = member(entry, at, "interface", false);
      if (error_) return *error_;
      if (!interfaces) continue;  // no neighbour on any port
      if (!interfaces->is_array()) return fail(at + "/interface", "expected an array, found " + kind_of(*interfaces));
      for (size_t k = 0; k < interfaces->size(); ++k) {
        auto n = neighbour((*interfaces)[k], fmt::format("{}/interface/{}", at, k));
        if (!n) return *error_;
        out.push_back(std::move(*n));
      }
    }
    return out;
  }

 private:
  std::optional<LldpNeighbour> neighbour(const json& entry, const std::string& at) {
    if (!entry.is_object()) return none(at, "expected an object, found " + kind_of(entry));
    LldpNeighbour n;
    n.where = fmt::format("{}: {}", source_, at);
    auto name = string_member(entry, at, "name", true);
    if (!name) return std::nullopt;
    if (name->empty()) return none(at + "/name", "empty interface name");
    n.local_port = std::move(*name);
    const json* chassis = only_element(entry, at, "chassis", true);
    if (!chassis) return std::nullopt;
    const std::string at_chassis = at + "/chassis/0";
    auto system_name = text_element(*chassis, at_chassis, "name", false);
    if (error_) return std::nullopt;
    if (system_name) n.chassis_name = std::move(*system_name);
    const json* port = only_element(entry, at, "port", true);
    if (!port) return std::nullopt;
    const std::string at_port = at + "/port/0";
    const json* id = only_element(*port, at_port, "id", true);
    if (!id) return std::nullopt;
    auto type = string_member(*id, at_port + "/id/0", "type", true);
    if (!type) return std::nullopt;
    auto value = string_member(*id, at_port + "/id/0", "value", true);
    if (!value) return std::nullopt;
    n.port_id_type = std::move(*type);
    n.port_id = std::move(*value);
    auto descr = text_element(*port, at_port, "descr", false);
    if (error_) return std::nullopt;
    if (descr) n.port_descr = std::move(*descr);
    return n;
  }

  // parent[key]; null (and an error when required) when absent.
  const json* member(const json& parent, const std::string& at, const char* key, bool required) {
    auto it = parent.find(key);
    if (it != parent.end()) return &*it;
    if (required) fail(at, fmt::format("missing key \"{}\"", key));
    return nullptr;
  }

  // parent[key] as a json0 element: an array of exactly one object.
  const json* only_element(const json& parent, const std::string& at, const char* key, bool required) {
    const json* array = member(parent, at, key, required);
    if (!array) return nullptr;
    const std::string here = at + "/" + key;
    if (!array->is_array()) return none_json(here, "expected an array, found " + kind_of(*array));
    if (array->size() != 1) return none_json(here, fmt::format("expected one element, found {}", array->size()));
    if (!(*array)[0].is_object()) return none_json(here + "/0", "expected an object, found " + kind_of((*array)[0]));
    return &(*array)[0];
  }

  std::optional<std::string> string_member(const json& parent, const std::string& at, const char* key,
                                           bool required) {
    const json* value = member(parent, at, key, required);
    if (!value) return std::nullopt;
    if (!value->is_string()) return none(at + "/" + key, "expected a string, found " + kind_of(*value));
    return value->get<std::string>();
  }

  // A text element such as chassis name or port descr: [{"value": "..."}].
  std::optional<std::string> text_element(const json& parent, const std::string& at, const char* key,
                                          bool required) {
    const json* element = only_element(parent, at, key, required);
    if (!element) return std::nullopt;
    return string_member(*element, fmt::format("{}/{}/0", at, key), "value", true);
  }

  Error fail(const std::string& pointer, const std::string& message) {
    if (!error_) error_ = Error{fmt::format("{}: {}: {}", source_, pointer.empty() ? "/" : pointer, message)};
    return *error_;
  }
  std::nullopt_t none(const std::string& pointer, const std::string& message) {
    fail(pointer, message);
    return std::nullopt;
  }
  const json* none_json(const std::string& pointer, const std::string& message) {
    fail(pointer, message);
    return nullptr;
  }

  std::string source_;
  std::optional<Error> error_;
};

// "SOURCE:LINE:COL: not JSON: what" from nlohmann's parse error at byte
// `byte` (1-based; 0 or past the end means the end of the input).
// Names in dumps are system names: a device's own name, or it with a
}  // namespace

Result<std::vector<LldpNeighbour>> parse_lldp_json(std::string_view bytes, std::string_view source) {
  if (auto st = check_dump_shape(bytes, source, "an LLDP neighbour dump"); !st) return st.error();
  json root;
  try {
    root = json::parse(bytes.begin(), bytes.end());
  } catch (const json::parse_error& e) {
    return not_json(bytes, source, e.byte, e.what());
  } catch (const json::exception& e) {  // a number past a double's range (out_of_range.406)
    return Error{fmt::format("{}: not JSON: {}", source, e.what())};
  }
  return Json0Reader(source).read(root);
}

Result<LldpSource> parse_lldp_argument(std::string_view argument) { return parse_dump_argument(argument, "--lldp"); }

Result<LldpDump> read_lldp_dump(const LldpSource& source) {
  auto bytes = read_dump_bytes(source.path, "an LLDP neighbour dump");
  if (!bytes) return bytes.error();
  auto neighbours = parse_lldp_json(*bytes, source.path);
  if (!neighbours) return neighbours.error();
  return LldpDump{source.device, source.device_from_file_name, source.path, std::move(neighbours.value())};
}

bool parse_lldp_match(std::string_view text, LldpMatch& out) {
  if (text == "description") {
    out = LldpMatch::port_description;
  } else if (text == "port-id") {
    out = LldpMatch::port_id;
  } else {
    return false;
  }
  return true;
}

Status add_lldp_witnesses(const FabricIndex& f, const std::vector<LldpDump>& dumps, LldpMatch match,
                          Witnesses& w) {
  const Blueprint& bp = f.blueprint();
  std::map<int, const LldpDump*> by_device;
  for (const auto& dump : dumps) {
    int device = resolve_device(f, dump.device);
    if (device < 0) {
      return unknown_dump_device(dump.source, dump.device, dump.device_from_file_name, "--lldp");
    }
    auto [it, fresh] = by_device.emplace(device, &dump);
    if (!fresh) {
      return Error{fmt::format("{}: a second LLDP dump of {} (the first is {})", dump.source,
                               bp.devices[device].name, it->second->source)};
    }
  }
  // Ports that heard a neighbour naming no planned port: their silence
  // from the planned peer proves nothing (the matching may be at fault).
  std::set<PortRef> undecided;
  for (const auto& [device, dump] : by_device) {
    w.lldp_devices.insert(device);
    w.device_seen[device] = true;  // its agent answered: the device is up
    for (const auto& n : dump->neighbours) {
      ++w.observations;
      ++w.received;
      // A local interface that is no port of the plan (management, a
      // loopback): nothing the diff can judge.
      PortRef to{device, f.port_by_name(device, n.local_port)};
      if (!to.valid()) {
        ++w.unreadable_hops;
        continue;
      }
      w.device_answered[device] = true;  // it hears a neighbour on a port of the plan
      int peer = n.chassis_name.empty() ? -1 : resolve_device(f, n.chassis_name);
      if (peer < 0 && !n.chassis_name.empty()) w.unknown_devices.insert(n.chassis_name);
      const std::string& port = match == LldpMatch::port_description ? n.port_descr : n.port_id;
      PortRef from{peer, peer < 0 ? -1 : f.port_by_name(peer, port)};
      if (!from.valid()) {
        ++w.unreadable_hops;
        undecided.insert(to);
        continue;
      }
      w.device_seen[peer] = true;
      w.device_answered[peer] = true;
      // The same test as a probe's hop (witness.cpp): the planned cable at
      // the sending port, arriving where the plan says.
      CableEnd e = f.cable_at(from);
      if (e.cable >= 0 && f.end_of(e.cable, 1 - e.end) == to) {
        ++w.cables[e.cable].dir[e.end].received;
      } else {
        ++w.unplanned[{from, to}];
      }
    }
  }
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (!by_device.count(c.a_device) || !by_device.count(c.z_device)) continue;
    for (int dir = 0; dir < 2; ++dir) {
      // Direction a -> z arrives at the z-end.
      if (undecided.count(f.end_of(static_cast<int>(i), 1 - dir))) continue;
      auto& d = w.cables[i].dir[dir];
      d.lldp = true;
      ++d.sent;
    }
  }
  return {};
}

}  // namespace hpn::validator
