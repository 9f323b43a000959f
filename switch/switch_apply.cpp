#include "switch/switch_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace hpn::sw {

namespace {

// The IOAM node ID a kernel starts with (IOAM6_DEFAULT_ID, U32_MAX >> 8):
// no node ID given yet.
constexpr const char* kDefaultIoamId = "16777215";

// The same number written two ways ("0x0037" in the file, "55" read back)
// is the same setting.
bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *end_a = nullptr, *end_b = nullptr;
  const unsigned long long x = std::strtoull(a.c_str(), &end_a, 0), y = std::strtoull(b.c_str(), &end_b, 0);
  return !a.empty() && !b.empty() && *end_a == '\0' && *end_b == '\0' && x == y;
}

}  // namespace

const SwitchLink* SwitchState::link(const std::string& name) const {
  for (const auto& l : links) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

bool owned_protocol(int protocol, int agent_protocol) {
  constexpr int kKernel = 2, kZebra = 11, kBabel = 42, kFrrFirst = 186, kFrrLast = 199;
  return protocol == kKernel || protocol == kZebra || protocol == kBabel ||
         (protocol >= kFrrFirst && protocol <= kFrrLast) || (agent_protocol != 0 && protocol == agent_protocol);
}

const char* to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::add_ioam_namespace: return "ioam";
    case ChangeKind::sysctl: return "sysctl";
    case ChangeKind::set_mac: return "mac";
    case ChangeKind::set_mtu: return "mtu";
    case ChangeKind::add_address: return "addr";
    case ChangeKind::link_up: return "up";
    case ChangeKind::link_down: return "down";
  }
  return "?";
}

std::string Change::text() const {
  switch (kind) {
    case ChangeKind::add_ioam_namespace: return fmt::format("+ ioam namespace {}", value);
    case ChangeKind::sysctl: return fmt::format("~ sysctl {} {} -> {}", target, old_value, value);
    case ChangeKind::set_mac: return fmt::format("~ mac {} {} -> {}", target, old_value, value);
    case ChangeKind::set_mtu: return fmt::format("~ mtu {} {} -> {}", target, old_value, value);
    case ChangeKind::add_address: return fmt::format("+ addr {} dev {}", prefix.text(), target);
    case ChangeKind::link_up: return fmt::format("~ up {}", target);
    case ChangeKind::link_down: return fmt::format("~ down {}", target);
  }
  return "?";
}

std::vector<std::string> sysctl_keys(const SwitchSet& set) {
  std::vector<std::string> keys;
  for (const auto& s : set.sysctls) keys.push_back(s.key);
  if (std::find(keys.begin(), keys.end(), "net.ipv6.ioam6_id") == keys.end()) keys.push_back("net.ipv6.ioam6_id");
  return keys;
}

Result<ChangePlan> plan_changes(const SwitchSet& set, const SwitchState& state, int agent_protocol) {
  ChangePlan plan;
  // What the set does not own: refused, never removed.
  for (const auto& p : set.ports) {
    if (p.loopback()) continue;
    for (const auto& a : state.addresses) {
      if (a.ifname != p.ifname || a.link_scope) continue;
      if (std::find(p.addresses.begin(), p.addresses.end(), a.prefix) != p.addresses.end()) continue;
      plan.conflicts.push_back(fmt::format("fabric port {} carries {}, which the set does not give it", p.ifname, a.prefix.text()));
    }
    for (const auto& r : state.routes) {
      if (owned_protocol(r.protocol, agent_protocol)) continue;
      if (std::find(r.devices.begin(), r.devices.end(), p.ifname) == r.devices.end()) continue;
      plan.conflicts.push_back(fmt::format("fabric port {} carries route {} table {} protocol {}, which neither the set, "
                                           "FRR nor the host-route agent makes",
                                           p.ifname, r.to.text(), r.table, r.protocol));
    }
  }

  for (const std::uint16_t id : set.ioam_namespaces) {
    auto it = std::find_if(state.ioam_namespaces.begin(), state.ioam_namespaces.end(),
                           [&](const SwitchIoamNamespace& n) { return n.id == id; });
    if (it == state.ioam_namespaces.end()) {
      if (!state.ioam) return Error{fmt::format("this kernel has no IPv6 IOAM (the set needs IOAM namespace {})", id)};
      plan.changes.push_back({ChangeKind::add_ioam_namespace, '+', "namespace", std::to_string(id), {}, {}});
      continue;
    }
    // The set makes a bare namespace: data or a schema is someone else's.
    std::vector<std::string> foreign;
    if (it->data) foreign.push_back(fmt::format("data {:#x}", *it->data));
    if (it->data_wide) foreign.push_back(fmt::format("wide data {:#x}", *it->data_wide));
    if (it->schema) foreign.push_back(fmt::format("schema {}", *it->schema));
    if (!foreign.empty()) {
      plan.conflicts.push_back(fmt::format("IOAM namespace {} carries {}, which the set does not give it", id,
                                           fmt::join(foreign, " and ")));
    }
  }
  for (const auto& s : set.sysctls) {
    auto it = state.sysctls.find(s.key);
    if (it == state.sysctls.end()) {
      if (s.optional) continue;
      return Error{fmt::format("this kernel has no sysctl {} (the set needs it = {})", s.key, s.value)};
    }
    if (same_value(it->second, s.value)) continue;
    plan.changes.push_back({ChangeKind::sysctl, '~', s.key, s.value, it->second, {}});
  }
  std::vector<Change> macs, mtus, addresses, states;
  for (const auto& p : set.ports) {
    const SwitchLink* link = state.link(p.ifname);
    if (link == nullptr) return Error{fmt::format("no interface {} here", p.ifname)};
    if (!p.mac.empty() && link->mac != p.mac) macs.push_back({ChangeKind::set_mac, '~', p.ifname, p.mac, link->mac, {}});
    if (p.mtu != 0 && link->mtu != p.mtu) {
      mtus.push_back({ChangeKind::set_mtu, '~', p.ifname, std::to_string(p.mtu), std::to_string(link->mtu), {}});
    }
    for (const auto& a : p.addresses) {
      const bool has = std::any_of(state.addresses.begin(), state.addresses.end(),
                                   [&](const SwitchAddress& s) { return s.ifname == p.ifname && s.prefix == a; });
      if (!has) addresses.push_back({ChangeKind::add_address, '+', p.ifname, {}, {}, a});
    }
    if (p.up != link->up) states.push_back({p.up ? ChangeKind::link_up : ChangeKind::link_down, '~', p.ifname, {}, {}, {}});
  }
  for (auto* list : {&macs, &mtus, &addresses, &states}) plan.changes.insert(plan.changes.end(), list->begin(), list->end());
  return plan;
}

std::vector<std::string> identity_problems(const SwitchSet& set, const SwitchState& state, const std::string& identity,
                                           bool netns) {
  std::vector<std::string> problems;
  const bool named = identity == set.name || (netns && identity.size() > set.name.size() && identity.ends_with("-" + set.name));
  if (!named) {
    problems.push_back(netns ? fmt::format("the set is for {}, and namespace {} is neither named {} nor '<prefix>-{}'",
                                           set.name, identity, set.name, set.name)
                             : fmt::format("the set is for {}, and this switch is {}", set.name, identity));
  }
  for (const auto& p : set.ports) {
    if (state.link(p.ifname) == nullptr) problems.push_back(fmt::format("port {} of the set does not exist here", p.ifname));
  }
  if (auto it = state.sysctls.find("net.ipv6.ioam6_id");
      it != state.sysctls.end() && it->second != kDefaultIoamId && !same_value(it->second, std::to_string(set.node_id))) {
    problems.push_back(fmt::format("this switch's IOAM node ID is {}, and the set's is {}", it->second, set.node_id));
  }
  return problems;
}

ApplyOutcome apply_plan(const ChangePlan& plan, SwitchOps& ops, const std::function<bool()>& stop) {
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
      j["from"] = c.old_value;
      j["to"] = c.value;
      break;
    case ChangeKind::set_mac:
    case ChangeKind::set_mtu:
      j["dev"] = c.target;
      j["from"] = c.old_value;
      j["to"] = c.value;
      break;
    case ChangeKind::add_address:
      j["dev"] = c.target;
      j["address"] = c.prefix.text();
      break;
    case ChangeKind::link_up:
    case ChangeKind::link_down:
      j["dev"] = c.target;
      break;
    case ChangeKind::add_ioam_namespace:
      j["namespace"] = std::stoi(c.value);
      break;
  }
  return j;
}

}  // namespace hpn::sw
