#include "fabricmodel/routes.h"

#include <algorithm>
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

// A BGP session as seen from one of its two switches.
struct Session {
  int peer = 0;  // node index
  NextHop via;   // this switch's interface, the peer's link-local
};

struct Origin {
  std::map<int, std::vector<NextHop>> at;  // originating node -> connected next hops (may be none)
};

// A node's best route to one prefix.
struct Best {
  bool valid = false;
  std::vector<std::int64_t> as_path;  // as advertised onward, without this node's AS
  std::vector<NextHop> nexthops;
  friend bool operator==(const Best&, const Best&) = default;
};

class Solver {
 public:
  Solver(const Blueprint& bp, const LabTopology& t) : bp_(bp), t_(t), sessions_(t.nodes.size()) {
    for (const auto& link : t.links) {
      const int a = t.node_of(link.a.device), z = t.node_of(link.z.device);
      if (a == z || !carries_routing(link.fault) || !is_switch(role(a)) || !is_switch(role(z))) continue;
      // Same AS on both ends would be iBGP, which the fabric does not run.
      if (asn(a) == asn(z)) continue;
      sessions_[a].push_back({z, {link.a.ifname, link.z.link_local}});
      sessions_[z].push_back({a, {link.z.ifname, link.a.link_local}});
    }
  }

  Role role(int node) const { return bp_.devices[t_.nodes[node].device].role; }
  std::int64_t asn(int node) const {
    const auto a = bp_.devices[t_.nodes[node].device].asn;
    return a == kNone ? -1 - node : a;  // a switch without an ASN: unique private value
  }

  // Synchronous path-vector rounds until nothing changes. Shortest-AS-path
  // preference with loop prevention converges (it is a "safe" BGP policy);
  // the round cap only guards against a bug.
  std::vector<Best> solve(const Origin& origin) const {
    const size_t n = t_.nodes.size();
    std::vector<Best> best(n);
    for (auto& [node, connected] : origin.at) best[node] = {true, {}, connected};
    for (size_t round = 0; round <= 2 * n + 2; ++round) {
      std::vector<Best> next = best;
      for (size_t node = 0; node < n; ++node) {
        if (origin.at.count(static_cast<int>(node)) || !is_switch(role(static_cast<int>(node)))) continue;
        next[node] = choose(static_cast<int>(node), best);
      }
      if (next == best) break;
      best = std::move(next);
    }
    return best;
  }

 private:
  Best choose(int node, const std::vector<Best>& best) const {
    Best out;
    size_t shortest = SIZE_MAX;
    for (const auto& s : sessions_[node]) {
      const Best& peer = best[s.peer];
      if (!peer.valid) continue;
      std::vector<std::int64_t> path{asn(s.peer)};
      path.insert(path.end(), peer.as_path.begin(), peer.as_path.end());
      if (std::find(path.begin(), path.end(), asn(node)) != path.end()) continue;  // loop
      if (path.size() < shortest) {
        shortest = path.size();
        // The first session (in wiring order) of the shortest length is the
        // one advertised onward; its AS path is what loop checks see.
        out = {true, std::move(path), {s.via}};
      } else if (path.size() == shortest) {
        out.nexthops.push_back(s.via);
      }
    }
    std::sort(out.nexthops.begin(), out.nexthops.end());
    return out;
  }

  const Blueprint& bp_;
  const LabTopology& t_;
  std::vector<std::vector<Session>> sessions_;
};

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

std::vector<NodeRoutes> compute_routes(const Blueprint& bp, const LabTopology& t) {
  Solver solver(bp, t);
  std::map<std::pair<std::string, int>, Origin> prefixes;

  // Host bond addresses, learned by the switch each host port is cabled to.
  for (const auto& link : t.links) {
    if (!carries_routing(link.fault)) continue;
    for (auto [host, sw] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
      const int h = t.node_of(host->device), s = t.node_of(sw->device);
      // ToRs (and front-end leaves) answer for the gateway and learn their
      // hosts; aggregation and core switches do not.
      if (solver.role(h) != Role::host || (solver.role(s) != Role::tor && solver.role(s) != Role::frontend)) continue;
      if (const Interface* bond = bond_of(bp, host->device, host->nic)) {
        prefixes[{bond->ipv6, 128}].at[s].push_back({sw->ifname, host->link_local});
      }
    }
  }
  for (const auto& i : bp.interfaces) {
    const int node = t.node_of(i.device);
    if (node < 0 || i.purpose != InterfacePurpose::loopback || i.ipv6.empty() || !is_switch(solver.role(node))) continue;
    prefixes[{i.ipv6, i.ipv6_len}].at[node];
  }

  std::vector<NodeRoutes> out(t.nodes.size());
  for (const auto& [prefix, origin] : prefixes) {
    const auto best = solver.solve(origin);
    for (size_t node = 0; node < best.size(); ++node) {
      if (!best[node].valid || best[node].nexthops.empty()) continue;
      auto nexthops = best[node].nexthops;
      std::sort(nexthops.begin(), nexthops.end());
      out[node].routes.push_back({prefix.first, prefix.second, kMainTable, std::move(nexthops)});
    }
  }

  // Hosts: a table per back-end NIC, chosen by the bond's source address.
  for (size_t node = 0; node < t.nodes.size(); ++node) {
    const int device = t.nodes[node].device;
    if (solver.role(static_cast<int>(node)) != Role::host) continue;
    std::map<int, std::vector<NextHop>> by_nic;
    for (const auto& link : t.links) {
      for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
        // The bond drops a member without link; a one-way fault it does
        // not see (FIELD.md §1: the NIC ignored the fault signal).
        if (mine->device != device || link.fault.kind == FaultKind::down) continue;
        if (mine->device == far->device || !is_switch(solver.role(t.node_of(far->device)))) continue;
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
