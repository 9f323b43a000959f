// `hpnctl switch apply` without root: the set's reader (errors located at
// the line, with a caret), the change plan against an in-memory switch
// (idempotence, refusals, another switch's set) and rollback through a fake.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "switch/switch_apply.h"
#include "switch/switch_set.h"
#include "test_util.h"

using namespace hpn::sw;

namespace {

const char* kLo = "# tor-a\n\n[Match]\nHost=tor-a\nName=lo\n\n[Network]\nAddress=10.255.0.1/32\nAddress=fd00:ff::1/128\n";

std::string port_network(const std::string& port, const std::string& address, const std::string& policy = "up") {
  return "[Match]\nHost=tor-a\nName=" + port + "\n\n[Link]\nMTUBytes=9000\nActivationPolicy=" + policy +
         "\n\n[Network]\nLinkLocalAddressing=ipv6\nIPv6AcceptRA=no\nAddress=" + address + "\n";
}

const char* kSysctl =
    "# tor-a: kernel settings\n"
    "net.ipv4.ip_forward = 1\n"
    "net.ipv4.fib_multipath_hash_fields = 0x0037\n"
    "-net.ipv4.fib_multipath_hash_seed = 7\n"
    "net.ipv6.ioam6_id = 7\n"
    "net.ipv6.conf.up1.ioam6_id = 3\n";

std::vector<SetFile> networkd() {
  return {{"nd/10-hpn-lo.network", kLo},
          {"nd/20-hpn-up1.network", port_network("up1", "fd00:1::1/127")},
          {"nd/20-hpn-h1.network", port_network("h1", "10.0.0.1/32")},
          {"nd/20-hpn-h1.link", "[Match]\nHost=tor-a\nOriginalName=h1\n\n[Link]\nMACAddress=02:4E:00:00:00:AA\n"},
          {"nd/20-hpn-spare.network", port_network("spare", "fd00:2::1/127", "down")}};
}

SwitchSet the_set() {
  auto set = parse_switch_set(networkd(), {"sysctl.conf", kSysctl});
  REQUIRE(set);
  return set.value();
}

// A switch as it boots: every port down at 1500, no addresses, defaults.
SwitchState fresh() {
  SwitchState s;
  s.links = {{"lo", "00:00:00:00:00:00", 65536, true},
             {"up1", "02:00:00:00:00:01", 1500, false},
             {"h1", "02:00:00:00:00:02", 1500, false},
             {"spare", "02:00:00:00:00:03", 1500, true}};
  s.addresses = {{"lo", {4, "127.0.0.1", 8}, false}};
  s.sysctls = {{"net.ipv4.ip_forward", "0"},
               {"net.ipv4.fib_multipath_hash_fields", "7"},
               {"net.ipv6.ioam6_id", "16777215"},
               {"net.ipv6.conf.up1.ioam6_id", "0"}};
  return s;
}

// The in-memory switch: each change made to a SwitchState, as the kernel
// would, and a step that fails on demand.
class FakeSwitch final : public SwitchOps {
 public:
  explicit FakeSwitch(SwitchState s) : state(std::move(s)) {}
  SwitchState state;
  int fail_at = -1;  // 0-based apply call that fails
  std::vector<std::string> log;

  hpn::Status apply(const Change& c) override {
    if (calls++ == fail_at) return hpn::Error{"injected failure"};
    log.push_back("apply " + c.text());
    make(c, false);
    return {};
  }
  hpn::Status undo(const Change& c) override {
    log.push_back("undo " + c.text());
    make(c, true);
    return {};
  }

 private:
  int calls = 0;
  SwitchLink& link(const std::string& name) {
    for (auto& l : state.links) {
      if (l.name == name) return l;
    }
    FAIL("no link " << name);
    return state.links.front();
  }
  void make(const Change& c, bool undo) {
    switch (c.kind) {
      case ChangeKind::add_ioam_namespace:
        if (undo) {
          std::erase_if(state.ioam_namespaces, [&](const auto& n) { return n.id == std::stoi(c.value); });
        } else {
          state.ioam_namespaces.push_back({static_cast<std::uint16_t>(std::stoi(c.value)), {}, {}, {}});
        }
        break;
      case ChangeKind::sysctl: state.sysctls[c.target] = undo ? c.old_value : c.value; break;
      case ChangeKind::set_mac: link(c.target).mac = undo ? c.old_value : c.value; break;
      case ChangeKind::set_mtu: link(c.target).mtu = std::stoi(undo ? c.old_value : c.value); break;
      case ChangeKind::link_up: link(c.target).up = !undo; break;
      case ChangeKind::link_down: link(c.target).up = undo; break;
      case ChangeKind::add_address:
        if (undo) {
          std::erase_if(state.addresses, [&](const SwitchAddress& a) { return a.ifname == c.target && a.prefix == c.prefix; });
        } else {
          state.addresses.push_back({c.target, c.prefix, false});
        }
        break;
    }
  }
};

std::vector<std::string> texts(const ChangePlan& p) {
  std::vector<std::string> out;
  for (const auto& c : p.changes) out.push_back(c.text());
  return out;
}

bool same_state(const SwitchState& a, const SwitchState& b) {
  if (a.sysctls != b.sysctls || a.links.size() != b.links.size() || a.addresses.size() != b.addresses.size() ||
      a.ioam_namespaces.size() != b.ioam_namespaces.size()) {
    return false;
  }
  for (size_t i = 0; i < a.links.size(); ++i) {
    const auto &x = a.links[i], &y = b.links[i];
    if (x.name != y.name || x.mac != y.mac || x.mtu != y.mtu || x.up != y.up) return false;
  }
  for (size_t i = 0; i < a.addresses.size(); ++i) {
    if (a.addresses[i].ifname != b.addresses[i].ifname || !(a.addresses[i].prefix == b.addresses[i].prefix)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("switch set: the files read back as written", "[switch][apply]") {
  const SwitchSet set = the_set();
  CHECK(set.name == "tor-a");
  CHECK(set.node_id == 7);
  REQUIRE(set.ports.size() == 4);
  CHECK(set.ports[0].ifname == "lo");  // lo first, then by file name
  CHECK(set.ports[1].ifname == "h1");
  CHECK(set.ports[1].mac == "02:4e:00:00:00:aa");
  CHECK(set.ports[1].mtu == 9000);
  CHECK(set.ports[3].ifname == "up1");
  CHECK(set.ports[3].addresses == std::vector<IfPrefix>{{6, "fd00:1::1", 127}});
  CHECK_FALSE(set.port("spare")->up);
  REQUIRE(set.sysctls.size() == 5);
  CHECK(set.sysctls[2] == SetSysctl{"net.ipv4.fib_multipath_hash_seed", "7", true});
}

TEST_CASE("switch set: ports that say the same share one .network", "[switch][apply]") {
  auto files = networkd();
  files.erase(std::remove_if(files.begin(), files.end(), [](const SetFile& f) { return f.name == "nd/20-hpn-spare.network"; }),
              files.end());
  files.push_back({"nd/30-hpn-down-ports.network",
                   "[Match]\nHost=tor-a\nName=spare s2\n\n[Link]\nMTUBytes=9000\nActivationPolicy=down\n"});
  auto set = parse_switch_set(files, {"sysctl.conf", kSysctl});
  REQUIRE(set);
  REQUIRE(set->port("s2") != nullptr);
  CHECK_FALSE(set->port("s2")->up);
  CHECK(set->port("spare")->mtu == 9000);
  CHECK(set->port("spare")->addresses.empty());
}

TEST_CASE("switch set: errors point at the line", "[switch][apply]") {
  auto with = [](const std::string& name, const std::string& text) {
    auto files = networkd();
    for (auto& f : files) {
      if (f.name == name) f.text = text;
    }
    return parse_switch_set(files, {"sysctl.conf", kSysctl});
  };
  auto typo = with("nd/20-hpn-up1.network", "[Match]\nHost=tor-a\nName=up1\n\n[Link]\nMTUByte=9000\n");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().message ==
        "nd/20-hpn-up1.network:6:1: unknown key 'MTUByte' in [Link]; did you mean 'MTUBytes'?\nMTUByte=9000\n^\n");
  auto address = with("nd/20-hpn-h1.network", port_network("h1", "10.0.0.300/32"));
  REQUIRE_FALSE(address);
  CHECK(address.error().message ==
        "nd/20-hpn-h1.network:12:9: '10.0.0.300/32' is not an address with its prefix length\n"
        "Address=10.0.0.300/32\n        ^\n");
  auto other = with("nd/20-hpn-h1.link", "[Match]\nHost=tor-b\nOriginalName=h1\n\n[Link]\nMACAddress=02:4e:00:00:00:aa\n");
  REQUIRE_FALSE(other);
  CHECK(other.error().message.starts_with("nd/20-hpn-h1.link:2:6: Host=tor-b, and nd/10-hpn-lo.network says Host=tor-a"));
  auto twice = with("nd/20-hpn-h1.network", "[Match]\nHost=tor-a\nName=h1 up1\n\n[Link]\nMTUBytes=9000\n");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message == "nd/20-hpn-up1.network: a second .network for up1\n");
  auto bad_name = with("nd/20-hpn-h1.network", "[Match]\nHost=tor-a\nName=h1 a/b\n");
  REQUIRE_FALSE(bad_name);
  CHECK(bad_name.error().message == "nd/20-hpn-h1.network:3:9: 'a/b' is not an interface name\nName=h1 a/b\n        ^\n");
  auto sysctl = parse_switch_set(networkd(), {"sysctl.conf", "net.ipv4.ip_forward=1\n"});
  REQUIRE_FALSE(sysctl);
  CHECK(sysctl.error().message == "sysctl.conf:1:1: expected 'key = value'\nnet.ipv4.ip_forward=1\n^\n");
  auto no_node = parse_switch_set(networkd(), {"sysctl.conf", "net.ipv4.ip_forward = 1\n"});
  REQUIRE_FALSE(no_node);
  CHECK(no_node.error().message == "sysctl.conf: no net.ipv6.ioam6_id: the switch's node ID");
}

TEST_CASE("switch apply: the plan, then nothing on a second run", "[switch][apply]") {
  const SwitchSet set = the_set();
  FakeSwitch sw(fresh());
  auto plan = plan_changes(set, sw.state, 80);
  REQUIRE(plan);
  CHECK(plan->conflicts.empty());
  // sysctls first (the optional seed absent here: skipped), then MAC, MTU,
  // addresses, admin state; 0x0037 and 55 are one value, 7 is not.
  CHECK(texts(*plan) == std::vector<std::string>{
                            "~ sysctl net.ipv4.ip_forward 0 -> 1",
                            "~ sysctl net.ipv4.fib_multipath_hash_fields 7 -> 0x0037",
                            "~ sysctl net.ipv6.ioam6_id 16777215 -> 7",
                            "~ sysctl net.ipv6.conf.up1.ioam6_id 0 -> 3",
                            "~ mac h1 02:00:00:00:00:02 -> 02:4e:00:00:00:aa",
                            "~ mtu h1 1500 -> 9000",
                            "~ mtu spare 1500 -> 9000",
                            "~ mtu up1 1500 -> 9000",
                            "+ addr 10.255.0.1/32 dev lo",
                            "+ addr fd00:ff::1/128 dev lo",
                            "+ addr 10.0.0.1/32 dev h1",
                            "+ addr fd00:2::1/127 dev spare",
                            "+ addr fd00:1::1/127 dev up1",
                            "~ up h1",
                            "~ down spare",
                            "~ up up1",
                        });
  auto outcome = apply_plan(*plan, sw);
  REQUIRE(outcome.ok());
  CHECK(outcome.applied == plan->changes.size());
  sw.state.sysctls["net.ipv4.fib_multipath_hash_fields"] = "55";  // as the kernel prints it back
  auto again = plan_changes(set, sw.state, 80);
  REQUIRE(again);
  CHECK(again->changes.empty());
  CHECK(again->conflicts.empty());
}

TEST_CASE("switch apply: the set's IOAM namespace (ioam.conf) is added first, kept, refused when someone else's",
          "[switch][apply]") {
  SwitchSet set = the_set();
  auto ids = parse_ioam_conf({"ioam.conf", "# tor-a\nnamespace 123\n"});
  REQUIRE(ids);
  set.ioam_namespaces = ids.value();
  FakeSwitch sw(fresh());
  sw.state.ioam_namespaces.push_back({7, {}, {}, {}});  // another namespace: not the set's business
  auto plan = plan_changes(set, sw.state, 80);
  REQUIRE(plan);
  CHECK(plan->conflicts.empty());
  REQUIRE_FALSE(plan->changes.empty());
  CHECK(plan->changes.front().text() == "+ ioam namespace 123");
  CHECK(change_json(plan->changes.front()).dump() == R"({"op":"+","kind":"ioam","text":"+ ioam namespace 123","namespace":123})");
  const SwitchState before = sw.state;
  // A failure midway takes the namespace away again.
  FakeSwitch failing(before);
  failing.fail_at = 3;
  REQUIRE_FALSE(apply_plan(*plan, failing).ok());
  CHECK(same_state(failing.state, before));
  REQUIRE(apply_plan(*plan, sw).ok());
  sw.state.sysctls["net.ipv4.fib_multipath_hash_fields"] = "55";
  auto again = plan_changes(set, sw.state, 80);
  REQUIRE(again);
  CHECK(again->changes.empty());

  // Namespace 123 with data or a schema is someone else's configuration.
  SwitchState foreign = before;
  foreign.ioam_namespaces.push_back({123, 0xabcdu, {}, 5u});
  auto refused = plan_changes(set, foreign, 80);
  REQUIRE(refused);
  CHECK(refused->conflicts ==
        std::vector<std::string>{"IOAM namespace 123 carries data 0xabcd and schema 5, which the set does not give it"});
  // A kernel without IPv6 IOAM cannot take the set.
  SwitchState no_ioam = before;
  no_ioam.ioam = false;
  auto lacking = plan_changes(set, no_ioam, 80);
  REQUIRE_FALSE(lacking);
  CHECK(lacking.error().message == "this kernel has no IPv6 IOAM (the set needs IOAM namespace 123)");
  // ioam.conf errors point at the line.
  auto bad = parse_ioam_conf({"ioam.conf", "# x\nnamespace 70000\n"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "ioam.conf:2:11: '70000' is not an IOAM namespace ID (0 to 65535)\nnamespace 70000\n          ^\n");
  auto other = parse_ioam_conf({"ioam.conf", "ns 1\n"});
  REQUIRE_FALSE(other);
  CHECK(other.error().message == "ioam.conf:1:1: expected 'namespace N'\nns 1\n^\n");
}

TEST_CASE("switch apply: what the set does not own on a fabric port is refused", "[switch][apply]") {
  const SwitchSet set = the_set();
  SwitchState s = fresh();
  s.addresses.push_back({"up1", {4, "192.0.2.9", 24}, false});
  s.addresses.push_back({"up1", {6, "fe80::1", 64}, true});   // the kernel's link-local: its own
  s.addresses.push_back({"lo", {6, "::1", 128}, false});       // lo is no fabric port
  s.routes.push_back({{4, "198.51.100.0", 24}, 254, 4, {"h1"}});     // static: foreign
  s.routes.push_back({{4, "10.0.0.7", 32}, 254, 80, {"h1"}});        // the agent's host route
  s.routes.push_back({{4, "10.9.0.0", 16}, 254, 186, {"up1"}});      // FRR's BGP route
  s.routes.push_back({{4, "203.0.113.0", 24}, 254, 4, {"mgmt0"}});   // not a fabric port
  auto plan = plan_changes(set, s, 80);
  REQUIRE(plan);
  CHECK(plan->conflicts == std::vector<std::string>{
                               "fabric port h1 carries route 198.51.100.0/24 table 254 protocol 4, which neither the "
                               "set, FRR nor the host-route agent makes",
                               "fabric port up1 carries 192.0.2.9/24, which the set does not give it",
                           });
  // Without the agent's protocol, its routes are foreign too.
  auto no_agent = plan_changes(set, s, 0);
  REQUIRE(no_agent);
  CHECK(no_agent->conflicts.size() == 3);
}

TEST_CASE("switch apply: another switch's set is refused", "[switch][apply]") {
  const SwitchSet set = the_set();
  SwitchState s = fresh();
  CHECK(identity_problems(set, s, "tor-a", false).empty());
  CHECK(identity_problems(set, s, "hpnW-tor-a", true).empty());
  CHECK(identity_problems(set, s, "hpnW-tor-a", false) ==
        std::vector<std::string>{"the set is for tor-a, and this switch is hpnW-tor-a"});
  s.links.erase(s.links.begin() + 2);  // h1 gone
  s.sysctls["net.ipv6.ioam6_id"] = "8";
  CHECK(identity_problems(set, s, "xtor-a", true) ==
        std::vector<std::string>{
            "the set is for tor-a, and namespace xtor-a is neither named tor-a nor '<prefix>-tor-a'",
            "port h1 of the set does not exist here",
            "this switch's IOAM node ID is 8, and the set's is 7",
        });
  s.sysctls["net.ipv6.ioam6_id"] = "7";  // applied before: its own
  CHECK(identity_problems(set, s, "tor-a", false).size() == 1);
}

TEST_CASE("switch apply: a failure or a signal undoes every step made, newest first", "[switch][apply]") {
  const SwitchSet set = the_set();
  const SwitchState before = fresh();
  auto plan = plan_changes(set, before, 0);
  REQUIRE(plan);
  REQUIRE(plan->changes.size() == 16);
  SECTION("a step fails") {
    FakeSwitch sw(before);
    sw.fail_at = 9;
    auto outcome = apply_plan(*plan, sw);
    CHECK(outcome.failed_step == 9u);
    CHECK(outcome.error == "injected failure");
    CHECK(outcome.undone == std::vector<size_t>{8, 7, 6, 5, 4, 3, 2, 1, 0});
    CHECK(sw.log.back() == "undo ~ sysctl net.ipv4.ip_forward 0 -> 1");
    CHECK(same_state(sw.state, before));
  }
  SECTION("a signal comes before step 4") {
    FakeSwitch sw(before);
    int asked = 0;
    auto outcome = apply_plan(*plan, sw, [&] { return ++asked == 4; });
    CHECK(outcome.interrupted);
    CHECK(outcome.failed_step == 3u);
    CHECK(outcome.undone == std::vector<size_t>{2, 1, 0});
    CHECK(same_state(sw.state, before));
  }
}

TEST_CASE("switch apply: a sysctl this kernel lacks", "[switch][apply]") {
  const SwitchSet set = the_set();
  SwitchState s = fresh();
  s.sysctls.erase("net.ipv6.conf.up1.ioam6_id");
  auto plan = plan_changes(set, s, 0);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().message == "this kernel has no sysctl net.ipv6.conf.up1.ioam6_id (the set needs it = 3)");
}

TEST_CASE("switch set: every switch's set config --all writes reads back, agreeing with its frr.conf",
          "[switch][apply][cli]") {
  namespace fs = std::filesystem;
  hpn::test::TempDir dir;
  REQUIRE(hpn::test::run_hpnctl("plan '" + hpn::test::source_path("examples/lab-2pod.yaml").string() + "' -q -o plan",
                                dir.path())
              .exit_code == 0);
  REQUIRE(hpn::test::run_hpnctl("config --all --blueprint plan -o configs", dir.path()).exit_code == 0);
  int switches = 0;
  for (const auto& entry : fs::directory_iterator(dir / "configs")) {
    if (!entry.is_directory()) continue;
    ++switches;
    const std::string name = entry.path().filename();
    auto set = read_switch_set(entry.path().string());
    INFO(name << ": " << (set ? "" : set.error().message));
    REQUIRE(set);
    CHECK(set->name == name);
    // frr.conf, written from the same model by another writer: its
    // interface blocks give every port the same addresses and admin state.
    std::istringstream frr(hpn::test::read_file(entry.path() / "frr.conf"));
    std::string line, current;
    std::map<std::string, std::vector<std::string>> addresses;
    std::set<std::string> shut, interfaces;
    for (std::string l; std::getline(frr, l);) {
      if (l.rfind("! Telemetry: IOAM node ID ", 0) == 0) CHECK(std::stoul(l.substr(26)) == set->node_id);
      if (l.rfind("interface ", 0) == 0) interfaces.insert(current = l.substr(10));
      if (l == "exit") current.clear();
      if (current.empty()) continue;
      for (const char* key : {" ip address ", " ipv6 address "}) {
        if (l.rfind(key, 0) == 0) addresses[current].push_back(l.substr(std::string(key).size()));
      }
      if (l == " shutdown") shut.insert(current);
    }
    std::set<std::string> ports;
    for (const auto& p : set->ports) {
      std::vector<std::string> have;
      for (const auto& a : p.addresses) have.push_back(a.text());
      CHECK(have == addresses[p.ifname]);
      ports.insert(p.ifname);
      if (!p.loopback()) {
        CHECK(p.up == (shut.count(p.ifname) == 0));
        CHECK(p.mtu > 0);
      }
    }
    CHECK(ports == interfaces);
  }
  CHECK(switches == 36);
}

TEST_CASE("switch apply: a set it cannot read is exit 2 at the line, before anything is read of the switch",
          "[switch][apply][cli]") {
  namespace fs = std::filesystem;
  hpn::test::TempDir dir;
  fs::create_directories(dir / "tor-a" / "networkd");
  for (const auto& f : networkd()) hpn::test::write_file(dir / "tor-a" / "networkd" / fs::path(f.name).filename(), f.text);
  hpn::test::write_file(dir / "tor-a" / "sysctl.conf", std::string(kSysctl) + "net.ipv4.ip_forward 1\n");
  auto bad = hpn::test::run_hpnctl("switch apply tor-a --dry-run", dir.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: tor-a/sysctl.conf:7:1: expected 'key = value'\nnet.ipv4.ip_forward 1\n^\n");
  CHECK(bad.out.empty());
  auto none = hpn::test::run_hpnctl("switch apply nowhere", dir.path());
  CHECK(none.exit_code == 2);
  CHECK(none.err == "hpnctl: nowhere: not a directory (a switch's set from hpnctl config --all)\n");
}
