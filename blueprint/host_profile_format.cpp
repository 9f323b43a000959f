#include "blueprint/host_profile_format.h"

#include <fmt/format.h>

#include <algorithm>

#include "blueprint/diagnostics.h"

namespace hpn {

std::string_view to_string(BondMode mode) {
  switch (mode) {
    case BondMode::balance_xor: return "balance-xor";
    case BondMode::lacp: return "802.3ad";
    case BondMode::active_backup: return "active-backup";
  }
  return "?";
}

bool parse_bond_mode(std::string_view text, BondMode& out) {
  for (BondMode m : {BondMode::balance_xor, BondMode::lacp, BondMode::active_backup}) {
    if (text == to_string(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

std::string_view to_string(JsonType type) {
  switch (type) {
    case JsonType::string: return "string";
    case JsonType::integer: return "integer";
    case JsonType::boolean: return "boolean";
    case JsonType::array: return "array";
    case JsonType::object: return "object";
  }
  return "?";
}

const ProfileKey* ProfileObject::find(std::string_view key) const {
  auto it = std::find_if(keys.begin(), keys.end(), [&](const ProfileKey& k) { return k.name == key; });
  return it == keys.end() ? nullptr : &*it;
}

const ProfileObject* ProfileFormat::find(std::string_view name) const {
  auto it = std::find_if(objects.begin(), objects.end(), [&](const ProfileObject& o) { return o.name == name; });
  return it == objects.end() ? nullptr : &*it;
}

namespace {

using T = JsonType;

// Shorthands for the table: a key that must be there, one that may be null,
// one that may be left out, an object, an array of objects or of scalars.
ProfileKey key(std::string_view name, JsonType type) { return {name, type}; }
ProfileKey nullable(std::string_view name, JsonType type) { return {name, type, true}; }
ProfileKey object(std::string_view name, std::string_view object) { return {name, T::object, false, true, object}; }
ProfileKey objects(std::string_view name, std::string_view object) { return {name, T::array, false, true, object}; }
ProfileKey values(std::string_view name, JsonType items) { return {name, T::array, false, true, {}, items}; }
ProfileKey optional(ProfileKey k) {
  k.required = false;
  return k;
}

ProfileFormat make_format() {
  ProfileFormat f;
  f.objects = {
      {"profile",
       {key("format", T::string), key("version", T::integer), key("host", T::string), key("node_id", T::integer),
        key("state", T::string), object("location", "location"), object("blueprint", "blueprint"),
        key("bond_mode", T::string), objects("bonds", "bond"), objects("sysctls", "sysctl"),
        objects("path_classes", "path_class"), object("ncclx_topology", "ncclx_topology"), object("env", "env"),
        object("disjoint_source_ports", "disjoint_source_ports")}},
      {"location",
       {key("hall", T::integer), key("pod", T::integer), key("segment", T::integer), key("rack", T::string),
        key("ru", T::integer)}},
      {"blueprint", {key("spec_name", T::string), key("tool_version", T::string)}},
      {"bond",
       {key("name", T::string), key("nic", T::integer), key("network", T::string), objects("members", "member"),
        key("mac", T::string), key("mtu", T::integer), nullable("ipv4", T::string), nullable("ipv6", T::string),
        key("mode", T::string), nullable("xmit_hash_policy", T::string), key("speed_gbps", T::integer),
        object("monitor", "monitor"), optional(key("lacp_rate", T::string)), key("table", T::integer),
        objects("routes", "route"), objects("rules", "rule"), nullable("rdma_device", T::string)}},
      {"member",
       {key("port", T::string), key("speed_gbps", T::integer), nullable("cable", T::string),
        nullable("peer", T::string), nullable("peer_port", T::string), nullable("plane", T::integer),
        nullable("gateway_ipv4", T::string), nullable("gateway_ipv6", T::string),
        nullable("gateway_mac", T::string), optional(object("match", "match"))}},
      {"match",
       {nullable("ifname", T::string), nullable("mac", T::string), nullable("pci", T::string),
        nullable("rdma", T::string), key("by", T::string)}},
      {"monitor", {}, false, T::string, {{"arp", "monitor_arp"}, {"mii", "monitor_mii"}}},
      {"monitor_arp",
       {key("kind", T::string), key("arp_interval_ms", T::integer), values("arp_ip_targets", T::string),
        key("arp_validate", T::string), key("arp_all_targets", T::string)}},
      {"monitor_mii", {key("kind", T::string), key("miimon_ms", T::integer)}},
      {"route", {key("family", T::integer), key("to", T::string), values("via", T::string), key("table", T::integer)}},
      {"rule",
       {key("family", T::integer), key("from", T::string), key("table", T::integer), key("priority", T::integer)}},
      {"sysctl", {key("key", T::string), key("value", T::string)}},
      {"path_class",
       {key("class", T::string), key("hops", T::integer), key("ncclx_peer", T::string), values("env", T::string),
        key("ncclx_setting", T::string), objects("longest_path", "leg"), key("length_m", T::integer),
        key("rtt_ns", T::integer), key("bdp_bytes", T::integer), object("dqplb", "dqplb")}},
      {"leg", {key("kind", T::string), key("cable", T::string), key("length_m", T::integer)}},
      {"dqplb",
       {key("qps", T::integer), key("segment_bytes", T::integer), key("max_msgs", T::integer),
        key("mode", T::string), key("window_bytes", T::integer), key("outstanding_bytes", T::integer),
        key("covers_window", T::boolean), key("config", T::string)}},
      {"ncclx_topology",
       {key("path", T::string), key("dc", T::string), key("zone", T::string), key("su", T::string),
        key("rtsw", T::string), key("value", T::string)}},
      {"env", {}, true, T::string},
      {"disjoint_source_ports",
       {key("measured", T::boolean), nullable("source", T::string), key("note", T::string),
        objects("destinations", "destination")}},
      {"destination",
       {key("bond", T::string), key("destination", T::string), values("udp_source_ports", T::integer)}},
  };
  return f;
}

std::string_view discriminator(const ProfileObject& object, const ProfileFormat& format) {
  return format.find(object.variants.front().object)->keys.front().name;
}

bool has_type(const nlohmann::json& v, JsonType type) {
  switch (type) {
    case T::string: return v.is_string();
    case T::integer: return v.is_number_integer();
    case T::boolean: return v.is_boolean();
    case T::array: return v.is_array();
    case T::object: return v.is_object();
  }
  return false;
}

const char* type_article(JsonType type) {
  switch (type) {
    case T::string: return "a string";
    case T::integer: return "an integer";
    case T::boolean: return "a boolean";
    case T::array: return "an array";
    case T::object: return "an object";
  }
  return "?";
}

std::optional<ShapeProblem> wrong_type(const nlohmann::json& v, const std::string& at, JsonType type) {
  if (has_type(v, type)) return std::nullopt;
  return ShapeProblem{at, fmt::format("expected {}, found {}", type_article(type), json_type_name(v))};
}

std::optional<ShapeProblem> check_value(const nlohmann::json& v, const std::string& at, const ProfileKey& k,
                                        const ProfileFormat& format);

// The object whose keys `obj` has: `object`, or the variant its
// discriminator (the variants' first key, named the same in each) chooses;
// nullptr if it names none.
const ProfileObject* chosen(const nlohmann::json& obj, const ProfileObject& object, const ProfileFormat& format) {
  if (object.variants.empty()) return &object;
  const auto it = obj.find(std::string(discriminator(object, format)));
  for (const auto& variant : object.variants) {
    if (it != obj.end() && *it == variant.value) return format.find(variant.object);
  }
  return nullptr;
}

std::optional<ShapeProblem> check_object(const nlohmann::json& obj, const std::string& at,
                                         const ProfileObject& object, const ProfileFormat& format) {
  if (auto p = check_object_shape(obj, at, object, format)) return p;
  const ProfileObject* own = chosen(obj, object, format);
  for (const auto& [name, value] : obj.items()) {
    if (const ProfileKey* k = own->find(name)) {
      if (auto p = check_value(value, at + "/" + name, *k, format)) return p;
    }
  }
  return std::nullopt;
}

std::optional<ShapeProblem> check_value(const nlohmann::json& v, const std::string& at, const ProfileKey& k,
                                        const ProfileFormat& format) {
  if (v.is_null() && k.nullable) return std::nullopt;
  if (auto p = wrong_type(v, at, k.type)) return p;
  if (k.type == T::object && !k.object.empty()) return check_object(v, at, *format.find(k.object), format);
  if (k.type != T::array) return std::nullopt;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string here = fmt::format("{}/{}", at, i);
    if (k.object.empty()) {
      if (auto p = wrong_type(v[i], here, k.items)) return p;
    } else {
      if (auto p = wrong_type(v[i], here, T::object)) return p;
      if (auto p = check_object(v[i], here, *format.find(k.object), format)) return p;
    }
  }
  return std::nullopt;
}

}  // namespace

const ProfileFormat& host_profile_format() {
  static const ProfileFormat format = make_format();
  return format;
}

const char* json_type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::optional<ShapeProblem> check_object_shape(const nlohmann::json& obj, const std::string& at,
                                               const ProfileObject& object, const ProfileFormat& format) {
  const std::string here = at.empty() ? "/" : at;
  if (!obj.is_object()) return ShapeProblem{here, fmt::format("expected an object, found {}", json_type_name(obj))};
  const ProfileObject* own = &object;
  if (!object.variants.empty()) {
    const std::string_view kind = discriminator(object, format);
    const auto it = obj.find(std::string(kind));
    if (it == obj.end()) return ShapeProblem{here, fmt::format("missing key '{}'", kind)};
    if (!it->is_string()) {
      return ShapeProblem{fmt::format("{}/{}", at, kind), fmt::format("expected a string, found {}", json_type_name(*it))};
    }
    own = chosen(obj, object, format);
    std::string choices;
    for (size_t i = 0; i < object.variants.size(); ++i) {
      choices += std::string(i == 0 ? "" : i + 1 == object.variants.size() ? " or " : ", ") +
                 std::string(object.variants[i].value);
    }
    if (own == nullptr) {
      return ShapeProblem{fmt::format("{}/{}", at, kind),
                          fmt::format("'{}' is not {}", it->get_ref<const std::string&>(), choices)};
    }
  }
  std::vector<std::string> known;
  for (const auto& k : own->keys) known.emplace_back(k.name);
  for (const auto& [name, value] : obj.items()) {
    if (own->find(name) != nullptr) continue;
    if (own->open) {
      if (auto p = wrong_type(value, at + "/" + name, own->open_type)) return p;
      continue;
    }
    const std::string guess = closest_match(name, known);
    return ShapeProblem{at + "/" + name, fmt::format("unknown key '{}'{}", name,
                                                     guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess))};
  }
  for (const auto& k : own->keys) {
    if (k.required && !obj.contains(std::string(k.name))) return ShapeProblem{here, fmt::format("missing key '{}'", k.name)};
  }
  return std::nullopt;
}

std::optional<ShapeProblem> check_profile_shape(const nlohmann::json& doc, const ProfileFormat& format) {
  return check_object(doc, "", format.objects.front(), format);
}

nlohmann::ordered_json format_json(const ProfileFormat& format) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& o : format.objects) {
    nlohmann::ordered_json j;
    j["keys"] = nlohmann::ordered_json::array();
    for (const auto& k : o.keys) {
      nlohmann::ordered_json key = {{"name", k.name}, {"type", to_string(k.type)}, {"nullable", k.nullable},
                                    {"required", k.required}};
      if (!k.object.empty()) key["object"] = k.object;
      if (k.type == T::array && k.object.empty()) key["items"] = to_string(k.items);
      j["keys"].push_back(key);
    }
    if (o.open) j["open"] = to_string(o.open_type);
    if (!o.variants.empty()) {
      j["variants"] = nlohmann::ordered_json::object();
      for (const auto& v : o.variants) j["variants"][std::string(v.value)] = v.object;
    }
    out[std::string(o.name)] = j;
  }
  return out;
}

}  // namespace hpn
