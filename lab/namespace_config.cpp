#include "lab/namespace_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lab/faults.h"
#include "hostconfig/profile.h"

namespace hpn::lab {

namespace {

std::string conf(const std::string& ifname, const char* key) {
  return fmt::format("net/ipv6/conf/{}/{}", ifname, key);
}

}  // namespace

Result<std::vector<std::optional<switchconfig::SwitchConfig>>> switch_configs(const Blueprint& bp, LabTopology& t) {
  // The lab runs the bring-up configurations: a cable plugged into a spare
  // port must carry traffic for verify to name it.
  auto builder = switchconfig::ConfigBuilder::create(bp, {.bring_up = true});
  if (!builder) return builder.error();
  std::vector<std::optional<switchconfig::SwitchConfig>> configs(t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].is_host) continue;
    configs[n] = builder->build(t.nodes[n].device);
    t.ioam_namespace = configs[n]->ioam_namespace;
  }
  std::set<std::pair<int, std::string>> cabled;  // (device, ifname)
  for (auto& link : t.links) {
    for (LabPort* end : {&link.a, &link.z}) {
      cabled.insert({end->device, end->ifname});
      const auto& c = configs[t.node_of(end->device)];
      if (!c || !c->has_gateway) continue;
      Mac mac{};
      for (const auto& p : c->ports) {
        // The port is made with its own MAC; switch apply gives it the
        // gateway's (the set's hwaddress) before it comes up, so its
        // link-local is the kernel's EUI-64 one of the gateway MAC.
        if (p.name == end->port && p.learns_hosts && parse_mac(c->gateway.mac, mac)) {
          end->link_local = eui64_link_local(mac);
        }
      }
    }
  }
  // Every port of a switch's set exists on the switch, as on a real one
  // (switch apply refuses a set naming a port that does not): the ones the
  // wiring gives no cable are made like a host's unplugged ports.
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (!configs[n]) continue;
    const int device = t.nodes[n].device;
    for (const auto& p : configs[n]->ports) {
      if (cabled.count({device, p.ifname})) continue;
      const Mac mac = port_mac(bp.devices[device].node_id, p.port_id);
      LabPort port{device, p.name, p.port_id, kNone, p.ifname, mac, eui64_link_local(mac)};
      t.unplugged.push_back({std::move(port), fmt::format("u{}", t.unplugged.size())});
    }
  }
  if (!t.unplugged.empty()) t.unplugged_netns = t.prefix + "unplugged";
  return configs;
}

std::vector<const switchconfig::SwitchConfig*> config_pointers(
    const std::vector<std::optional<switchconfig::SwitchConfig>>& configs) {
  std::vector<const switchconfig::SwitchConfig*> out;
  for (const auto& c : configs) out.push_back(c ? &*c : nullptr);
  return out;
}

std::vector<NamespaceConfig> namespace_configs(const Blueprint& bp, const LabTopology& t,
                                               const std::vector<const switchconfig::SwitchConfig*>& switches) {
  std::vector<NamespaceConfig> out(t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const Device& d = bp.devices[t.nodes[n].device];
    const switchconfig::SwitchConfig* sw = switches.at(n);
    NamespaceConfig& c = out[n];
    if (sw == nullptr) c.links_up.push_back("lo");
    for (const auto& link : t.links) {
      for (const LabPort* mine : {&link.a, &link.z}) {
        if (t.node_of(mine->device) != static_cast<int>(n)) continue;
        if (d.role == Role::host) {
          // A host's ports are its profile's (host apply): the lab gives
          // them only their link-local address, and no EUI-64 one beside.
          c.sysctls.push_back({conf(mine->ifname, "addr_gen_mode"), "1"});
          c.addresses.push_back({mine->ifname, mine->link_local, 64, false});
          continue;
        }
        // A switch port is its set's (switch apply, before this): it keeps
        // the kernel's EUI-64 link-local of its MAC (mine->link_local), as
        // a real switch does. A dark cable's end is taken down again.
        if (stays_down(link)) c.links_down.push_back(mine->ifname);
      }
    }
    for (const auto& u : t.unplugged) {
      if (t.node_of(u.port.device) != static_cast<int>(n) || sw != nullptr) continue;
      c.sysctls.push_back({conf(u.port.ifname, "addr_gen_mode"), "1"});
      c.addresses.push_back({u.port.ifname, u.port.link_local, 64, false});
    }
    if (sw != nullptr) {
      // What only the lab sets on a switch, after switch apply has made it
      // what its set says (hpnctl-lab(1)). The lab's switches answer switch probes (ICMPv6 errors) at up to
      // 1000 a second per destination; Linux's default is one a second, and
      // a real switch's control plane polices them to a few hundred.
      c.sysctls.push_back({"net/ipv6/icmp/ratelimit", "1"});
      // A port with IOAM off (an ioam-off fault): after the configuration's
      // own setting, which it overrides.
      for (const auto& link : t.links) {
        if (link.fault.kind != FaultKind::ioam_off) continue;
        const LabPort& at = link.fault.at_z ? link.z : link.a;
        if (t.node_of(at.device) == static_cast<int>(n)) c.sysctls.push_back({conf(at.ifname, "ioam6_enabled"), "0"});
      }
    } else {
      // The profile sets the hash policy; the lab fixes the seed, so a lab
      // hashes the same way every time it comes up (the key exists from
      // Linux 6.11).
      c.sysctls.push_back({"net/ipv4/fib_multipath_hash_seed", std::to_string(d.node_id), true});
    }
    c.nft_script = fault_script(t, static_cast<int>(n), FaultPhase::before_routing);
  }
  return out;
}

static_assert(kHostTableBase == kBackendTableBase, "the forwarding model routes hosts by their profiles' tables");

Result<std::map<int, HostNetwork>> host_profiles(const Blueprint& bp, const LabTopology& t) {
  std::map<int, HostNetwork> out;
  auto builder = ProfileBuilder::create(bp, {});
  if (!builder) return builder.error();
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (!t.nodes[n].is_host) continue;
    HostNetwork network = builder->build(t.nodes[n].device);  // the profile's network part
    network.source = "profile of " + network.host;  // what host apply's messages name
    out.emplace(static_cast<int>(n), std::move(network));
  }
  return out;
}

}  // namespace hpn::lab
