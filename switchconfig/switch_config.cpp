#include "switchconfig/switch_config.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "planner/addressing.h"
#include "planner/spec_loader.h"
#include "planner/topology.h"

namespace hpn::switchconfig {

std::string interface_name(const PanelPort& port) {
  // IFNAMSIZ is 16 with the NUL; '/', ':' and whitespace are refused by the
  // kernel or break `ip` and sysctl paths.
  bool valid = !port.name.empty() && port.name.size() <= 15 && port.name != "." && port.name != "..";
  for (char c : port.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) valid = false;
  }
  return valid ? port.name : fmt::format("p{}", port.port_id);
}

SonicPort sonic_port(const PanelPort& port, int cage_speed_gbps) {
  // Port IDs are cage x 16, plus 1 + sub-port for a breakout child
  // (planner/expand.cpp), so the cage and sub-port come back out of them.
  const int cage = port.port_id / 16, sub = port.port_id % 16;
  const int lanes = std::max(1, cage_speed_gbps / 100);
  const int per_port = sub == 0 ? lanes : std::max(1, lanes * port.speed_gbps / std::max(1, cage_speed_gbps));
  const int first = (cage - 1) * lanes + (sub == 0 ? 0 : (sub - 1) * per_port);
  std::string list;
  for (int l = first; l < first + per_port; ++l) list += (l == first ? "" : ",") + std::to_string(l);
  return {fmt::format("Ethernet{}", first), list, cage};
}

std::string_view to_string(PortRole role) {
  switch (role) {
    case PortRole::host: return "host";
    case PortRole::uplink: return "uplink";
    case PortRole::downlink: return "downlink";
    case PortRole::spare: return "spare";
    case PortRole::unused: return "unused";
    case PortRole::external: return "external";
  }
  return "?";
}

namespace {

bool is_switch(Role r) { return r == Role::tor || r == Role::agg || r == Role::core || r == Role::frontend; }

// The network of an address: "10.0.0.1", 27 -> "10.0.0.0/27".
std::string network_of(const std::string& address, int length) {
  const int family = address.find(':') == std::string::npos ? 4 : 6;
  unsigned char bytes[16] = {};
  if (inet_pton(family == 4 ? AF_INET : AF_INET6, address.c_str(), bytes) != 1) return "";
  u128 value = 0;
  for (int i = 0; i < (family == 4 ? 4 : 16); ++i) value = value << 8 | bytes[i];
  const int bits = family == 4 ? 32 : 128;
  const u128 host = length >= bits ? 0 : (u128{1} << (bits - length)) - 1;
  return format_address(family, value & ~host) + "/" + std::to_string(length);
}

// The fewest prefixes that cover subnets [first, end) of `pool` (each of
// length `sub_length`): aligned blocks, largest first.
std::vector<Prefix4or6> cover(const Prefix& pool, int sub_length, std::uint64_t first, std::uint64_t end) {
  std::vector<Prefix4or6> out;
  while (first < end) {
    int k = 0;
    while (k < sub_length - pool.length && first % (std::uint64_t{2} << k) == 0 &&
           first + (std::uint64_t{2} << k) <= end) {
      ++k;
    }
    Prefix block = pool.subnet(sub_length, first);
    block.length = sub_length - k;
    out.push_back({pool.family, block.to_string()});
    first += std::uint64_t{1} << k;
  }
  return out;
}

}  // namespace

Result<ConfigBuilder> ConfigBuilder::create(const Blueprint& bp, const ConfigOptions& options) {
  auto spec = load_spec(bp.spec_yaml, "the blueprint's spec");
  if (!spec) return Error{"the spec stored in the blueprint does not load:\n" + spec.error().message};
  const Spec& s = spec.value();
  ConfigBuilder b;
  b.bp_ = &bp;
  b.options_ = options;
  b.mtu_ = s.switches.mtu;
  b.ioam_namespace_ = s.switches.ioam_namespace;
  b.keepalive_ = s.switches.bgp_keepalive_s;
  b.hold_ = s.switches.bgp_hold_s;
  b.reachable_ = s.switches.neighbour_reachable_s;
  b.backend4_ = s.addressing.backend_ipv4;
  b.backend6_ = s.addressing.backend_ipv6;
  b.frontend4_ = s.addressing.frontend_ipv4;
  b.frontend6_ = s.addressing.frontend_ipv6;
  const Topology t = derive_topology(s);
  b.core_group_ = std::max(1, t.core_ports_per_pod);

  const size_t n = bp.devices.size();
  b.cables_at_.assign(n, {});
  b.loopback_.assign(n, -1);
  b.gateway_.assign(n, -1);
  b.rules_of_.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    if (is_switch(bp.devices[i].role)) b.switches_.push_back(static_cast<int>(i));
  }
  for (size_t c = 0; c < bp.cables.size(); ++c) {
    b.cables_at_[bp.cables[c].a_device].push_back({static_cast<int>(c), 0});
    b.cables_at_[bp.cables[c].z_device].push_back({static_cast<int>(c), 1});
  }
  b.link_of_cable_.assign(bp.cables.size(), -1);
  for (size_t l = 0; l < bp.links.size(); ++l) b.link_of_cable_[bp.links[l].cable] = static_cast<int>(l);
  for (size_t i = 0; i < bp.interfaces.size(); ++i) {
    const Interface& row = bp.interfaces[i];
    if (row.purpose == InterfacePurpose::loopback && b.loopback_[row.device] < 0) b.loopback_[row.device] = static_cast<int>(i);
    if (row.purpose == InterfacePurpose::gateway && b.gateway_[row.device] < 0) b.gateway_[row.device] = static_cast<int>(i);
  }
  for (size_t r = 0; r < bp.core_rules.size(); ++r) b.rules_of_[bp.core_rules[r].core].push_back(static_cast<int>(r));

  // A pod's host subnets: the block of ToR-pair subnets set aside for its
  // every possible segment (positions, planner/topology.h), so a segment
  // added later is covered by the rules already on the core.
  auto v4 = parse_prefix(s.addressing.backend_ipv4, 4);
  auto v6 = parse_prefix(s.addressing.backend_ipv6, 6);
  if (!v4 || !v6) return Error{"the blueprint's spec has no valid back-end pools"};
  const int len4 = prefix_for(4, std::uint64_t(s.addressing.first_host_offset) + t.hosts_per_segment + 1);
  const std::uint64_t per_pod = std::uint64_t(t.max_segments) * t.rails;
  const int pods = std::max(s.core.pods_planned, t.pods);
  b.pod_prefixes_.assign(pods, {});
  for (int pod = 0; pod < pods; ++pod) {
    const std::uint64_t first = pod * per_pod, end = first + per_pod;
    auto& out = b.pod_prefixes_[pod];
    for (auto& p : cover(*v4, len4, first, std::min<std::uint64_t>(end, v4->capacity(len4)))) out.push_back(p);
    for (auto& p : cover(*v6, 64, first, std::min<std::uint64_t>(end, v6->capacity(64)))) out.push_back(p);
  }
  return b;
}

int ConfigBuilder::find(const std::string& name) const {
  for (int d : switches_) {
    if (bp_->devices[d].name == name) return d;
  }
  return -1;
}

SwitchConfig ConfigBuilder::build(int device) const {
  const Blueprint& bp = *bp_;
  const Device& d = bp.devices[device];
  const Panel& panel = bp.panels[d.panel];
  SwitchConfig c;
  c.name = d.name;
  c.role = d.role;
  c.pod = d.pod;
  c.segment = d.segment;
  c.plane = d.plane;
  c.rail = d.rail;
  c.rack = d.rack == kNone ? "" : bp.racks[d.rack].name;
  c.ru = d.ru;
  c.node_id = d.node_id;
  c.ioam_namespace = static_cast<std::uint16_t>(ioam_namespace_);
  c.mtu = mtu_;
  c.neighbour_reachable_s = reachable_;
  c.spec_name = bp.spec_name;
  c.tool_version = bp.tool_version;
  c.bring_up = options_.bring_up;
  if (int l = loopback_[device]; l >= 0) {
    c.loopback4 = bp.interfaces[l].ipv4;
    c.loopback6 = bp.interfaces[l].ipv6;
  }
  if (int g = gateway_[device]; g >= 0) {
    const Interface& row = bp.interfaces[g];
    c.has_gateway = true;
    c.gateway = {row.ipv4, row.ipv6, row.ipv4_len, row.ipv6_len,
                 row.ipv4.empty() ? "" : network_of(row.ipv4, row.ipv4_len),
                 row.ipv6.empty() ? "" : network_of(row.ipv6, row.ipv6_len), row.mac,
                 d.role == Role::frontend ? frontend4_ : backend4_,
                 d.role == Role::frontend ? frontend6_ : backend6_};
  }

  // The cable at each port of this device.
  std::unordered_map<std::string_view, std::pair<int, int>> cabled;
  for (auto [cable, end] : cables_at_[device]) {
    cabled.emplace(end == 0 ? bp.cables[cable].a_port : bp.cables[cable].z_port, std::pair{cable, end});
  }
  std::unordered_map<std::string_view, int> cage_speed;
  for (const auto& p : panel.ports) {
    if (p.use == PortUse::cage) cage_speed[p.name] = p.speed_gbps;
  }
  int uplinks = 0;
  for (const auto& p : panel.ports) {
    if (p.use == PortUse::cage) {
      CageConfig cage{p.name, sonic_port(p, p.speed_gbps), p.speed_gbps, 0, 0};
      for (const auto& q : panel.ports) {
        if (q.breakout_of == p.name) {
          ++cage.children;
          cage.child_speed_gbps = q.speed_gbps;
        }
      }
      c.cages.push_back(std::move(cage));
      continue;
    }
    PortConfig port;
    port.name = p.name;
    port.ifname = interface_name(p);
    const int cage_gbps = p.breakout_of.empty() ? p.speed_gbps : cage_speed[p.breakout_of];
    port.sonic = sonic_port(p, cage_gbps);
    port.port_id = p.port_id;
    port.speed_gbps = p.speed_gbps;
    port.mtu = mtu_;
    port.breakout_of = p.breakout_of;
    auto it = cabled.find(p.name);
    if (it == cabled.end()) {
      port.role = p.use == PortUse::spare ? PortRole::spare
                  : p.use == PortUse::external ? PortRole::external : PortRole::unused;
      port.admin_up = port.role == PortRole::external;
      port.description = port.role == PortRole::spare      ? "spare"
                         : port.role == PortRole::external ? "uplink outside this plan"
                                                           : fmt::format("unused {} port", to_string(p.use));
      if (options_.bring_up && port.role != PortRole::external) {
        // Lit for the wiring check: whatever is plugged in here is heard.
        port.admin_up = true;
        port.bgp = true;
        port.description += ", lit for the wiring check";
        if (c.has_gateway) {
          port.learns_hosts = true;
          port.ipv4 = c.gateway.ipv4;
          port.ipv4_len = c.gateway.ipv4.empty() ? 0 : 32;
          port.ipv6 = c.gateway.ipv6;
          port.ipv6_len = c.gateway.ipv6.empty() ? 0 : 128;
        }
      }
      c.ports.push_back(std::move(port));
      continue;
    }
    const auto [cable, end] = it->second;
    const Cable& k = bp.cables[cable];
    const Device& peer = bp.devices[end == 0 ? k.z_device : k.a_device];
    port.cable = cable;
    port.cable_id = k.id;
    port.peer_device = peer.name;
    port.peer_port = end == 0 ? k.z_port : k.a_port;
    port.admin_up = true;
    port.description = fmt::format("{} {}:{}{}", k.id, port.peer_device, port.peer_port,
                                   k.state == State::backup ? " (backup host)" : "");
    if (peer.role == Role::host) {
      port.role = PortRole::host;
      port.learns_hosts = c.has_gateway;
      if (c.has_gateway) {
        port.ipv4 = c.gateway.ipv4;
        port.ipv4_len = c.gateway.ipv4.empty() ? 0 : 32;
        port.ipv6 = c.gateway.ipv6;
        port.ipv6_len = c.gateway.ipv6.empty() ? 0 : 128;
      }
    } else {
      // The a-end of a switch-to-switch cable is the lower tier.
      port.role = end == 0 ? PortRole::uplink : PortRole::downlink;
      if (end == 0) ++uplinks;
      port.bgp = true;
      port.peer_asn = peer.asn;
      if (int l = link_of_cable_[cable]; l >= 0) {
        const LinkAddresses& a = bp.links[l];
        port.planned_ipv4 = fmt::format("{}/{}", end == 0 ? a.a_ipv4 : a.z_ipv4, a.ipv4_len);
        // A core's links carry its rules' IPv4 next hops: the /31 is
        // configured at both ends, so the core has a connected route to
        // the far end and the aggregation switch answers its ARP.
        if ((d.role == Role::core || peer.role == Role::core) && !a.a_ipv4.empty() && !a.z_ipv4.empty()) {
          port.ipv4 = end == 0 ? a.a_ipv4 : a.z_ipv4;
          port.ipv4_len = a.ipv4_len;
        }
        port.ipv6 = end == 0 ? a.a_ipv6 : a.z_ipv6;
        port.peer_ipv4 = end == 0 ? a.z_ipv4 : a.a_ipv4;
        port.peer_ipv6 = end == 0 ? a.z_ipv6 : a.a_ipv6;
        port.ipv6_len = a.ipv6_len;
      }
    }
    c.ports.push_back(std::move(port));
  }

  c.bgp.asn = d.asn;
  c.bgp.router_id = c.loopback4;
  c.bgp.keepalive_s = keepalive_;
  c.bgp.hold_s = hold_;
  // ECMP as wide as the widest group of equal paths: a ToR's or an
  // aggregation switch's uplinks, a core's port group toward one pod.
  c.bgp.maximum_paths = std::max(1, d.role == Role::core ? core_group_ : uplinks);
  if (!c.loopback4.empty()) c.bgp.networks4.push_back(c.loopback4 + "/32");
  if (!c.loopback6.empty()) c.bgp.networks6.push_back(c.loopback6 + "/128");

  std::unordered_map<std::string_view, const PortConfig*> by_name;
  for (const auto& p : c.ports) by_name.emplace(p.name, &p);
  for (int r : rules_of_[device]) {
    const CoreRule& rule = bp.core_rules[r];
    CoreRuleConfig k;
    k.row = r + 1;
    k.in_port = rule.in_port;
    k.out_port = rule.out_port;
    k.dst_pod = rule.dst_pod;
    k.fallback = rule.fallback;
    k.active = rule.status == "active";
    if (auto in = by_name.find(rule.in_port); in != by_name.end()) k.in_ifname = in->second->ifname;
    if (auto out = by_name.find(rule.out_port); out != by_name.end()) {
      k.out_ifname = out->second->ifname;
      // An IPv4 next hop only where the link's /31 is configured.
      if (!out->second->ipv4.empty()) k.nexthop_ipv4 = out->second->peer_ipv4;
      k.nexthop_ipv6 = out->second->peer_ipv6;
    }
    if (rule.dst_pod >= 0 && rule.dst_pod < static_cast<int>(pod_prefixes_.size())) {
      k.prefixes = pod_prefixes_[rule.dst_pod];
    }
    // A rule whose ports are not both cabled cannot forward yet.
    const auto in = by_name.find(rule.in_port), out = by_name.find(rule.out_port);
    const bool in_cabled = in != by_name.end() && in->second->cable >= 0;
    const bool out_cabled = out != by_name.end() && out->second->cable >= 0;
    k.active = k.active && in_cabled && out_cabled;
    if (!k.active) {
      k.reserved_because = !in_cabled ? fmt::format("{} is not cabled: its pod is not built yet", rule.in_port)
                           : !out_cabled ? fmt::format("pod {} is not built yet", rule.dst_pod)
                                         : "the plan marks it reserved";
    }
    c.core_rules.push_back(std::move(k));
  }
  return c;
}

}  // namespace hpn::switchconfig
