#include "host/host_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace hpn::host {

const char* to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::sysctl: return "sysctl";
    case ChangeKind::create_bond: return "bond";
    case ChangeKind::bond_options: return "bond-options";
    case ChangeKind::release: return "release";
    case ChangeKind::remove_address: return "unaddr";
    case ChangeKind::remove_route: return "unroute";
    case ChangeKind::link_down: return "down";
    case ChangeKind::enslave: return "master";
    case ChangeKind::set_mac: return "mac";
    case ChangeKind::set_mtu: return "mtu";
    case ChangeKind::add_address: return "addr";
    case ChangeKind::link_up: return "up";
    case ChangeKind::add_rule: return "rule";
    case ChangeKind::set_route: return "route";
    case ChangeKind::set_neighbour: return "neigh";
    case ChangeKind::rename: return "name";
  }
  return "?";
}

namespace {

std::string hops_text(const std::vector<NextHopState>& hops) {
  std::string out;
  for (const auto& h : hops) {
    out += fmt::format("{}nexthop via {} dev {}{}", out.empty() ? "" : " ", h.gateway.empty() ? "-" : h.gateway, h.ifname,
                       h.onlink ? " onlink" : "");
  }
  return out;
}

std::string table_text(int table) { return table == 254 ? "main" : std::to_string(table); }

const char* hash_policy(const Bond& b) { return b.layer34 ? "layer3+4" : "layer2"; }

std::string monitor_text(const Bond& b) {
  if (!b.arp_monitor) return fmt::format("miimon {}", b.miimon_ms);
  std::string targets;
  for (const auto& a : b.arp_targets) targets += (targets.empty() ? "" : ",") + a;
  return fmt::format("arp_interval {} arp_ip_target {}", b.arp_interval_ms, targets);
}

std::string monitor_text(const BondState& b) {
  if (b.arp_interval_ms == 0) return fmt::format("miimon {}", b.miimon_ms);
  std::string targets;
  for (const auto& a : b.arp_targets) targets += (targets.empty() ? "" : ",") + a;
  return fmt::format("arp_interval {} arp_ip_target {}", b.arp_interval_ms, targets.empty() ? "-" : targets);
}

std::string route_text(const IpPrefix& to, int table, int metric, int protocol, const std::vector<NextHopState>& hops) {
  return fmt::format("{} table {} metric {} proto {} {}", to.text(), table_text(table), metric, protocol_name(protocol),
                     hops_text(hops));
}

}  // namespace

std::string Change::text() const {
  const std::string o(1, op);
  switch (kind) {
    case ChangeKind::sysctl:
      return old_value.empty() ? fmt::format("+ sysctl {} = {}", target, value)
                               : fmt::format("~ sysctl {} {} -> {}", target, old_value, value);
    case ChangeKind::create_bond: {
      std::string t = fmt::format("+ bond {} mode {}", target, to_string(bond->mode));
      if (bond->layer34) t += " xmit_hash_policy layer3+4";
      if (bond->arp_monitor) {
        std::string targets;
        for (const auto& a : bond->arp_targets) targets += (targets.empty() ? "" : ",") + a;
        t += fmt::format(" arp_interval {} arp_ip_target {} arp_validate {}", bond->arp_interval_ms, targets,
                         arp_validate_name(*bond));
      } else {
        t += fmt::format(" miimon {}", bond->miimon_ms);
      }
      if (bond->lacp_fast) t += " lacp_rate fast";
      return t + fmt::format(" mac {} mtu {}", hpn::to_string(bond->mac), bond->mtu);
    }
    case ChangeKind::bond_options:
      return fmt::format("~ bond {} mode {} xmit_hash_policy {} {} -> mode {} xmit_hash_policy {} {}", target,
                         old_bond.mode, old_bond.xmit_hash_policy.empty() ? "-" : old_bond.xmit_hash_policy,
                         monitor_text(old_bond), to_string(bond->mode), hash_policy(*bond), monitor_text(*bond));
    case ChangeKind::release: return fmt::format("~ master {} {} -> none", target, old_value);
    case ChangeKind::remove_address:
      return fmt::format("- addr {} dev {}{}", prefix.text(), target, no_prefix_route ? " noprefixroute" : "");
    case ChangeKind::remove_route: return "- route " + route_text(prefix, table, metric, protocol, old_nexthops);
    case ChangeKind::link_down: return fmt::format("~ down {}", target);
    case ChangeKind::link_up: return fmt::format("~ up {}", target);
    case ChangeKind::enslave:
      return fmt::format("~ master {} {} -> {}", target, old_value.empty() ? "none" : old_value, value);
    case ChangeKind::set_mac: return fmt::format("~ mac {} {} -> {}", target, old_value, value);
    case ChangeKind::rename: return fmt::format("~ name {} -> {}", target, value);
    case ChangeKind::set_mtu: return fmt::format("~ mtu {} {} -> {}", target, old_value, value);
    case ChangeKind::add_address:
      return fmt::format("+ addr {} dev {}{}", prefix.text(), target, no_prefix_route ? " noprefixroute" : "");
    case ChangeKind::add_rule:
      return fmt::format("+ rule from {} table {} priority {}", prefix.text(), table_text(table), priority);
    case ChangeKind::set_route:
      if (old_nexthops.empty()) return fmt::format("+ route {} table {} {}", prefix.text(), table_text(table), hops_text(nexthops));
      return fmt::format("~ route {} table {} {} -> {}", prefix.text(), table_text(table), hops_text(old_nexthops),
                         hops_text(nexthops));
    case ChangeKind::set_neighbour:
      if (old_mac.empty()) return fmt::format("+ neigh {} dev {} lladdr {} permanent", prefix.address, target, mac);
      return fmt::format("~ neigh {} dev {} lladdr {} -> {} permanent", prefix.address, target, old_mac, mac);
  }
  return o;
}

namespace {

// The interface a dotted per-interface sysctl names ("net.ipv4.conf.bond1.arp_announce"
// -> "bond1"), or empty. conf and neigh are the per-device trees.
std::string sysctl_device(const std::string& key) {
  for (const char* tree : {"net.ipv4.conf.", "net.ipv6.conf.", "net.ipv4.neigh.", "net.ipv6.neigh."}) {
    const std::string t(tree);
    if (key.rfind(t, 0) != 0) continue;
    const auto dot = key.find('.', t.size());
    if (dot != std::string::npos) return key.substr(t.size(), dot - t.size());
  }
  return {};
}

const Bond* bond_named(const HostNetwork& p, const std::string& name) {
  for (const auto& b : p.bonds) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// Per-interface sysctls of a bond, moved to every member with --no-bond.
std::vector<Sysctl> effective_sysctls(const HostNetwork& p, const ApplyOptions& o, bool per_device) {
  std::vector<Sysctl> out;
  for (const auto& s : p.sysctls) {
    const std::string dev = sysctl_device(s.key);
    const Bond* bond = dev.empty() ? nullptr : bond_named(p, dev);
    if ((bond != nullptr) != per_device) continue;
    if (bond == nullptr || !o.no_bond) {
      out.push_back(s);
      continue;
    }
    const std::string tree = s.key.substr(0, s.key.find(dev));  // "net.ipv4.conf."
    const std::string leaf = s.key.substr(tree.size() + dev.size());  // ".arp_announce"
    for (const auto& m : bond->members) out.push_back({tree + m.port + leaf, s.value});
  }
  // Without a bond nothing drops a member that lost its carrier from the
  // hash: the routes must skip it themselves, as a bond would.
  if (o.no_bond && per_device) {
    for (const auto& b : p.bonds) {
      for (const auto& m : b.members) {
        for (const char* family : {"ipv4", "ipv6"}) {
          out.push_back({fmt::format("net.{}.conf.{}.ignore_routes_with_linkdown", family, m.port), "1"});
        }
      }
    }
  }
  return out;
}

Change sysctl_change(const Sysctl& s, const HostState& state) {
  Change c;
  c.kind = ChangeKind::sysctl;
  c.target = s.key;
  c.value = s.value;
  if (auto it = state.sysctls.find(s.key); it != state.sysctls.end()) {
    c.op = '~';
    c.old_value = it->second;
  }
  return c;
}

bool has_address(const HostState& s, const std::string& ifname, const IpPrefix& p) {
  return std::any_of(s.addresses.begin(), s.addresses.end(),
                     [&](const AddressState& a) { return a.ifname == ifname && a.prefix == p; });
}

}  // namespace

std::vector<std::string> sysctl_keys(const HostNetwork& profile, const ApplyOptions& options) {
  std::vector<std::string> keys;
  for (bool per_device : {false, true}) {
    for (const auto& s : effective_sysctls(profile, options, per_device)) keys.push_back(s.key);
  }
  return keys;
}

namespace {

bool same_bond(const Bond& b, const BondState& s) {
  if (s.mode != to_string(b.mode) || s.xmit_hash_policy != hash_policy(b)) return false;
  if (!b.arp_monitor) return s.arp_interval_ms == 0 && s.miimon_ms == b.miimon_ms;
  std::vector<std::string> want = b.arp_targets, have = s.arp_targets;
  std::sort(want.begin(), want.end());
  std::sort(have.begin(), have.end());
  return s.arp_interval_ms == b.arp_interval_ms && want == have;
}

// The profile's routes as they would leave each member (--no-bond), to tell
// them from routes of the host's own on the same port.
bool profile_route(const HostNetwork& p, const RouteState& r) {
  for (const auto& b : p.bonds) {
    for (const auto& pr : b.routes) {
      if (pr.family == r.family && pr.to == r.to && pr.table == r.table &&
          kernel_metric(pr.family, 0) == r.metric && r.protocol == kStaticProtocol) {
        return true;
      }
    }
  }
  return false;
}

// The step that removes route `r`, keeping all of it for the undo.
Change removal_of(const RouteState& r) {
  Change c;
  c.kind = ChangeKind::remove_route;
  c.op = '-';
  c.prefix = r.to;
  c.table = r.table;
  c.metric = r.metric;
  c.protocol = r.protocol;
  c.old_nexthops = r.nexthops;
  return c;
}

// What stands in the way of the profile, and the steps that would clear
// it; the steps go first in the plan, routes before addresses (so rollback
// puts the addresses back before the routes that need them).
void find_conflicts(const HostNetwork& p, const HostState& state, const ApplyOptions& o, ChangePlan& plan,
                    std::set<std::string>& released) {
  std::vector<Change> routes, addresses, masters;
  std::set<size_t> routes_taken;
  for (const auto& b : p.bonds) {
    for (const auto& m : b.members) {
      const LinkState* port = state.link(m.port);
      if (port == nullptr) continue;  // refused below, with the reason
      for (const auto& a : state.addresses) {
        if (a.ifname != m.port || a.link_scope) continue;
        if (o.no_bond && ((b.ipv4 && a.prefix == *b.ipv4) || (b.ipv6 && a.prefix == *b.ipv6))) continue;
        plan.conflicts.push_back({fmt::format("member port {} of {} carries {}, which the profile does not give it",
                                              m.port, b.name, a.prefix.text())});
        Change c;
        c.kind = ChangeKind::remove_address;
        c.op = '-';
        c.target = m.port;
        c.prefix = a.prefix;
        c.no_prefix_route = a.no_prefix_route;
        addresses.push_back(c);
      }
      for (size_t i = 0; i < state.routes.size(); ++i) {
        const RouteState& r = state.routes[i];
        if (r.protocol == kKernelProtocol || routes_taken.count(i) || profile_route(p, r)) continue;
        if (std::none_of(r.nexthops.begin(), r.nexthops.end(), [&](const NextHopState& h) { return h.ifname == m.port; })) {
          continue;
        }
        routes_taken.insert(i);
        plan.conflicts.push_back({fmt::format("member port {} of {} carries route {}, which the profile does not give it",
                                              m.port, b.name, route_text(r.to, r.table, r.metric, r.protocol, r.nexthops))});
        routes.push_back(removal_of(r));
      }
      if (!port->master.empty() && (o.no_bond || port->master != b.name)) {
        plan.conflicts.push_back({fmt::format("member port {} of {} is enslaved to {}", m.port, b.name, port->master)});
        Change c;
        c.kind = ChangeKind::release;
        c.op = '~';
        c.target = m.port;
        c.old_value = port->master;
        masters.push_back(c);
        released.insert(m.port);
      }
    }
    if (o.no_bond) continue;
    if (const LinkState* existing = state.link(b.name); existing != nullptr && existing->bond && !same_bond(b, *existing->bond)) {
      Change c;
      c.kind = ChangeKind::bond_options;
      c.op = '~';
      c.target = b.name;
      c.bond = &b;
      c.old_bond = *existing->bond;
      plan.conflicts.push_back({fmt::format("{} exists with other options: {}", b.name, c.text().substr(2))});
      masters.push_back(c);
    }
  }
  // A default route where the profile puts one: the host's own way out.
  for (const auto& b : p.bonds) {
    for (const auto& pr : b.routes) {
      if (pr.to.length != 0) continue;
      for (size_t i = 0; i < state.routes.size(); ++i) {
        const RouteState& r = state.routes[i];
        if (r.family != pr.family || r.table != pr.table || r.to.length != 0 || routes_taken.count(i)) continue;
        if (r.protocol == kStaticProtocol && r.metric == kernel_metric(pr.family, 0)) continue;  // the profile's own, or replaced as such
        routes_taken.insert(i);
        plan.conflicts.push_back({fmt::format("the profile puts a default route in table {}, and the host has one: {}",
                                              table_text(r.table), route_text(r.to, r.table, r.metric, r.protocol, r.nexthops)),
                                  true});
        routes.push_back(removal_of(r));
      }
    }
  }
  for (auto* list : {&routes, &addresses, &masters}) plan.changes.insert(plan.changes.end(), list->begin(), list->end());
}

}  // namespace

namespace {

// The link that is member `m` under another name, by its MAC first (the
// names on a host can change with a kernel; the MAC of a port cannot), then
// by the name the NIC map saw. Null: none, or `m` is there by its own name.
const LinkState* renamed_member(const BondMember& m, const HostState& state) {
  if (state.link(m.port) != nullptr) return nullptr;
  if (!m.match) return nullptr;
  if (m.match->mac) {
    const std::string mac = hpn::to_string(*m.match->mac);
    for (const auto& l : state.links) {
      if (l.mac == mac && l.kind != "bond" && l.master.empty()) return &l;
    }
  }
  if (!m.match->ifname.empty()) return state.link(m.match->ifname);
  return nullptr;
}

// Steps -1: the renames, and the state as it will be after them.
std::vector<Change> plan_renames(const HostNetwork& p, const HostState& state, HostState& after) {
  std::vector<Change> out;
  std::map<std::string, std::string> to;  // old name -> planned name
  for (const auto& b : p.bonds) {
    for (const auto& m : b.members) {
      const LinkState* l = renamed_member(m, state);
      if (l == nullptr || to.count(l->name)) continue;
      to[l->name] = m.port;
      if (l->up) {
        Change down;
        down.kind = ChangeKind::link_down;
        down.op = '~';
        down.target = l->name;
        out.push_back(down);
      }
      Change c;
      c.kind = ChangeKind::rename;
      c.op = '~';
      c.target = l->name;
      c.value = m.port;
      out.push_back(c);
    }
  }
  if (out.empty()) return out;
  after = state;
  auto rename = [&](std::string& name) {
    if (auto it = to.find(name); it != to.end()) name = it->second;
  };
  for (auto& l : after.links) {
    if (to.count(l.name)) l.up = false;
    rename(l.name);
  }
  for (auto& a : after.addresses) rename(a.ifname);
  for (auto& r : after.routes) {
    for (auto& h : r.nexthops) rename(h.ifname);
  }
  for (auto& n : after.neighbours) rename(n.ifname);
  return out;
}

Result<ChangePlan> plan_named(const HostNetwork& p, const HostState& state, const ApplyOptions& o);

}  // namespace

Result<ChangePlan> plan_changes(const HostNetwork& p, const HostState& state, const ApplyOptions& o) {
  HostState after;
  std::vector<Change> renames = plan_renames(p, state, after);
  auto plan = plan_named(p, renames.empty() ? state : after, o);
  if (!plan) return plan;
  plan->changes.insert(plan->changes.begin(), renames.begin(), renames.end());
  return plan;
}

namespace {

Result<ChangePlan> plan_named(const HostNetwork& p, const HostState& state, const ApplyOptions& o) {
  ChangePlan plan;
  auto& out = plan.changes;
  std::set<std::string> released;  // members a removal frees of another master
  find_conflicts(p, state, o, plan, released);
  for (const auto& s : effective_sysctls(p, o, false)) {
    if (auto it = state.sysctls.find(s.key); it == state.sysctls.end() || it->second != s.value) out.push_back(sysctl_change(s, state));
  }

  // The links that carry each bond's configuration: the bond, or its members.
  struct Carrier {
    const Bond* bond;
    std::string ifname;
    bool created;  // made by this plan (MAC and MTU already set)
  };
  std::vector<Carrier> carriers;
  for (const auto& b : p.bonds) {
    for (const auto& m : b.members) {
      if (state.link(m.port) == nullptr) {
        return Error{fmt::format("{}: member port {} of {} does not exist here", p.source, m.port, b.name)};
      }
    }
    if (o.no_bond) {
      for (const auto& m : b.members) carriers.push_back({&b, m.port, false});
      continue;
    }
    const LinkState* existing = state.link(b.name);
    if (existing != nullptr && existing->kind != "bond") {
      return Error{fmt::format("{}: {} exists here and is not a bond (kind '{}')", p.source, b.name, existing->kind)};
    }
    if (existing == nullptr) {
      Change c;
      c.kind = ChangeKind::create_bond;
      c.target = b.name;
      c.bond = &b;
      out.push_back(c);
    }
    carriers.push_back({&b, b.name, existing == nullptr});
    for (const auto& m : b.members) {
      const LinkState* port = state.link(m.port);
      const std::string master = released.count(m.port) ? std::string() : port->master;
      if (master == b.name) continue;
      if (port->up) {
        Change down;
        down.kind = ChangeKind::link_down;
        down.op = '~';
        down.target = m.port;
        out.push_back(down);
      }
      Change c;
      c.kind = ChangeKind::enslave;
      c.op = '~';
      c.target = m.port;
      c.value = b.name;
      c.old_value = master;
      out.push_back(c);
    }
  }

  for (const auto& c : carriers) {
    if (c.created) continue;
    const LinkState* link = state.link(c.ifname);
    if (link->mac != hpn::to_string(c.bond->mac)) {
      Change m;
      m.kind = ChangeKind::set_mac;
      m.op = '~';
      m.target = c.ifname;
      m.value = hpn::to_string(c.bond->mac);
      m.old_value = link->mac;
      out.push_back(m);
    }
    if (link->mtu != c.bond->mtu) {
      Change m;
      m.kind = ChangeKind::set_mtu;
      m.op = '~';
      m.target = c.ifname;
      m.value = std::to_string(c.bond->mtu);
      m.old_value = std::to_string(link->mtu);
      out.push_back(m);
    }
  }

  for (const auto& s : effective_sysctls(p, o, true)) {
    if (auto it = state.sysctls.find(s.key); it == state.sysctls.end() || it->second != s.value) out.push_back(sysctl_change(s, state));
  }

  // The links that carry a bond's addresses: the bond, or every member.
  for (const auto& b : p.bonds) {
    std::vector<std::string> links;
    if (o.no_bond) {
      for (const auto& m : b.members) links.push_back(m.port);
    } else {
      links.push_back(b.name);
    }
    for (const auto& link : links) {
      for (const auto* a : {&b.ipv4, &b.ipv6}) {
        if (!*a || has_address(state, link, **a)) continue;
        Change c;
        c.kind = ChangeKind::add_address;
        c.target = link;
        c.prefix = **a;
        c.no_prefix_route = o.no_bond;
        out.push_back(c);
      }
    }
  }

  for (const auto& c : carriers) {
    const LinkState* link = state.link(c.ifname);
    // A member enslaved here comes up with its bond; a bond made here starts down.
    if (link != nullptr && link->up) continue;
    Change up;
    up.kind = ChangeKind::link_up;
    up.op = '~';
    up.target = c.ifname;
    out.push_back(up);
  }

  for (const auto& b : p.bonds) {
    for (const auto& r : b.rules) {
      const bool present = std::any_of(state.rules.begin(), state.rules.end(), [&](const RuleState& s) {
        return s.family == r.family && s.from == r.from && s.table == r.table && s.priority == r.priority;
      });
      if (present) continue;
      Change c;
      c.kind = ChangeKind::add_rule;
      c.prefix = r.from;
      c.table = r.table;
      c.priority = r.priority;
      out.push_back(c);
    }
  }

  for (const auto& b : p.bonds) {
    for (const auto& r : b.routes) {
      std::vector<NextHopState> hops;
      for (const auto& via : r.via) {
        if (!o.no_bond) {
          hops.push_back({via, b.name, false});
          continue;
        }
        auto m = std::find_if(b.members.begin(), b.members.end(), [&](const BondMember& m) {
          return (r.family == 4 ? m.gateway_ipv4 : m.gateway_ipv6) == via;
        });
        if (m == b.members.end()) {
          return Error{fmt::format("{}: route {} of {} goes via {}, the gateway of no member port: --no-bond cannot "
                                   "tell which port it leaves by",
                                   p.source, r.to.text(), b.name, via)};
        }
        hops.push_back({via, m->port, true});
      }
      std::sort(hops.begin(), hops.end(), [](const auto& a, const auto& z) {
        return std::tie(a.gateway, a.ifname) < std::tie(z.gateway, z.ifname);
      });
      // A route is its table, prefix and metric (as the kernel keys it); the
      // profile's are static at the default metric.
      const int metric = kernel_metric(r.family, 0);
      auto existing = std::find_if(state.routes.begin(), state.routes.end(), [&](const RouteState& s) {
        return s.family == r.family && s.to == r.to && s.table == r.table && s.metric == metric;
      });
      const bool ours = existing != state.routes.end() && existing->protocol == kStaticProtocol;
      if (ours && existing->nexthops == hops) continue;
      if (existing != state.routes.end() && !ours && r.to.length != 0) {
        plan.conflicts.push_back({fmt::format("route {} of the profile would replace the host's {}", r.to.text(),
                                              route_text(existing->to, existing->table, existing->metric,
                                                         existing->protocol, existing->nexthops))});
      }
      Change c;
      c.kind = ChangeKind::set_route;
      c.prefix = r.to;
      c.table = r.table;
      c.metric = metric;
      c.nexthops = hops;
      // A default route of another protocol was removed above (conflict).
      if (existing != state.routes.end() && (ours || r.to.length != 0)) {
        c.op = '~';
        c.old_nexthops = existing->nexthops;
        c.protocol = existing->protocol;
      }
      out.push_back(c);
    }
  }

  for (const auto& b : p.bonds) {
    for (const auto& m : b.members) {
      if (!m.gateway_mac) continue;
      const std::string dev = o.no_bond ? m.port : b.name;
      for (const auto& [family, gateway] : {std::pair{4, m.gateway_ipv4}, std::pair{6, m.gateway_ipv6}}) {
        if (gateway.empty()) continue;
        const std::string& gw = gateway;  // clang 14 lambdas cannot capture a structured binding
        auto existing = std::find_if(state.neighbours.begin(), state.neighbours.end(), [&](const NeighbourState& n) {
          return n.ifname == dev && n.address == gw;
        });
        const std::string mac = hpn::to_string(*m.gateway_mac);
        if (existing != state.neighbours.end() && existing->permanent && existing->mac == mac) continue;
        Change c;
        c.kind = ChangeKind::set_neighbour;
        c.target = dev;
        c.prefix = {family, gw, family == 4 ? 32 : 128};
        c.mac = mac;
        if (existing != state.neighbours.end() && existing->permanent) {
          c.op = '~';
          c.old_mac = existing->mac;
        }
        out.push_back(c);
      }
    }
  }
  return plan;
}

}  // namespace

std::vector<std::string> identity_problems(const HostNetwork& p, const HostState& state, const std::string& identity,
                                           bool netns) {
  std::vector<std::string> problems;
  const bool named = identity == p.host ||
                     (netns && identity.size() > p.host.size() && identity.ends_with("-" + p.host));
  if (!named) {
    problems.push_back(netns ? fmt::format("the profile is for {}, and namespace {} is neither named {} nor "
                                           "'<prefix>-{}'",
                                           p.host, identity, p.host, p.host)
                             : fmt::format("the profile is for {}, and this host is {}", p.host, identity));
  }
  for (const auto& b : p.bonds) {
    for (const auto& m : b.members) {
      if (state.link(m.port) == nullptr && renamed_member(m, state) == nullptr) {
        problems.push_back(fmt::format("member port {} of {} does not exist here{}", m.port, b.name,
                                       !m.match ? "" : ", nor under the name or MAC its NIC map gives"));
      }
    }
  }
  // A bond MAC of hpnctl's scheme (blueprint/mac.h) with another node ID
  // means an earlier apply made this host another node.
  for (const auto& l : state.links) {
    Mac mac;
    std::uint32_t node = 0;
    int nic = 0;
    if (!parse_mac(l.mac, mac) || !decode_bond_mac(mac, node, nic)) continue;
    if (node != p.node_id) {
      problems.push_back(fmt::format("{} carries {}, an hpnctl MAC of node {}, not of this profile's node {}", l.name,
                                     l.mac, node, p.node_id));
    }
  }
  return problems;
}

ApplyOutcome apply_plan(const ChangePlan& plan, HostOps& ops, const std::function<bool()>& stop) {
  return apply_steps(plan.changes, ops, stop);
}

void render_plan(const ChangePlan& plan, std::ostream& out) {
  if (plan.changes.empty()) {
    out << "nothing to change\n";
    return;
  }
  for (const auto& c : plan.changes) out << c.text() << '\n';
}

nlohmann::ordered_json change_json(const Change& c) {
  nlohmann::ordered_json j;
  j["op"] = std::string(1, c.op);
  j["kind"] = to_string(c.kind);
  j["text"] = c.text();
  switch (c.kind) {
    case ChangeKind::sysctl:
      j["key"] = c.target;
      j["from"] = c.old_value.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.old_value);
      j["to"] = c.value;
      break;
    case ChangeKind::create_bond:
      j["dev"] = c.target;
      j["mode"] = std::string(to_string(c.bond->mode));
      j["mac"] = hpn::to_string(c.bond->mac);
      j["mtu"] = c.bond->mtu;
      break;
    case ChangeKind::enslave:
    case ChangeKind::set_mac:
    case ChangeKind::set_mtu:
    case ChangeKind::rename:
      j["dev"] = c.target;
      j["from"] = c.old_value.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.old_value);
      j["to"] = c.value;
      break;
    case ChangeKind::link_down:
    case ChangeKind::link_up:
      j["dev"] = c.target;
      break;
    case ChangeKind::release:
      j["dev"] = c.target;
      j["from"] = c.old_value;
      j["to"] = nullptr;
      break;
    case ChangeKind::bond_options:
      j["dev"] = c.target;
      j["from"] = {{"mode", c.old_bond.mode}, {"xmit_hash_policy", c.old_bond.xmit_hash_policy},
                   {"miimon", c.old_bond.miimon_ms}, {"arp_interval", c.old_bond.arp_interval_ms},
                   {"arp_ip_target", c.old_bond.arp_targets}};
      j["to"] = {{"mode", std::string(to_string(c.bond->mode))}, {"xmit_hash_policy", hash_policy(*c.bond)},
                 {"miimon", c.bond->arp_monitor ? 0 : c.bond->miimon_ms},
                 {"arp_interval", c.bond->arp_monitor ? c.bond->arp_interval_ms : 0},
                 {"arp_ip_target", c.bond->arp_monitor ? c.bond->arp_targets : std::vector<std::string>{}}};
      break;
    case ChangeKind::remove_address:
      j["dev"] = c.target;
      j["address"] = c.prefix.text();
      j["noprefixroute"] = c.no_prefix_route;
      break;
    case ChangeKind::remove_route: {
      j["to"] = c.prefix.text();
      j["table"] = c.table;
      j["metric"] = c.metric;
      j["protocol"] = protocol_name(c.protocol);
      auto a = nlohmann::ordered_json::array();
      for (const auto& h : c.old_nexthops) a.push_back({{"via", h.gateway}, {"dev", h.ifname}, {"onlink", h.onlink}});
      j["nexthops"] = a;
      break;
    }
    case ChangeKind::add_address:
      j["dev"] = c.target;
      j["address"] = c.prefix.text();
      j["noprefixroute"] = c.no_prefix_route;
      break;
    case ChangeKind::add_rule:
      j["from"] = c.prefix.text();
      j["table"] = c.table;
      j["priority"] = c.priority;
      break;
    case ChangeKind::set_route: {
      j["to"] = c.prefix.text();
      j["table"] = c.table;
      j["metric"] = c.metric;
      auto hops = [](const std::vector<NextHopState>& v) {
        auto a = nlohmann::ordered_json::array();
        for (const auto& h : v) a.push_back({{"via", h.gateway}, {"dev", h.ifname}, {"onlink", h.onlink}});
        return a;
      };
      j["nexthops"] = hops(c.nexthops);
      j["old_nexthops"] = hops(c.old_nexthops);
      break;
    }
    case ChangeKind::set_neighbour:
      j["dev"] = c.target;
      j["address"] = c.prefix.address;
      j["lladdr"] = c.mac;
      j["old_lladdr"] = c.old_mac.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.old_mac);
      break;
  }
  return j;
}

}  // namespace hpn::host
