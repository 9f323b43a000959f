#include "dataplane/namespace_config.h"

#include <fmt/format.h>

#include "dataplane/faults.h"

namespace hpn::lab {

namespace {

bool is_switch(Role role) { return role == Role::tor || role == Role::agg || role == Role::core; }

std::string conf(const std::string& ifname, const char* key) {
  return fmt::format("net/ipv6/conf/{}/{}", ifname, key);
}

}  // namespace

std::vector<NamespaceConfig> namespace_configs(const Blueprint& bp, const LabTopology& t,
                                               const std::vector<NodeRoutes>& routes) {
  std::vector<NamespaceConfig> out(t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const Device& d = bp.devices[t.nodes[n].device];
    NamespaceConfig& c = out[n];
    const bool router = is_switch(d.role);
    // Five-tuple ECMP (hosts too: the bond hashes layer3+4), with a fixed
    // per-device seed so a lab hashes the same way every time it comes up,
    // as a switch with a configured hash seed does (RePaC relies on that);
    // the seed key exists from Linux 6.11.
    c.sysctls.push_back({"net/ipv6/fib_multipath_hash_policy", "1"});
    c.sysctls.push_back({"net/ipv4/fib_multipath_hash_seed", std::to_string(d.node_id), true});
    if (router) {
      c.sysctls.push_back({"net/ipv6/conf/all/forwarding", "1"});
      c.sysctls.push_back({"net/ipv6/ioam6_id", std::to_string(d.node_id)});
      c.ioam_namespaces.push_back(t.ioam_namespace);
    }
    c.links_up.push_back("lo");
    for (const auto& link : t.links) {
      for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
        if (t.node_of(mine->device) != static_cast<int>(n)) continue;
        // Only the addresses we give: no EUI-64 link-local beside ours.
        c.sysctls.push_back({conf(mine->ifname, "addr_gen_mode"), "1"});
        if (router) {
          // Every port may be an ingress; the egress ID is read from the
          // outgoing interface, so each gets its blueprint port ID.
          c.sysctls.push_back({conf(mine->ifname, "ioam6_enabled"), "1"});
          c.sysctls.push_back({conf(mine->ifname, "ioam6_id"), std::to_string(mine->port_id)});
        }
        c.addresses.push_back({mine->ifname, mine->link_local, 64, false});
        if (d.role == Role::host) {
          for (const auto& i : bp.interfaces) {
            if (i.device == mine->device && i.purpose == "host" && i.nic == mine->nic && !i.ipv6.empty()) {
              c.addresses.push_back({mine->ifname, i.ipv6, i.ipv6_len, true});
            }
          }
        }
        if (stays_down(link)) continue;
        c.links_up.push_back(mine->ifname);
        // Permanent neighbours: what ND would learn, there before the first
        // probe, and kept when a one-way fault would starve ND (a switch
        // keeps forwarding to a learned MAC while a fibre is broken one way).
        c.neighbours.push_back({mine->ifname, far->link_local, far->mac});
      }
    }
    if (router) {
      for (const auto& i : bp.interfaces) {
        if (i.device == t.nodes[n].device && i.purpose == "loopback" && !i.ipv6.empty()) {
          c.addresses.push_back({"lo", i.ipv6, i.ipv6_len, false});
        }
      }
    }
    c.rules = routes.at(n).rules;
    c.routes = routes.at(n).routes;
    c.nft_script = fault_script(t, static_cast<int>(n));
  }
  return out;
}

}  // namespace hpn::lab
