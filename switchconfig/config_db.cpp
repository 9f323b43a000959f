#include "switchconfig/config_db.h"

#include <fmt/format.h>

#include "switchconfig/linux_sysctl.h"

namespace hpn::switchconfig {

namespace {

using json = nlohmann::json;

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

}  // namespace

json config_db(const SwitchConfig& c) {
  json db;
  json& meta = db["DEVICE_METADATA"]["localhost"];
  meta["hostname"] = c.name;
  meta["bgp_asn"] = s(c.bgp.asn);
  meta["type"] = sonic_type(c.role);
  meta["docker_routing_config_mode"] = "split";
  // A ToR routes for its hosts with the pair's shared gateway MAC.
  if (c.has_gateway && !c.gateway.mac.empty()) meta["mac"] = c.gateway.mac;

  json& telemetry = db["HPN_TELEMETRY"]["localhost"];
  telemetry["node_id"] = s(c.node_id);
  telemetry["int_switch_id"] = s(c.node_id);
  telemetry["ioam_namespace"] = s(c.ioam_namespace);

  for (const auto& cage : c.cages) {
    db["BREAKOUT_CFG"][cage.sonic.name]["brkout_mode"] =
        fmt::format("{}x{}G", cage.children, cage.child_speed_gbps);
  }
  db["LOOPBACK_INTERFACE"]["Loopback0"] = json::object();
  if (!c.loopback4.empty()) db["LOOPBACK_INTERFACE"][fmt::format("Loopback0|{}/32", c.loopback4)] = json::object();
  if (!c.loopback6.empty()) db["LOOPBACK_INTERFACE"][fmt::format("Loopback0|{}/128", c.loopback6)] = json::object();

  bool vlan = false;
  for (const auto& p : c.ports) {
    json& port = db["PORT"][p.sonic.name];
    port["alias"] = p.name;
    port["lanes"] = p.sonic.lanes;
    port["speed"] = s(int64_t{p.speed_gbps} * 1000);
    port["mtu"] = s(p.mtu);
    port["admin_status"] = p.admin_up ? "up" : "down";
    port["description"] = p.description;
    port["index"] = s(p.sonic.index);
    port["fec"] = "rs";
    db["HPN_TELEMETRY_PORT"][p.sonic.name] = {{"alias", p.name}, {"ioam_id", s(p.port_id)}};
    if (p.role == PortRole::host && c.has_gateway) {
      db["VLAN_MEMBER"]["Vlan1000|" + p.sonic.name]["tagging_mode"] = "untagged";
      vlan = true;
      continue;
    }
    if (!p.bgp) continue;
    // Unnumbered sessions need the port's IPv6 link-local address.
    db["INTERFACE"][p.sonic.name]["ipv6_use_link_local_only"] = "enable";
    if (!p.ipv4.empty()) db["INTERFACE"][fmt::format("{}|{}/{}", p.sonic.name, p.ipv4, p.ipv4_len)] = json::object();
    if (!p.ipv6.empty()) db["INTERFACE"][fmt::format("{}|{}/{}", p.sonic.name, p.ipv6, p.ipv6_len)] = json::object();
    if (!p.peer_ipv6.empty()) {
      json& n = db["BGP_NEIGHBOR"][p.peer_ipv6];
      n["asn"] = s(p.peer_asn);
      n["name"] = p.peer_device;
      n["local_addr"] = p.ipv6;
      n["holdtime"] = s(c.bgp.hold_s);
      n["keepalive"] = s(c.bgp.keepalive_s);
      n["admin_status"] = "up";
    }
  }
  if (vlan) {
    db["VLAN"]["Vlan1000"] = {{"vlanid", "1000"}, {"mtu", s(c.mtu)},
                              {"description", fmt::format("hosts of rail {}", c.rail == kNone ? 0 : c.rail)}};
    db["VLAN_INTERFACE"]["Vlan1000"] = json::object();
    if (!c.gateway.ipv4.empty()) {
      db["VLAN_INTERFACE"][fmt::format("Vlan1000|{}/{}", c.gateway.ipv4, c.gateway.subnet4_len)] = json::object();
    }
    if (!c.gateway.ipv6.empty()) {
      db["VLAN_INTERFACE"][fmt::format("Vlan1000|{}/{}", c.gateway.ipv6, c.gateway.subnet6_len)] = json::object();
    }
  }
  for (const auto& r : c.core_rules) {
    db["HPN_CORE_RULE"][s(r.row)] = {{"in_port", r.in_port},
                                     {"dst_pod", s(r.dst_pod)},
                                     {"out_port", r.out_port},
                                     {"next_hop", r.nexthop_ipv6},
                                     {"next_hop_ipv4", r.nexthop_ipv4},
                                     {"fallback", r.fallback},
                                     {"status", r.active ? "active" : "reserved"}};
  }
  return db;
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
