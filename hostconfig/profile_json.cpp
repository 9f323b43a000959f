#include "hostconfig/profile_json.h"

namespace hpn {

using nlohmann::ordered_json;

namespace {

ordered_json or_null(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }
ordered_json or_null(const std::optional<Mac>& mac) { return mac ? ordered_json(to_string(*mac)) : ordered_json(nullptr); }
ordered_json or_null(const std::optional<IpPrefix>& p) { return p ? ordered_json(p->text()) : ordered_json(nullptr); }

ordered_json member_json(const BondMember& m) {
  ordered_json j;
  j["port"] = m.port;
  j["speed_gbps"] = m.speed_gbps;
  j["cable"] = or_null(m.cable);
  j["peer"] = or_null(m.peer);
  j["peer_port"] = or_null(m.peer_port);
  j["plane"] = m.plane == kNone ? ordered_json(nullptr) : ordered_json(m.plane);
  j["gateway_ipv4"] = or_null(m.gateway_ipv4);
  j["gateway_ipv6"] = or_null(m.gateway_ipv6);
  j["gateway_mac"] = or_null(m.gateway_mac);
  if (m.match) {
    // Only with --nic-map: profiles without one stay as they were.
    ordered_json k;
    k["ifname"] = or_null(m.match->ifname);
    k["mac"] = or_null(m.match->mac);
    k["pci"] = or_null(m.match->pci);
    k["rdma"] = or_null(m.match->rdma);
    k["by"] = m.match->by;
    j["match"] = k;
  }
  return j;
}

ordered_json bond_json(const Bond& b) {
  ordered_json j;
  j["name"] = b.name;
  j["nic"] = b.nic;
  j["network"] = b.backend ? "backend" : "frontend";
  j["members"] = ordered_json::array();
  for (const auto& m : b.members) j["members"].push_back(member_json(m));
  j["mac"] = to_string(b.mac);
  j["mtu"] = b.mtu;
  j["ipv4"] = or_null(b.ipv4);
  j["ipv6"] = or_null(b.ipv6);
  j["mode"] = std::string(to_string(b.mode));
  j["xmit_hash_policy"] = b.layer34 ? ordered_json("layer3+4") : ordered_json(nullptr);
  j["speed_gbps"] = b.speed_gbps;
  ordered_json mon;
  if (b.arp_monitor) {
    mon["kind"] = "arp";
    mon["arp_interval_ms"] = b.arp_interval_ms;
    mon["arp_ip_targets"] = b.arp_targets;
    mon["arp_validate"] = arp_validate_name(b);
    mon["arp_all_targets"] = "any";
  } else {
    mon["kind"] = "mii";
    mon["miimon_ms"] = b.miimon_ms;
  }
  j["monitor"] = mon;
  if (b.lacp_fast) j["lacp_rate"] = "fast";
  j["table"] = b.table;
  j["routes"] = ordered_json::array();
  for (const auto& r : b.routes) {
    j["routes"].push_back({{"family", r.family}, {"to", r.to.text()}, {"via", r.via}, {"table", r.table}});
  }
  j["rules"] = ordered_json::array();
  for (const auto& r : b.rules) {
    j["rules"].push_back({{"family", r.family}, {"from", r.from.text()}, {"table", r.table}, {"priority", r.priority}});
  }
  j["rdma_device"] = or_null(b.rdma_device);
  return j;
}

}  // namespace

ordered_json class_json(const ClassProfile& c) {
  ordered_json j;
  j["class"] = std::string(to_string(c.path.scope));
  j["hops"] = c.path.hops;
  j["ncclx_peer"] = c.ncclx_peer;
  j["env"] = c.env;
  j["ncclx_setting"] = std::string(to_string(c.ncclx_setting));
  j["longest_path"] = ordered_json::array();
  for (const auto& l : c.path.legs) {
    j["longest_path"].push_back({{"kind", std::string(to_string(l.kind))}, {"cable", l.cable},
                                 {"length_m", l.length_m}});
  }
  j["length_m"] = c.path.length_m;
  j["rtt_ns"] = c.path.rtt_ns;
  j["bdp_bytes"] = c.path.bdp_bytes;
  ordered_json d;
  d["qps"] = c.dqplb.qps;
  d["segment_bytes"] = c.dqplb.segment_bytes;
  d["max_msgs"] = c.dqplb.max_msgs;
  d["mode"] = std::string(to_string(c.dqplb.mode));
  d["window_bytes"] = c.dqplb.window_bytes;
  d["outstanding_bytes"] = c.dqplb.outstanding_bytes();
  d["covers_window"] = c.dqplb.covers_window();
  d["config"] = ncclx_qp_config(c.dqplb);
  j["dqplb"] = d;
  return j;
}

ordered_json profile_json(const HostProfile& p) {
  ordered_json j;
  j["format"] = kProfileFormat;
  j["version"] = kProfileVersion;
  j["host"] = p.host;
  j["node_id"] = p.node_id;
  j["state"] = std::string(to_string(p.state));
  j["location"] = {{"hall", p.hall}, {"pod", p.pod}, {"segment", p.segment}, {"rack", p.rack}, {"ru", p.ru}};
  j["blueprint"] = {{"spec_name", p.spec_name}, {"tool_version", p.tool_version}};
  j["bond_mode"] = std::string(to_string(p.mode));
  j["bonds"] = ordered_json::array();
  for (const auto& b : p.bonds) j["bonds"].push_back(bond_json(b));
  j["sysctls"] = ordered_json::array();
  for (const auto& s : p.sysctls) j["sysctls"].push_back({{"key", s.key}, {"value", s.value}});
  j["path_classes"] = ordered_json::array();
  for (const auto& c : p.classes) j["path_classes"].push_back(class_json(c));
  j["ncclx_topology"] = {{"path", p.topology.path}, {"dc", p.topology.dc}, {"zone", p.topology.zone},
                         {"su", p.topology.su}, {"rtsw", p.topology.rtsw},
                         {"value", p.topology.value()}};
  ordered_json env = ordered_json::object();
  for (const auto& e : p.env) env[e.name] = e.value;
  j["env"] = env;
  ordered_json ports;
  ports["measured"] = !p.source_ports.empty();
  ports["source"] = p.paths_source ? ordered_json(*p.paths_source) : ordered_json(nullptr);
  ports["note"] = !p.paths_source          ? "none measured: no paths file from the verify step was given"
                  : p.source_ports.empty() ? "none measured: the paths file has no entry for this host"
                                           : "measured by the verify step";
  ports["destinations"] = ordered_json::array();
  for (const auto& m : p.source_ports) {
    ports["destinations"].push_back(
        {{"bond", m.bond}, {"destination", m.destination}, {"udp_source_ports", m.udp_source_ports}});
  }
  j["disjoint_source_ports"] = ports;
  return j;
}

}  // namespace hpn
