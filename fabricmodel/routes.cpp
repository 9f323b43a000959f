#include "fabricmodel/routes.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

namespace hpn::fabricmodel {

using lab::Fault;
using lab::FaultKind;
using lab::LabTopology;
using lab::NextHop;
using lab::Route;
using lab::kHostTableBase;
using lab::kMainTable;

namespace {

bool is_switch(Role role) { return role == Role::tor || role == Role::agg || role == Role::core; }

const Interface* bond_of(const Blueprint& bp, int device, int nic) {
  for (const auto& i : bp.interfaces) {
    if (i.device == device && i.purpose == InterfacePurpose::host && i.nic == nic && !i.ipv6.empty()) return &i;
  }
  return nullptr;
}

}  // namespace

// A dark cable carries nothing. A one-way fault is modelled as striking a
// fabric that had converged (HPN §10: the NIC kept sending into a link it
// believed healthy, and the ToR kept its route to the host): routes stay,
// and the dead direction silently drops what is sent into it, which is what
// lets verify tell it apart from a missing cable.
bool carries_routing(const Fault& fault) { return fault.kind != FaultKind::down; }

FabricRoutes::FabricRoutes(const FabricIndex& f, const std::vector<lab::WiredCable>& wiring)
    : bp_(f.blueprint()), sessions_(bp_.devices.size()), switch_index_(bp_.devices.size(), -1) {
  for (size_t d = 0; d < bp_.devices.size(); ++d) {
    if (is_switch(bp_.devices[d].role)) switch_index_[d] = switches_++;
  }
  std::map<std::string, Origin> origins;  // prefix -> where it is learned
  for (const auto& w : wiring) {
    const PortRef a{w.a_device, f.port_by_name(w.a_device, w.a_port)};
    const PortRef z{w.z_device, f.port_by_name(w.z_device, w.z_port)};
    if (!a.valid() || !z.valid() || a.device == z.device || !carries_routing(w.fault)) continue;
    const Role ra = bp_.devices[a.device].role, rz = bp_.devices[z.device].role;
    // Same AS on both ends would be iBGP, which the fabric does not run.
    if (is_switch(ra) && is_switch(rz) && asn(a.device) != asn(z.device)) {
      sessions_[a.device].push_back({z.device, a.port});
      sessions_[z.device].push_back({a.device, z.port});
    }
    // Host bond addresses, learned by the switch each host port is cabled
    // to: ToRs (and front-end leaves) answer for the gateway and learn
    // their hosts; aggregation and core switches do not.
    for (auto [host, sw] : {std::pair{a, z}, std::pair{z, a}}) {
      const Role rh = bp_.devices[host.device].role, rs = bp_.devices[sw.device].role;
      if (rh != Role::host || (rs != Role::tor && rs != Role::frontend)) continue;
      if (const Interface* bond = bond_of(bp_, host.device, f.port(host).nic)) {
        origins[bond->ipv6].at[sw.device].push_back(sw.port);
      }
    }
  }
  for (const auto& i : bp_.interfaces) {
    if (i.purpose != InterfacePurpose::loopback || i.ipv6.empty() || !is_switch(bp_.devices[i.device].role)) continue;
    origins[i.ipv6].at[i.device];
  }
  // The routing toward a prefix depends only on which switches originate
  // it: solved once per such set (a ToR's hosts share one).
  std::map<std::vector<int>, size_t> solved;
  for (auto& [prefix, origin] : origins) {
    std::vector<int> at;
    for (auto& [device, ports] : origin.at) {
      std::sort(ports.begin(), ports.end());
      at.push_back(device);
    }
    auto [it, added] = solved.emplace(at, solutions_.size());
    if (added) {
      // Kept compact: the ports of each switch only (a pod's hosts
      // outnumber its switches), without the AS paths.
      std::vector<Best> best = solve(origin);
      std::vector<std::vector<int>> ports(switches_);
      for (size_t d = 0; d < best.size(); ++d) {
        if (switch_index_[d] >= 0 && best[d].valid) ports[switch_index_[d]] = std::move(best[d].ports);
      }
      solutions_.push_back(std::move(ports));
    }
    origin.solution = it->second;
    prefixes_.emplace(prefix, std::move(origin));
  }
}

std::int64_t FabricRoutes::asn(int device) const {
  const auto a = bp_.devices[device].asn;
  return a == kNone ? -1 - device : a;  // a switch without an ASN: unique private value
}

// Synchronous path-vector rounds until nothing changes. Shortest-AS-path
// preference with loop prevention converges (it is a "safe" BGP policy);
// the round cap only guards against a bug.
std::vector<FabricRoutes::Best> FabricRoutes::solve(const Origin& origin) const {
  const size_t n = bp_.devices.size();
  std::vector<Best> best(n);
  for (const auto& [device, connected] : origin.at) best[device] = {true, {}, connected};
  for (size_t round = 0; round <= 2 * n + 2; ++round) {
    std::vector<Best> next = best;
    for (size_t d = 0; d < n; ++d) {
      if (origin.at.count(static_cast<int>(d)) || !is_switch(bp_.devices[d].role)) continue;
      next[d] = choose(static_cast<int>(d), best);
    }
    if (next == best) break;
    best = std::move(next);
  }
  return best;
}

FabricRoutes::Best FabricRoutes::choose(int device, const std::vector<Best>& best) const {
  Best out;
  size_t shortest = SIZE_MAX;
  for (const auto& s : sessions_[device]) {
    const Best& peer = best[s.peer];
    if (!peer.valid) continue;
    std::vector<std::int64_t> path{asn(s.peer)};
    path.insert(path.end(), peer.as_path.begin(), peer.as_path.end());
    if (std::find(path.begin(), path.end(), asn(device)) != path.end()) continue;  // loop
    if (path.size() < shortest) {
      shortest = path.size();
      // The first session (in wiring order) of the shortest length is the
      // one advertised onward; its AS path is what loop checks see.
      out = {true, std::move(path), {s.port}};
    } else if (path.size() == shortest) {
      out.ports.push_back(s.port);
    }
  }
  std::sort(out.ports.begin(), out.ports.end());
  return out;
}

const std::vector<int>& FabricRoutes::toward(int device, const std::string& prefix) const {
  static const std::vector<int> kNoRoute;
  const auto it = prefixes_.find(prefix);
  if (it == prefixes_.end()) return kNoRoute;
  if (auto at = it->second.at.find(device); at != it->second.at.end()) return at->second;
  return switch_index_[device] < 0 ? kNoRoute : solutions_[it->second.solution][switch_index_[device]];
}

std::vector<std::string> FabricRoutes::prefixes() const {
  std::vector<std::string> out;
  for (const auto& [prefix, origin] : prefixes_) out.push_back(prefix);
  return out;
}

std::vector<NodeRoutes> compute_routes(const Blueprint& bp, const LabTopology& t) {
  // The lab's links as a wiring, and each (device, port) as its lab end.
  const FabricIndex f(bp);
  std::vector<lab::WiredCable> wiring;
  std::map<std::pair<int, std::string>, std::pair<const lab::LabPort*, const lab::LabPort*>> end_of;  // mine, far
  for (const auto& link : t.links) {
    wiring.push_back({link.cable_id, link.line, link.a.device, link.a.port, link.z.device, link.z.port, link.fault});
    end_of[{link.a.device, link.a.port}] = {&link.a, &link.z};
    end_of[{link.z.device, link.z.port}] = {&link.z, &link.a};
  }
  const FabricRoutes routes(f, wiring);
  auto role = [&](int node) { return bp.devices[t.nodes[node].device].role; };

  std::vector<NodeRoutes> out(t.nodes.size());
  std::map<std::string, int> prefix_len;  // the routes' own prefix lengths
  for (const auto& i : bp.interfaces) {
    if (i.purpose == InterfacePurpose::loopback && !i.ipv6.empty()) prefix_len[i.ipv6] = i.ipv6_len;
  }
  for (const auto& prefix : routes.prefixes()) {
    const auto len = prefix_len.find(prefix);
    for (size_t node = 0; node < t.nodes.size(); ++node) {
      const int device = t.nodes[node].device;
      if (!is_switch(role(static_cast<int>(node))) && role(static_cast<int>(node)) != Role::frontend) continue;
      std::vector<NextHop> nexthops;
      for (int port : routes.toward(device, prefix)) {
        const auto& [mine, far] = end_of.at({device, f.port({device, port}).name});
        nexthops.push_back({mine->ifname, far->link_local});
      }
      if (nexthops.empty()) continue;
      std::sort(nexthops.begin(), nexthops.end());
      out[node].routes.push_back({prefix, len == prefix_len.end() ? 128 : len->second, kMainTable, std::move(nexthops)});
    }
  }

  // Hosts: a table per back-end NIC, chosen by the bond's source address.
  for (size_t node = 0; node < t.nodes.size(); ++node) {
    const int device = t.nodes[node].device;
    if (role(static_cast<int>(node)) != Role::host) continue;
    std::map<int, std::vector<NextHop>> by_nic;
    for (const auto& link : t.links) {
      for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
        // The bond drops a member without link; a one-way fault it does
        // not see (FIELD.md §1: the NIC ignored the fault signal).
        if (mine->device != device || link.fault.kind == FaultKind::down) continue;
        if (mine->device == far->device || !is_switch(bp.devices[far->device].role)) continue;
        by_nic[mine->nic].push_back({mine->ifname, far->link_local});
      }
    }
    bool main_done = false;
    for (auto& [nic, nexthops] : by_nic) {
      const Interface* bond = bond_of(bp, device, nic);
      if (bond == nullptr) continue;
      std::sort(nexthops.begin(), nexthops.end());
      const std::uint32_t table = kHostTableBase + static_cast<std::uint32_t>(nic);
      out[node].routes.push_back({"::", 0, table, nexthops});
      out[node].rules.push_back({bond->ipv6, 128, table, table});
      if (!main_done) out[node].routes.push_back({"::", 0, kMainTable, nexthops});
      main_done = true;
    }
  }
  for (auto& r : out) {
    std::sort(r.routes.begin(), r.routes.end(), [](const Route& x, const Route& y) {
      return std::tie(x.table, x.prefix, x.prefix_len) < std::tie(y.table, y.prefix, y.prefix_len);
    });
  }
  return out;
}

}  // namespace hpn::fabricmodel
