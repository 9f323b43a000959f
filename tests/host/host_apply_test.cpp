// host apply's plan (pure: profile + state -> changes) and its runner, with
// an in-memory host that applies and undoes changes and can be told to fail.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "host/host_apply.h"
#include "host_fixture.h"
#include "support/schema.h"

namespace {

using namespace hpn;
using namespace hpn::host;
using hpn::Error;
using hpn::Status;

HostNetwork lab_profile() {
  auto p = parse_apply_profile(hpn::test::lab_profile_text(), "h0.json");
  REQUIRE(p.ok());
  return p.value();
}

HostNetwork profile_from(const std::string& text) {
  auto p = parse_apply_profile(text, "h0.json");
  REQUIRE(p.ok());
  return p.value();
}

// A host as the lab builds one: four veth ports, down, MTU 1500, sysctls at
// the kernel's defaults.
HostState fresh_host(const HostNetwork& p, const ApplyOptions& o) {
  HostState s;
  s.links.push_back({"lo", 1, "", "00:00:00:00:00:00", 65536, true, ""});
  int index = 2;
  for (const char* port : {"nic1p1", "nic1p2", "nic2p1", "nic2p2"}) {
    s.links.push_back({port, index, "veth", fmt::format("6e:54:aa:e5:8d:{:02x}", index), 1500, false, ""});
    ++index;
  }
  for (const auto& key : sysctl_keys(p, o)) {
    if (key.find(".bond") != std::string::npos) continue;  // no bond yet: no key
    s.sysctls[key] = key.find("accept_ra") != std::string::npos ? "1" : "0";
  }
  return s;
}

std::string dump(const HostState& s) {
  std::ostringstream o;
  for (const auto& l : s.links) {
    o << "link " << l.name << ' ' << l.kind << ' ' << l.mac << ' ' << l.mtu << ' ' << l.up << ' ' << l.master;
    if (l.bond) o << " bond " << l.bond->mode << ' ' << l.bond->xmit_hash_policy << ' ' << l.bond->miimon_ms << ' ' << l.bond->arp_interval_ms;
    o << '\n';
  }
  for (const auto& a : s.addresses) o << "addr " << a.ifname << ' ' << a.prefix.text() << ' ' << a.no_prefix_route << '\n';
  for (const auto& r : s.rules) o << "rule " << r.from.text() << ' ' << r.table << ' ' << r.priority << '\n';
  for (const auto& r : s.routes) {
    o << "route " << r.to.text() << ' ' << r.table << " metric " << r.metric << " proto " << r.protocol;
    for (const auto& h : r.nexthops) o << ' ' << h.gateway << '@' << h.ifname << (h.onlink ? "!" : "");
    o << '\n';
  }
  for (const auto& n : s.neighbours) o << "neigh " << n.ifname << ' ' << n.address << ' ' << n.mac << ' ' << n.permanent << '\n';
  for (const auto& [k, v] : s.sysctls) o << "sysctl " << k << '=' << v << '\n';
  // As a set: the kernel's lists have no order a removal and re-add keep.
  std::istringstream in(o.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + '\n';
  return out;
}

// Applies changes to a HostState the way the kernel would, records every
// call, and fails apply (or undo) at a chosen step.
class FakeHost final : public HostOps {
 public:
  explicit FakeHost(HostState s) : state(std::move(s)) {}
  HostState state;
  std::vector<std::string> calls;
  std::optional<size_t> fail_apply_at, fail_undo_at;

  Status apply(const Change& c) override {
    const size_t step = applied_++;
    calls.push_back("apply " + c.text());
    if (fail_apply_at && step == *fail_apply_at) return Error{"injected failure"};
    change(c, true);
    return {};
  }
  Status undo(const Change& c) override {
    calls.push_back("undo " + c.text());
    const size_t step = index_of(c);
    if (fail_undo_at && step == *fail_undo_at) return Error{"injected undo failure"};
    change(c, false);
    return {};
  }
  const ChangePlan* plan = nullptr;

 private:
  size_t applied_ = 0;
  size_t index_of(const Change& c) const { return static_cast<size_t>(&c - plan->changes.data()); }
  LinkState& link(const std::string& name) {
    for (auto& l : state.links) {
      if (l.name == name) return l;
    }
    FAIL("no link " << name);
    throw;
  }
  void change(const Change& c, bool forward) {
    switch (c.kind) {
      case ChangeKind::sysctl:
        if (forward) state.sysctls[c.target] = c.value;
        else if (c.old_value.empty()) state.sysctls.erase(c.target);
        else state.sysctls[c.target] = c.old_value;
        break;
      case ChangeKind::create_bond:
        if (forward) {
          state.links.push_back({c.target, 100, "bond", hpn::to_string(c.bond->mac), c.bond->mtu, false, ""});
        } else {
          std::erase_if(state.links, [&](const LinkState& l) { return l.name == c.target; });
        }
        break;
      case ChangeKind::link_down: link(c.target).up = !forward; break;
      case ChangeKind::link_up: link(c.target).up = forward; break;
      case ChangeKind::enslave: link(c.target).master = forward ? c.value : c.old_value; break;
      case ChangeKind::set_mac: link(c.target).mac = forward ? c.value : c.old_value; break;
      case ChangeKind::rename: link(forward ? c.target : c.value).name = forward ? c.value : c.target; break;
      case ChangeKind::set_mtu: link(c.target).mtu = std::stoi(forward ? c.value : c.old_value); break;
      case ChangeKind::add_address:
        if (forward) state.addresses.push_back({c.target, c.prefix});
        else std::erase_if(state.addresses, [&](const AddressState& a) { return a.ifname == c.target && a.prefix == c.prefix; });
        break;
      case ChangeKind::add_rule:
        if (forward) state.rules.push_back({c.prefix.family, c.prefix, c.table, c.priority});
        else std::erase_if(state.rules, [&](const RuleState& r) { return r.from == c.prefix && r.table == c.table; });
        break;
      case ChangeKind::set_route: {
        std::erase_if(state.routes, [&](const RouteState& r) { return r.to == c.prefix && r.table == c.table && r.metric == c.metric; });
        const auto& hops = forward ? c.nexthops : c.old_nexthops;
        if (!hops.empty()) state.routes.push_back({c.prefix.family, c.prefix, c.table, forward ? 4 : c.protocol, c.metric, hops});
        break;
      }
      case ChangeKind::remove_route:
        if (forward) {
          std::erase_if(state.routes, [&](const RouteState& r) { return r.to == c.prefix && r.table == c.table && r.metric == c.metric; });
        } else {
          state.routes.push_back({c.prefix.family, c.prefix, c.table, c.protocol, c.metric, c.old_nexthops});
        }
        break;
      case ChangeKind::remove_address:
        if (!forward) state.addresses.push_back({c.target, c.prefix, false, c.no_prefix_route});
        else std::erase_if(state.addresses, [&](const AddressState& a) { return a.ifname == c.target && a.prefix == c.prefix; });
        break;
      case ChangeKind::release: link(c.target).master = forward ? "" : c.old_value; break;
      case ChangeKind::bond_options: {
        auto& l = link(c.target);
        if (!forward) {
          l.bond = c.old_bond;
          break;
        }
        BondState b;
        b.mode = c.bond->mode == BondMode::balance_xor ? "balance-xor" : "802.3ad";
        b.xmit_hash_policy = c.bond->layer34 ? "layer3+4" : "layer2";
        b.arp_interval_ms = c.bond->arp_monitor ? c.bond->arp_interval_ms : 0;
        b.arp_targets = c.bond->arp_monitor ? c.bond->arp_targets : std::vector<std::string>{};
        b.miimon_ms = c.bond->arp_monitor ? 0 : c.bond->miimon_ms;
        l.bond = b;
        break;
      }
      case ChangeKind::set_neighbour:
        std::erase_if(state.neighbours, [&](const NeighbourState& n) { return n.ifname == c.target && n.address == c.prefix.address; });
        if (forward || !c.old_mac.empty()) {
          state.neighbours.push_back({c.target, c.prefix.family, c.prefix.address, forward ? c.mac : c.old_mac, true});
        }
        break;
    }
  }
};

std::vector<std::string> texts(const ChangePlan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.changes) out.push_back(c.text());
  return out;
}

}  // namespace

TEST_CASE("host apply plan: a fresh host gets sysctls, bonds, members, addresses, links, rules, routes in that order", "[host]") {
  const auto profile = lab_profile();
  const ApplyOptions bonded;
  auto plan = plan_changes(profile, fresh_host(profile, bonded), bonded);
  REQUIRE(plan.ok());
  const auto t = texts(plan.value());
  REQUIRE(t.size() == 47);
  CHECK(t[0] == "~ sysctl net.ipv4.fib_multipath_hash_policy 0 -> 1");
  CHECK(t[3] ==
        "+ bond bond1 mode balance-xor xmit_hash_policy layer3+4 arp_interval 100 arp_ip_target 10.0.0.1,10.0.0.2 "
        "arp_validate all mac 02:4e:10:00:00:01 mtu 4200");
  CHECK(t[4] == "~ master nic1p1 none -> bond1");
  CHECK(t[5] == "~ master nic1p2 none -> bond1");
  CHECK(t[9] == "+ sysctl net.ipv4.conf.bond1.arp_announce = 2");
  CHECK(t[21] == "+ addr 10.0.0.16/27 dev bond1");
  CHECK(t[22] == "+ addr fd48:504e::10/64 dev bond1");
  CHECK(t[25] == "~ up bond1");
  CHECK(t[27] == "+ rule from 10.0.0.16/32 table 1001 priority 1001");
  CHECK(t[31] == "+ route 10.0.0.0/12 table 1001 nexthop via 10.0.0.1 dev bond1 nexthop via 10.0.0.2 dev bond1");
  // Last, each gateway's neighbour pinned to the MAC the profile gives
  // (addressing.gateway_mac): 2 bonds x 2 gateways x IPv4 and IPv6.
  CHECK(t[39] == "+ neigh 10.0.0.1 dev bond1 lladdr 02:48:50:4e:00:01 permanent");
  CHECK(t[46] == "+ neigh fd48:504e:0:1::2 dev bond2 lladdr 02:48:50:4e:00:01 permanent");
  // Steps never go back to an earlier group (the order of host_apply.h).
  auto group = [](const Change& c) {
    switch (c.kind) {
      case ChangeKind::remove_route:
      case ChangeKind::remove_address:
      case ChangeKind::release:
      case ChangeKind::bond_options: return 0;
      case ChangeKind::sysctl: return c.target.find(".conf.") == std::string::npos ? 1 : 4;
      case ChangeKind::create_bond:
      case ChangeKind::link_down:
      case ChangeKind::enslave: return 2;
      case ChangeKind::set_mac:
      case ChangeKind::set_mtu: return 3;
      case ChangeKind::add_address: return 5;
      case ChangeKind::link_up: return 6;
      case ChangeKind::add_rule: return 7;
      case ChangeKind::set_route: return 8;
      case ChangeKind::set_neighbour: return 9;
      case ChangeKind::rename: return -1;
    }
    return 0;
  };
  for (size_t i = 1; i < plan->changes.size(); ++i) {
    INFO(plan->changes[i].text());
    CHECK(group(plan->changes[i - 1]) <= group(plan->changes[i]));
  }
}

TEST_CASE("host apply plan: a member that is up is taken down before it is enslaved", "[host]") {
  const auto profile = lab_profile();
  auto state = fresh_host(profile, {});
  state.links[1].up = true;  // nic1p1
  auto plan = plan_changes(profile, state, {});
  REQUIRE(plan.ok());
  const auto t = texts(plan.value());
  auto down = std::find(t.begin(), t.end(), "~ down nic1p1");
  auto master = std::find(t.begin(), t.end(), "~ master nic1p1 none -> bond1");
  REQUIRE(down != t.end());
  CHECK(master == down + 1);
  CHECK(std::count_if(t.begin(), t.end(), [](const std::string& s) { return s.rfind("~ down", 0) == 0; }) == 1);
}

TEST_CASE("host apply plan: once applied, the same profile plans nothing (idempotent)", "[host]") {
  const auto profile = lab_profile();
  for (bool no_bond : {false, true}) {
    INFO("no_bond " << no_bond);
    ApplyOptions o;
    o.no_bond = no_bond;
    auto plan = plan_changes(profile, fresh_host(profile, o), o);
    REQUIRE(plan.ok());
    FakeHost host(fresh_host(profile, o));
    host.plan = &plan.value();
    auto outcome = apply_plan(plan.value(), host);
    REQUIRE(outcome.ok());
    CHECK(outcome.applied == plan->changes.size());
    auto again = plan_changes(profile, host.state, o);
    REQUIRE(again.ok());
    CHECK(texts(again.value()).empty());
    std::ostringstream out;
    render_plan(again.value(), out);
    CHECK(out.str() == "nothing to change\n");
  }
}

TEST_CASE("host apply plan: --no-bond puts MAC, MTU, sysctls and addresses on every member, next hops onlink", "[host]") {
  const auto profile = lab_profile();
  ApplyOptions o;
  o.no_bond = true;
  auto plan = plan_changes(profile, fresh_host(profile, o), o);
  REQUIRE(plan.ok());
  const auto t = texts(plan.value());
  for (const char* line : {"~ mac nic1p2 6e:54:aa:e5:8d:03 -> 02:4e:10:00:00:01", "~ mtu nic1p2 1500 -> 4200",
                           "~ sysctl net.ipv4.conf.nic1p2.arp_announce 0 -> 2",
                           "+ addr 10.0.0.16/27 dev nic1p1 noprefixroute", "+ addr 10.0.0.16/27 dev nic1p2 noprefixroute",
                           "~ up nic2p2",
                           "+ route fd48:504e::/40 table 1001 nexthop via fd48:504e::1 dev nic1p1 onlink nexthop via "
                           "fd48:504e::2 dev nic1p2 onlink"}) {
    INFO(line);
    CHECK(std::count(t.begin(), t.end(), line) == 1);
  }
  CHECK(std::none_of(t.begin(), t.end(), [](const std::string& s) { return s.find("bond1") != std::string::npos && s.find("sysctl") != std::string::npos; }));
  CHECK(std::none_of(t.begin(), t.end(), [](const std::string& s) { return s.rfind("+ bond", 0) == 0 || s.rfind("~ master", 0) == 0; }));

  // A next hop that is no member's gateway cannot be placed on a port.
  auto odd = profile_from(hpn::test::edited_profile([](auto& j) { j["bonds"][0]["routes"][0]["via"][1] = "10.0.0.9"; }));
  auto refused = plan_changes(odd, fresh_host(odd, o), o);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message ==
        "h0.json: route 10.0.0.0/12 of bond1 goes via 10.0.0.9, the gateway of no member port: --no-bond cannot tell "
        "which port it leaves by");
}

TEST_CASE("host apply plan: a route with other next hops is replaced, and the old ones kept for undo", "[host]") {
  const auto profile = lab_profile();
  auto state = fresh_host(profile, {});
  state.links.push_back({"bond1", 9, "bond", "02:4e:10:00:00:01", 4200, true, ""});
  state.routes.push_back({4, {4, "10.0.0.0", 12}, 1001, 186, 0, {{"10.0.0.1", "bond1", false}}});
  auto plan = plan_changes(profile, state, {});
  REQUIRE(plan.ok());
  auto route = std::find_if(plan->changes.begin(), plan->changes.end(), [](const Change& c) {
    return c.kind == ChangeKind::set_route && c.table == 1001 && c.prefix.family == 4;
  });
  REQUIRE(route != plan->changes.end());
  CHECK(route->text() ==
        "~ route 10.0.0.0/12 table 1001 nexthop via 10.0.0.1 dev bond1 -> nexthop via 10.0.0.1 dev bond1 nexthop via "
        "10.0.0.2 dev bond1");
  CHECK(route->protocol == 186);
  // bgp's route, not one of hpnctl's: a conflict, which --force overrides.
  REQUIRE(plan->conflicts.size() == 1);
  CHECK(plan->conflicts[0].text ==
        "route 10.0.0.0/12 of the profile would replace the host's 10.0.0.0/12 table 1001 metric 0 proto bgp nexthop "
        "via 10.0.0.1 dev bond1");
  const auto j = change_json(*route);
  CHECK(j["op"] == "~");
  CHECK(j["kind"] == "route");
  CHECK(j["old_nexthops"].size() == 1);
  CHECK(j["nexthops"][1]["via"] == "10.0.0.2");
  // The existing bond is kept: no "+ bond bond1".
  CHECK(std::none_of(plan->changes.begin(), plan->changes.end(), [](const Change& c) {
    return c.kind == ChangeKind::create_bond && c.target == "bond1";
  }));
}

TEST_CASE("host apply plan: a link with a bond's name that is not a bond is refused", "[host]") {
  const auto profile = lab_profile();
  auto state = fresh_host(profile, {});
  state.links.push_back({"bond1", 9, "veth", "02:00:00:00:00:09", 1500, false, ""});
  auto plan = plan_changes(profile, state, {});
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message == "h0.json: bond1 exists here and is not a bond (kind 'veth')");
}

TEST_CASE("host apply plan: pinned neighbours for gateways whose MAC the profile gives", "[host]") {
  auto profile = profile_from(hpn::test::edited_profile([](auto& j) {
    j["bonds"][0]["members"][1]["gateway_mac"] = "8e:b9:8d:02:59:a9";
    for (auto& m : j["bonds"][1]["members"]) m["gateway_mac"] = nullptr;
  }));
  auto plan = plan_changes(profile, fresh_host(profile, {}), {});
  REQUIRE(plan.ok());
  const auto t = texts(plan.value());
  // bond2's gateways have no MAC in this profile: nothing pinned for them.
  CHECK(t.end()[-4] == "+ neigh 10.0.0.1 dev bond1 lladdr 02:48:50:4e:00:01 permanent");
  CHECK(t.end()[-3] == "+ neigh fd48:504e::1 dev bond1 lladdr 02:48:50:4e:00:01 permanent");
  CHECK(t.end()[-2] == "+ neigh 10.0.0.2 dev bond1 lladdr 8e:b9:8d:02:59:a9 permanent");
  CHECK(t.end()[-1] == "+ neigh fd48:504e::2 dev bond1 lladdr 8e:b9:8d:02:59:a9 permanent");
}

TEST_CASE("host apply identity: the host name, a namespace named for it, member ports and hpnctl MACs", "[host]") {
  const auto profile = lab_profile();
  const auto state = fresh_host(profile, {});
  CHECK(identity_problems(profile, state, "host-p0-s00-h000", false).empty());
  CHECK(identity_problems(profile, state, "hpnA-7-host-p0-s00-h000", true).empty());
  CHECK(identity_problems(profile, state, "hpnA-7-host-p0-s00-h000", false) ==
        std::vector<std::string>{"the profile is for host-p0-s00-h000, and this host is hpnA-7-host-p0-s00-h000"});
  CHECK(identity_problems(profile, state, "xhost-p0-s00-h000", true) ==
        std::vector<std::string>{"the profile is for host-p0-s00-h000, and namespace xhost-p0-s00-h000 is neither "
                                 "named host-p0-s00-h000 nor '<prefix>-host-p0-s00-h000'"});
  CHECK(identity_problems(profile, state, "host-p0-s00-h001", false).size() == 1);

  auto missing = state;
  std::erase_if(missing.links, [](const LinkState& l) { return l.name == "nic2p2"; });
  CHECK(identity_problems(profile, missing, "host-p0-s00-h000", false) ==
        std::vector<std::string>{"member port nic2p2 of bond2 does not exist here"});

  // An earlier apply made this host node 0x100005 (host-p0-s00-h005).
  auto other = state;
  other.links[1].mac = "02:4e:10:00:05:01";
  CHECK(identity_problems(profile, other, "host-p0-s00-h000", false) ==
        std::vector<std::string>{"nic1p1 carries 02:4e:10:00:05:01, an hpnctl MAC of node 1048581, not of this "
                                 "profile's node 1048576"});
  // Its own MAC is fine.
  auto own = state;
  own.links[1].mac = "02:4e:10:00:00:01";
  CHECK(identity_problems(profile, own, "host-p0-s00-h000", false).empty());
}

TEST_CASE("host apply rollback: a failure at step k undoes steps k-1 .. 0, newest first, and restores the state", "[host]") {
  const auto profile = lab_profile();
  ApplyOptions o;
  o.no_bond = true;
  const auto original = fresh_host(profile, o);
  auto plan = plan_changes(profile, original, o);
  REQUIRE(plan.ok());
  const size_t n = plan->changes.size();
  for (size_t k : {size_t{0}, size_t{1}, size_t{7}, n / 2, n - 1}) {
    INFO("failing step " << k);
    FakeHost host(original);
    host.plan = &plan.value();
    host.fail_apply_at = k;
    auto outcome = apply_plan(plan.value(), host);
    REQUIRE_FALSE(outcome.ok());
    CHECK(*outcome.failed_step == k);
    CHECK(outcome.error == "injected failure");
    CHECK(outcome.applied == k);
    REQUIRE(outcome.undone.size() == k);
    std::vector<std::string> expected;
    for (size_t i = 0; i <= k; ++i) expected.push_back("apply " + plan->changes[i].text());
    for (size_t i = k; i-- > 0;) {
      expected.push_back("undo " + plan->changes[i].text());
      CHECK(outcome.undone[k - 1 - i] == i);
    }
    CHECK(host.calls == expected);
    CHECK(dump(host.state) == dump(original));
    CHECK(outcome.undo_errors.empty());
  }
}

TEST_CASE("host apply rollback: an undo that fails is reported and the others still run", "[host]") {
  const auto profile = lab_profile();
  const auto original = fresh_host(profile, {});
  auto plan = plan_changes(profile, original, {});
  REQUIRE(plan.ok());
  FakeHost host(original);
  host.plan = &plan.value();
  host.fail_apply_at = 10;
  host.fail_undo_at = 4;
  auto outcome = apply_plan(plan.value(), host);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.undone.size() == 10);
  REQUIRE(outcome.undo_errors.size() == 1);
  CHECK(outcome.undo_errors[0] == "undo of step 5 (~ master nic1p1 none -> bond1): injected undo failure");
  CHECK(host.calls.back() == "undo " + plan->changes[0].text());
}

namespace {

// A host as a real one is found: a DHCP default route at metric 100 on
// eth0, an unrelated route in table 1001, and (where asked) a member port
// with an address and a route of its own, and one enslaved to a bridge.
HostState lived_in_host(const HostNetwork& p, bool member_clutter) {
  HostState s = fresh_host(p, {});
  s.links.push_back({"eth0", 20, "", "52:54:00:12:34:56", 1500, true, ""});
  s.addresses.push_back({"eth0", {4, "192.168.100.10", 24}});
  s.routes.push_back({4, {4, "0.0.0.0", 0}, 254, 16, 100, {{"192.168.100.1", "eth0", false}}});
  s.routes.push_back({4, {4, "172.16.0.0", 16}, 1001, 4, 0, {{"192.168.100.1", "eth0", false}}});
  if (member_clutter) {
    s.links[1].up = true;  // nic1p1
    s.addresses.push_back({"nic1p1", {4, "192.168.5.5", 24}});
    s.addresses.push_back({"nic1p1", {6, "fe80::6c54:aaff:fee5:8d02", 64}, true});  // the kernel's own: no conflict
    s.routes.push_back({4, {4, "192.168.5.0", 24}, 254, 2, 0, {{"", "nic1p1", false}}});  // the kernel's own
    s.routes.push_back({4, {4, "192.168.77.0", 24}, 254, 3, 0, {{"192.168.5.1", "nic1p1", false}}});
    s.links.push_back({"br0", 21, "bridge", "52:54:00:00:00:21", 1500, true, ""});
    s.links[3].master = "br0";  // nic2p1
  }
  return s;
}

std::vector<std::string> conflict_texts(const ChangePlan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.conflicts) out.push_back(c.text);
  return out;
}

}  // namespace

TEST_CASE("host apply plan: the host's default route and unrelated routes are left alone", "[host]") {
  const auto profile = lab_profile();
  for (bool no_bond : {false, true}) {
    ApplyOptions o;
    o.no_bond = no_bond;
    const auto state = lived_in_host(profile, false);
    auto plan = plan_changes(profile, state, o);
    REQUIRE(plan.ok());
    CHECK(plan->conflicts.empty());
    for (const auto& c : plan->changes) {
      INFO(c.text());
      CHECK(c.kind != ChangeKind::remove_route);
      CHECK(c.kind != ChangeKind::remove_address);
      CHECK(c.text().find("eth0") == std::string::npos);
      CHECK(c.text().find("172.16.") == std::string::npos);
    }
    // Applied and rolled back from its last step: the host as it was.
    FakeHost host(state);
    host.plan = &plan.value();
    host.fail_apply_at = plan->changes.size() - 1;
    auto outcome = apply_plan(plan.value(), host);
    CHECK_FALSE(outcome.ok());
    CHECK(dump(host.state) == dump(state));
  }
}

TEST_CASE("host apply plan: a member's own address and route, and another master, are conflicts that --force clears first", "[host]") {
  const auto profile = lab_profile();
  ApplyOptions o;
  o.no_bond = true;
  const auto state = lived_in_host(profile, true);
  auto plan = plan_changes(profile, state, o);
  REQUIRE(plan.ok());
  CHECK(conflict_texts(plan.value()) == std::vector<std::string>{
      "member port nic1p1 of bond1 carries 192.168.5.5/24, which the profile does not give it",
      "member port nic1p1 of bond1 carries route 192.168.77.0/24 table main metric 0 proto boot nexthop via "
      "192.168.5.1 dev nic1p1, which the profile does not give it",
      "member port nic2p1 of bond2 is enslaved to br0"});
  // The removals lead the plan: routes, then addresses, then masters.
  const auto t = texts(plan.value());
  REQUIRE(t.size() > 3);
  CHECK(t[0] == "- route 192.168.77.0/24 table main metric 0 proto boot nexthop via 192.168.5.1 dev nic1p1");
  CHECK(t[1] == "- addr 192.168.5.5/24 dev nic1p1");
  CHECK(t[2] == "~ master nic2p1 br0 -> none");
  // Rolled back from any step, the host is exactly as it was, removals included.
  for (size_t fail_at : {size_t{3}, plan->changes.size() / 2, plan->changes.size() - 1}) {
    FakeHost host(state);
    host.plan = &plan.value();
    host.fail_apply_at = fail_at;
    auto outcome = apply_plan(plan.value(), host);
    CHECK(outcome.undone.size() == fail_at);
    CHECK(dump(host.state) == dump(state));
  }
  // Bonded, the member's other master is released before it is enslaved.
  auto bonded = plan_changes(profile, state, {});
  REQUIRE(bonded.ok());
  const auto b = texts(bonded.value());
  auto release = std::find(b.begin(), b.end(), "~ master nic2p1 br0 -> none");
  auto enslave = std::find(b.begin(), b.end(), "~ master nic2p1 none -> bond2");
  CHECK(release != b.end());
  CHECK(enslave != b.end());
  CHECK(release < enslave);
}

TEST_CASE("host apply plan: routes are told apart by metric and protocol", "[host]") {
  const auto profile = lab_profile();
  auto state = fresh_host(profile, {});
  state.links.push_back({"bond1", 9, "bond", "02:4e:10:00:00:01", 4200, true, ""});
  // The profile's prefix and table at another metric: another route, kept.
  state.routes.push_back({4, {4, "10.0.0.0", 12}, 1001, 4, 100, {{"10.9.9.9", "bond1", false}}});
  auto plan = plan_changes(profile, state, {});
  REQUIRE(plan.ok());
  CHECK(plan->conflicts.empty());
  auto route = std::find_if(plan->changes.begin(), plan->changes.end(), [](const Change& c) {
    return c.kind == ChangeKind::set_route && c.table == 1001 && c.prefix.family == 4;
  });
  REQUIRE(route != plan->changes.end());
  CHECK(route->op == '+');
  CHECK(route->metric == 0);
  FakeHost host(state);
  host.plan = &plan.value();
  REQUIRE(apply_plan(plan.value(), host).ok());
  int both = 0;
  for (const auto& r : host.state.routes) both += r.table == 1001 && r.to == route->prefix;
  CHECK(both == 2);
  // Once applied, hpnctl's own static route is recognised: nothing to do.
  auto again = plan_changes(profile, host.state, {});
  REQUIRE(again.ok());
  CHECK(again->changes.empty());
  CHECK(again->conflicts.empty());
}

TEST_CASE("host apply plan: a default route in the profile replaces the host's only as a conflict of its own", "[host]") {
  const auto profile = profile_from(hpn::test::edited_profile([](nlohmann::json& j) {
    j["bonds"][0]["routes"].push_back({{"family", 4}, {"to", "0.0.0.0/0"}, {"via", {"10.0.0.1", "10.0.0.2"}}, {"table", 254}});
  }));
  const auto state = lived_in_host(profile, false);
  auto plan = plan_changes(profile, state, {});
  REQUIRE(plan.ok());
  REQUIRE(plan->conflicts.size() == 1);
  CHECK(plan->conflicts[0].default_route);
  CHECK(plan->conflicts[0].text ==
        "the profile puts a default route in table main, and the host has one: 0.0.0.0/0 table main metric 100 proto "
        "dhcp nexthop via 192.168.100.1 dev eth0");
  const auto t = texts(plan.value());
  CHECK(t[0] == "- route 0.0.0.0/0 table main metric 100 proto dhcp nexthop via 192.168.100.1 dev eth0");
  CHECK(std::find(t.begin(), t.end(),
                  "+ route 0.0.0.0/0 table main nexthop via 10.0.0.1 dev bond1 nexthop via 10.0.0.2 dev bond1") != t.end());
  FakeHost host(state);
  host.plan = &plan.value();
  host.fail_apply_at = plan->changes.size() - 1;
  apply_plan(plan.value(), host);
  CHECK(dump(host.state) == dump(state));
}

TEST_CASE("host apply plan: an existing bond with another mode or monitor is a conflict", "[host]") {
  const auto profile = lab_profile();
  auto state = fresh_host(profile, {});
  LinkState bond{"bond1", 9, "bond", "02:4e:10:00:00:01", 4200, true, ""};
  bond.bond = BondState{"802.3ad", "layer2", 100, 0, {}};
  state.links.push_back(bond);
  auto plan = plan_changes(profile, state, {});
  REQUIRE(plan.ok());
  REQUIRE(plan->conflicts.size() == 1);
  CHECK(plan->conflicts[0].text ==
        "bond1 exists with other options: bond bond1 mode 802.3ad xmit_hash_policy layer2 miimon 100 -> mode "
        "balance-xor xmit_hash_policy layer3+4 arp_interval 100 arp_ip_target 10.0.0.1,10.0.0.2");
  // The same options, targets in another order: no conflict.
  state.links.back().bond = BondState{"balance-xor", "layer3+4", 0, 100, {"10.0.0.2", "10.0.0.1"}};
  auto same = plan_changes(profile, state, {});
  REQUIRE(same.ok());
  CHECK(same->conflicts.empty());
}

TEST_CASE("host apply rollback: a stop asked for between steps undoes what was made", "[host]") {
  const auto profile = lab_profile();
  const auto state = lived_in_host(profile, false);
  auto plan = plan_changes(profile, state, {true});
  REQUIRE(plan.ok());
  FakeHost host(state);
  host.plan = &plan.value();
  int asked = 0;
  auto outcome = apply_plan(plan.value(), host, [&] { return ++asked > 7; });
  CHECK(outcome.interrupted);
  REQUIRE(outcome.failed_step);
  CHECK(*outcome.failed_step == 7);
  CHECK(outcome.undone.size() == 7);
  CHECK(dump(host.state) == dump(state));
}

namespace {

// The lab profile as `profile --nic-map` writes it for a host whose ports
// the kernel calls enp59s0f0np0 ...: each member's match gives the
// interface's MAC and name now.
const char* const kKernelNames[] = {"enp59s0f0np0", "enp59s0f1np1", "enp94s0f0np0", "enp94s0f1np1"};

std::string mapped_profile_text() {
  auto j = nlohmann::json::parse(hpn::test::lab_profile_text());
  int i = 0;
  for (auto& b : j["bonds"]) {
    for (auto& m : b["members"]) {
      m["match"] = {{"ifname", kKernelNames[i]}, {"mac", fmt::format("6e:54:aa:e5:8d:{:02x}", i + 2)},
                    {"pci", nullptr}, {"rdma", nullptr}, {"by", "PCI path in its name"}};
      ++i;
    }
  }
  return j.dump();
}

HostState kernel_named_host(const HostNetwork& p, const ApplyOptions& o) {
  HostState s = fresh_host(p, o);
  for (int i = 0; i < 4; ++i) s.links[static_cast<size_t>(i) + 1].name = kKernelNames[i];
  return s;
}

}  // namespace

TEST_CASE("host apply plan: a NIC map's ports are renamed to their planned names first, by MAC, then idempotent", "[host]") {
  const auto profile = profile_from(mapped_profile_text());
  for (bool no_bond : {false, true}) {
    INFO("no_bond " << no_bond);
    ApplyOptions o;
    o.no_bond = no_bond;
    HostState state = kernel_named_host(profile, o);
    state.links[2].up = true;  // enp59s0f1np1 is up: down before the rename
    // Names shuffled since the map was made: the MAC still finds each port.
    std::swap(state.links[3].name, state.links[4].name);
    CHECK(identity_problems(profile, state, "hpnA-1-host-p0-s00-h000", true).empty());
    auto plan = plan_changes(profile, state, o);
    REQUIRE(plan.ok());
    const auto t = texts(plan.value());
    REQUIRE(t.size() > 5);
    CHECK(t[0] == "~ name enp59s0f0np0 -> nic1p1");
    CHECK(t[1] == "~ down enp59s0f1np1");
    CHECK(t[2] == "~ name enp59s0f1np1 -> nic1p2");
    CHECK(t[3] == "~ name enp94s0f1np1 -> nic2p1");
    CHECK(t[4] == "~ name enp94s0f0np0 -> nic2p2");
    CHECK(t[5].find("name ") == std::string::npos);
    FakeHost host(state);
    host.plan = &plan.value();
    REQUIRE(apply_plan(plan.value(), host).ok());
    for (const char* port : {"nic1p1", "nic1p2", "nic2p1", "nic2p2"}) CHECK(host.state.link(port) != nullptr);
    auto again = plan_changes(profile, host.state, o);
    REQUIRE(again.ok());
    CHECK(texts(again.value()).empty());
    // A failure later undoes the renames too: the host keeps its own names.
    FakeHost failing(state);
    failing.plan = &plan.value();
    failing.fail_apply_at = plan->changes.size() - 1;
    REQUIRE_FALSE(apply_plan(plan.value(), failing).ok());
    CHECK(dump(failing.state) == dump(state));
  }
}

TEST_CASE("host apply: a NIC map that finds nothing here is an identity problem that says so", "[host]") {
  const auto profile = profile_from(mapped_profile_text());
  HostState state = kernel_named_host(profile, {});
  state.links[1].name = "eth7";
  state.links[1].mac = "6e:54:aa:e5:8d:7f";
  const auto problems = identity_problems(profile, state, "host-p0-s00-h000", false);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "member port nic1p1 of bond1 does not exist here, nor under the name or MAC its NIC map gives");
}

TEST_CASE("host apply --format json: every kind of step the planner makes is as host-apply.schema.json says", "[host]") {
  // Plans that between them make every kind of step: a fresh host bonded
  // and not, a lived-in one whose clutter is removed, a bond with other
  // options, a NIC map's renames, a route replaced, pinned neighbours.
  std::vector<Change> changes;
  auto add = [&](const HostNetwork& profile, const HostState& state, const ApplyOptions& o) {
    auto plan = plan_changes(profile, state, o);
    REQUIRE(plan.ok());
    changes.insert(changes.end(), plan->changes.begin(), plan->changes.end());
  };
  const auto profile = lab_profile();
  ApplyOptions no_bond;
  no_bond.no_bond = true;
  // The steps point into their profiles: those outlive the check.
  const auto mapped = profile_from(mapped_profile_text());
  const auto pinned = profile_from(hpn::test::edited_profile(
      [](auto& j) { j["bonds"][0]["members"][1]["gateway_mac"] = "8e:b9:8d:02:59:a9"; }));
  add(profile, fresh_host(profile, {}), {});
  add(profile, fresh_host(profile, no_bond), no_bond);
  add(profile, lived_in_host(profile, true), no_bond);
  add(profile, lived_in_host(profile, true), {});
  auto other_bond = fresh_host(profile, {});
  LinkState bond{"bond1", 9, "bond", "02:4e:10:00:00:01", 4200, true, ""};
  bond.bond = BondState{"802.3ad", "layer2", 100, 0, {}};
  other_bond.links.push_back(bond);
  other_bond.routes.push_back({4, {4, "10.0.0.0", 12}, 1001, 186, 0, {{"10.0.0.1", "bond1", false}}});
  add(profile, other_bond, {});
  auto renamed = kernel_named_host(mapped, {});
  renamed.links[2].up = true;
  add(mapped, renamed, {});
  add(pinned, fresh_host(pinned, {}), {});

  nlohmann::ordered_json report = {{"host", profile.host}, {"netns", nullptr}, {"dry_run", true}, {"no_bond", false},
                                   {"forced", false}, {"warnings", nlohmann::ordered_json::array()},
                                   {"conflicts", nlohmann::ordered_json::array()}, {"saved", nullptr},
                                   {"result", "dry-run"}, {"changes", nlohmann::ordered_json::array()},
                                   {"applied", 0}, {"failed_step", nullptr}};
  std::set<std::string> kinds;
  for (const auto& c : changes) {
    report["changes"].push_back(change_json(c));
    kinds.insert(to_string(c.kind));
  }
  CHECK(kinds == std::set<std::string>{"sysctl", "bond", "bond-options", "down", "release", "master", "mac", "mtu",
                                       "name", "addr", "unaddr", "up", "rule", "route", "unroute", "neigh"});
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", report.dump(2)) == "");
  // And the schema is not a sieve: a step's field of the wrong type, or one
  // a kind does not have, is refused.
  auto wrong = report;
  wrong["changes"][0]["to"] = 2;
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", wrong.dump(2)) != "");
  wrong = report;
  wrong["changes"][0]["mtu"] = 9000;
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", wrong.dump(2)) != "");
}
