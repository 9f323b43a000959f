#include "switchconfig/config_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "switchconfig/linux_sysctl.h"

namespace hpn::switchconfig {

namespace {

// SONiC's DEVICE_METADATA type of each role (sonic-device_metadata.yang).
const char* sonic_type(Role r) {
  switch (r) {
    case Role::tor: return "BackEndToRRouter";
    case Role::agg: return "BackEndLeafRouter";
    case Role::core: return "SpineRouter";
    case Role::frontend: return "ToRRouter";
    case Role::host: return "Server";
  }
  return "LeafRouter";
}

std::string s(std::int64_t v) { return std::to_string(v); }

using Fields = std::vector<std::pair<std::string_view, std::string>>;

// config_db.json is tables of rows of string fields, nothing deeper. A core
// has some 900 rule rows of 7 fields; built as a JSON tree of maps they
// were most of `config --all`'s rendering time, so the rows are collected
// flat, sorted, and written as text in the layout of nlohmann's dump(2)
// (keys sorted at every level, two-space indent).
class Tables {
 public:
  // A row with no fields ({}) is how SONiC marks an interface's address.
  void add(std::string_view table, std::string key, Fields fields = {}) {
    rows_.push_back({table, std::move(key), std::move(fields)});
  }

  std::string text() {
    // Stable: a field given twice to one row keeps its last value, as
    // assigning it twice in a JSON object would.
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      return a.table != b.table ? a.table < b.table : a.key < b.key;
    });
    std::string out = "{";
    out.reserve(rows_.size() * 128);
    std::vector<std::pair<std::string_view, std::string_view>> fields;
    for (size_t i = 0; i < rows_.size();) {
      const std::string_view table = rows_[i].table;
      out += i == 0 ? "\n  " : ",\n  ";
      quote(out, table);
      out += ": {";
      for (bool first_row = true; i < rows_.size() && rows_[i].table == table; first_row = false) {
        // The fields of every entry with this key, sorted by name; of a
        // name given twice, the last.
        fields.clear();
        const std::string& key = rows_[i].key;
        for (; i < rows_.size() && rows_[i].table == table && rows_[i].key == key; ++i) {
          for (const auto& [name, value] : rows_[i].fields) fields.emplace_back(name, value);
        }
        std::stable_sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        fields.erase(fields.begin(), std::unique(fields.rbegin(), fields.rend(), [](const auto& a, const auto& b) {
                                      return a.first == b.first;
                                    }).base());
        out += first_row ? "\n    " : ",\n    ";
        quote(out, key);
        if (fields.empty()) {
          out += ": {}";
          continue;
        }
        out += ": {";
        bool first_field = true;
        for (const auto& [name, value] : fields) {
          out += first_field ? "\n      " : ",\n      ";
          first_field = false;
          quote(out, name);
          out += ": ";
          quote(out, value);
        }
        out += "\n    }";
      }
      out += "\n  }";
    }
    out += rows_.empty() ? "}\n" : "\n}\n";
    return out;
  }

 private:
  struct Row {
    std::string_view table;
    std::string key;
    Fields fields;
  };

  // A JSON string. Names and descriptions are the blueprint's, already
  // checked as UTF-8; quotes, backslashes and control bytes are escaped as
  // nlohmann escapes them.
  static void quote(std::string& out, std::string_view text) {
    out += '"';
    std::size_t plain = 0;  // the start of the run not yet appended
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out.append(text, plain, i - plain);
      plain = i + 1;
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: out += fmt::format("\\u{:04x}", c);
      }
    }
    out.append(text, plain);
    out += '"';
  }

  std::vector<Row> rows_;
};

}  // namespace

std::string config_db(const SwitchConfig& c) {
  Tables db;
  Fields meta = {{"hostname", c.name},
                 {"bgp_asn", s(c.bgp.asn)},
                 {"type", sonic_type(c.role)},
                 {"docker_routing_config_mode", "split"}};
  // A ToR routes for its hosts with the pair's shared gateway MAC.
  if (c.has_gateway && !c.gateway.mac.empty()) meta.emplace_back("mac", c.gateway.mac);
  db.add("DEVICE_METADATA", "localhost", std::move(meta));
  db.add("HPN_TELEMETRY", "localhost",
         {{"node_id", s(c.node_id)}, {"int_switch_id", s(c.node_id)}, {"ioam_namespace", s(c.ioam_namespace)}});

  for (const auto& cage : c.cages) {
    db.add("BREAKOUT_CFG", cage.sonic.name,
           {{"brkout_mode", fmt::format("{}x{}G", cage.children, cage.child_speed_gbps)}});
  }
  db.add("LOOPBACK_INTERFACE", "Loopback0");
  if (!c.loopback4.empty()) db.add("LOOPBACK_INTERFACE", fmt::format("Loopback0|{}/32", c.loopback4));
  if (!c.loopback6.empty()) db.add("LOOPBACK_INTERFACE", fmt::format("Loopback0|{}/128", c.loopback6));

  bool vlan = false;
  for (const auto& p : c.ports) {
    db.add("PORT", p.sonic.name,
           {{"alias", p.name},
            {"lanes", p.sonic.lanes},
            {"speed", s(int64_t{p.speed_gbps} * 1000)},
            {"mtu", s(p.mtu)},
            {"admin_status", p.admin_up ? "up" : "down"},
            {"description", p.description},
            {"index", s(p.sonic.index)},
            {"fec", "rs"}});
    db.add("HPN_TELEMETRY_PORT", p.sonic.name, {{"alias", p.name}, {"ioam_id", s(p.port_id)}});
    if (p.role == PortRole::host && c.has_gateway) {
      db.add("VLAN_MEMBER", "Vlan1000|" + p.sonic.name, {{"tagging_mode", "untagged"}});
      vlan = true;
      continue;
    }
    if (!p.bgp) continue;
    // Unnumbered sessions need the port's IPv6 link-local address.
    db.add("INTERFACE", p.sonic.name, {{"ipv6_use_link_local_only", "enable"}});
    if (!p.ipv4.empty()) db.add("INTERFACE", fmt::format("{}|{}/{}", p.sonic.name, p.ipv4, p.ipv4_len));
    if (!p.ipv6.empty()) db.add("INTERFACE", fmt::format("{}|{}/{}", p.sonic.name, p.ipv6, p.ipv6_len));
    if (!p.peer_ipv6.empty()) {
      db.add("BGP_NEIGHBOR", p.peer_ipv6,
             {{"asn", s(p.peer_asn)},
              {"name", p.peer_device},
              {"local_addr", p.ipv6},
              {"holdtime", s(c.bgp.hold_s)},
              {"keepalive", s(c.bgp.keepalive_s)},
              {"admin_status", "up"}});
    }
  }
  if (vlan) {
    db.add("VLAN", "Vlan1000",
           {{"vlanid", "1000"},
            {"mtu", s(c.mtu)},
            {"description", fmt::format("hosts of rail {}", c.rail == kNone ? 0 : c.rail)}});
    db.add("VLAN_INTERFACE", "Vlan1000");
    if (!c.gateway.ipv4.empty()) {
      db.add("VLAN_INTERFACE", fmt::format("Vlan1000|{}/{}", c.gateway.ipv4, c.gateway.subnet4_len));
    }
    if (!c.gateway.ipv6.empty()) {
      db.add("VLAN_INTERFACE", fmt::format("Vlan1000|{}/{}", c.gateway.ipv6, c.gateway.subnet6_len));
    }
  }
  for (const auto& r : c.core_rules) {
    db.add("HPN_CORE_RULE", s(r.row),
           {{"in_port", r.in_port},
            {"dst_pod", s(r.dst_pod)},
            {"out_port", r.out_port},
            {"next_hop", r.nexthop_ipv6},
            {"next_hop_ipv4", r.nexthop_ipv4},
            {"fallback", r.fallback},
            {"status", r.active ? "active" : "reserved"}});
  }
  return db.text();
}

nlohmann::ordered_json config_json(const SwitchConfig& c) {
  using oj = nlohmann::ordered_json;
  auto opt = [](int v) { return v == kNone ? oj(nullptr) : oj(v); };
  oj j;
  j["format"] = "hpnctl-switch-config";
  j["format_version"] = 1;
  j["switch"] = c.name;
  j["role"] = std::string(to_string(c.role));
  j["pod"] = opt(c.pod);
  j["segment"] = opt(c.segment);
  j["plane"] = opt(c.plane);
  j["rail"] = opt(c.rail);
  j["rack"] = c.rack;
  j["ru"] = opt(c.ru);
  j["spec_name"] = c.spec_name;
  j["tool_version"] = c.tool_version;
  j["bring_up"] = c.bring_up;
  j["telemetry"] = {{"ioam_node_id", c.node_id}, {"int_switch_id", c.node_id}, {"ioam_namespace", c.ioam_namespace}};
  j["loopback"] = {{"ipv4", c.loopback4}, {"ipv6", c.loopback6}};
  j["mtu"] = c.mtu;
  oj bgp;
  bgp["asn"] = c.bgp.asn;
  bgp["router_id"] = c.bgp.router_id;
  bgp["keepalive_s"] = c.bgp.keepalive_s;
  bgp["hold_s"] = c.bgp.hold_s;
  bgp["maximum_paths"] = c.bgp.maximum_paths;
  bgp["networks"] = oj::array();
  for (const auto& n : c.bgp.networks4) bgp["networks"].push_back(n);
  for (const auto& n : c.bgp.networks6) bgp["networks"].push_back(n);
  bgp["sessions"] = oj::array();
  for (const auto& p : c.ports) {
    if (!p.bgp) continue;
    bgp["sessions"].push_back({{"interface", p.ifname}, {"cable", p.cable_id},
                               {"peer", p.peer_device}, {"peer_port", p.peer_port}, {"peer_asn", p.peer_asn},
                               {"peer_ipv4", p.peer_ipv4}, {"peer_ipv6", p.peer_ipv6}});
  }
  j["bgp"] = bgp;
  if (c.has_gateway) {
    j["gateway"] = {{"ipv4", c.gateway.ipv4}, {"ipv6", c.gateway.ipv6}, {"subnet4", c.gateway.subnet4},
                    {"subnet6", c.gateway.subnet6}, {"mac", c.gateway.mac},
                    {"host_route_pools", {c.gateway.pool4, c.gateway.pool6}},
                    {"neighbour_reachable_s", c.neighbour_reachable_s}};
  } else {
    j["gateway"] = nullptr;
  }
  j["cages"] = oj::array();
  for (const auto& k : c.cages) {
    j["cages"].push_back({{"name", k.name}, {"sonic_name", k.sonic.name}, {"speed_gbps", k.speed_gbps},
                          {"breakout", fmt::format("{}x{}G", k.children, k.child_speed_gbps)}});
  }
  j["ports"] = oj::array();
  for (const auto& p : c.ports) {
    oj port;
    port["name"] = p.name;
    port["interface"] = p.ifname;
    port["sonic_name"] = p.sonic.name;
    port["port_id"] = p.port_id;
    port["speed_gbps"] = p.speed_gbps;
    port["mtu"] = p.mtu;
    port["breakout_of"] = p.breakout_of.empty() ? oj(nullptr) : oj(p.breakout_of);
    port["role"] = std::string(to_string(p.role));
    port["admin_up"] = p.admin_up;
    port["description"] = p.description;
    port["peer"] = p.peer_device.empty() ? oj(nullptr) : oj(p.peer_device + ":" + p.peer_port);
    port["ipv4"] = p.ipv4.empty() ? oj(nullptr) : oj(fmt::format("{}/{}", p.ipv4, p.ipv4_len));
    port["ipv6"] = p.ipv6.empty() ? oj(nullptr) : oj(fmt::format("{}/{}", p.ipv6, p.ipv6_len));
    port["planned_ipv4"] = p.planned_ipv4.empty() ? oj(nullptr) : oj(p.planned_ipv4);
    port["bgp"] = p.bgp;
    port["learns_hosts"] = p.learns_hosts;
    j["ports"].push_back(std::move(port));
  }
  j["core_rules"] = oj::array();
  for (const auto& r : c.core_rules) {
    oj prefixes = oj::array();
    for (const auto& p : r.prefixes) prefixes.push_back(p.prefix);
    j["core_rules"].push_back({{"row", r.row}, {"in_port", r.in_port}, {"dst_pod", r.dst_pod},
                               {"out_port", r.out_port}, {"prefixes", prefixes},
                               {"next_hop_ipv4", r.nexthop_ipv4}, {"next_hop_ipv6", r.nexthop_ipv6},
                               {"fallback", r.fallback}, {"status", r.active ? "active" : "reserved"}});
  }
  j["sysctls"] = oj::object();
  for (const auto& s : linux_sysctls(c)) j["sysctls"][s.key] = s.value;
  return j;
}

}  // namespace hpn::switchconfig
