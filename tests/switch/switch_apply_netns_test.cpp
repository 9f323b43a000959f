// `hpnctl switch apply` as root in a namespace of its own (prefix hpnW-)
// whose ports are veths named like one ToR's of the lab pod: the set
// config --all writes for that ToR applied, a second run changing nothing,
// a foreign address and another switch's set refused with nothing changed,
// and a failure at the last step rolled back to the exact prior state, each
// compared by `ip -j` dumps and the set's sysctls read from /proc/sys.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "switch/switch_apply.h"
#include "switch/switch_netlink.h"
#include "switch/switch_set.h"
#include "system/netns.h"
#include "test_util.h"
#include "support/schema.h"

namespace fs = std::filesystem;
using hpn::test::run_command;
using hpn::test::run_hpnctl;
using hpn::test::TempDir;

namespace {

constexpr const char* kTor = "tor-p0-s00-r1a";
constexpr const char* kOtherTor = "tor-p0-s00-r1b";

// The namespace (and its peer namespace), removed with everything in them.
struct Namespaces {
  std::string ns, peer;
  Namespaces() {
    ns = fmt::format("hpnW{}-{}", getpid(), kTor);
    peer = fmt::format("hpnW{}-peer", getpid());
    (void)hpn::lab::delete_named_netns(ns);
    (void)hpn::lab::delete_named_netns(peer);
  }
  ~Namespaces() {
    (void)hpn::lab::delete_named_netns(ns);
    (void)hpn::lab::delete_named_netns(peer);
  }
};

// What the namespace holds: its links and addresses as iproute2 dumps
// them, and every sysctl of the set. Without the qdisc: the kernel gives a
// link its default qdisc the first time it comes up ("noop" to "noqueue")
// and keeps it; no netlink call of switch apply sets or restores one.
std::string dump(const std::string& ns, const hpn::sw::SwitchSet& set) {
  std::string out;
  for (const char* what : {"link", "addr"}) {
    auto j = nlohmann::json::parse(run_command(fmt::format("ip -n {} -j {} show", ns, what)).out);
    for (auto& link : j) link.erase("qdisc");
    out += j.dump() + "\n";
  }
  std::string paths;
  for (const auto& s : set.sysctls) {
    std::string path = "/proc/sys/" + s.key;
    std::replace(path.begin() + 10, path.end(), '.', '/');
    paths += " " + path;
  }
  // One shell for them all: each key's path and value, or none if absent.
  return out + run_command(fmt::format("ip netns exec {} sh -c 'for p in{}; do echo \"$p=$(cat $p 2>/dev/null)\"; done'",
                                       ns, paths)).out;
}

// The real netlink steps, the one at `fail_at` failing as a kernel might.
class FailingOps final : public hpn::sw::SwitchOps {
 public:
  explicit FailingOps(size_t fail_at) : fail_at_(fail_at) {}
  hpn::Status apply(const hpn::sw::Change& c) override {
    if (calls_++ == fail_at_) return hpn::Error{"injected failure"};
    return real_.apply(c);
  }
  hpn::Status undo(const hpn::sw::Change& c) override { return real_.undo(c); }

 private:
  hpn::sw::NetlinkSwitchOps real_;
  size_t fail_at_, calls_ = 0;
};

}  // namespace

TEST_CASE("switch apply in a namespace: applies, changes nothing twice, refuses, rolls back exactly",
          "[switch][apply][netns]") {
  if (geteuid() != 0) hpn::test::skip("switch apply's namespace test needs root");
  if (run_command("command -v ip >/dev/null").exit_code != 0) hpn::test::skip("no ip(8)");
  // Planned once: Catch runs the test case again for each section.
  static TempDir dir;
  static const bool planned =
      run_hpnctl("plan " + hpn::test::lab_spec_arg() + " -q -o plan", dir.path()).exit_code == 0 &&
      run_hpnctl("config --all --blueprint plan -o configs", dir.path()).exit_code == 0;
  REQUIRE(planned);
  const fs::path set_dir = dir / "configs" / kTor;
  auto set = hpn::sw::read_switch_set(set_dir.string());
  INFO((set ? "" : set.error().message));
  REQUIRE(set);
  REQUIRE(set->ports.size() > 4);

  Namespaces n;
  REQUIRE(hpn::lab::create_named_netns(n.ns));
  REQUIRE(hpn::lab::create_named_netns(n.peer));
  std::string script = fmt::format("ip -n {} link set lo up\n", n.ns);
  int i = 0;
  for (const auto& p : set->ports) {
    if (p.loopback()) continue;
    script += fmt::format("ip link add {} netns {} type veth peer name q{} netns {}\n", p.ifname, n.ns, i++, n.peer);
  }
  REQUIRE(hpn::test::shell_ok(script));
  const std::string apply = fmt::format("switch apply '{}' --netns {}", set_dir.string(), n.ns);
  const std::string fresh = dump(n.ns, set.value());

  SECTION("dry run, apply, then nothing to change") {
    auto dry = run_hpnctl(apply + " --dry-run", dir.path());
    INFO(dry.err);
    REQUIRE(dry.exit_code == 0);
    CHECK(dry.out.find("(dry run: nothing is changed)") != std::string::npos);
    CHECK(dump(n.ns, set.value()) == fresh);

    auto first = run_hpnctl(apply, dir.path());
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    CHECK(first.out.find("applied ") != std::string::npos);
    // What the set says is there: the node ID, a host port's gateway MAC,
    // MTU and addresses, the loopback.
    const hpn::sw::SetPort* host_port = nullptr;
    for (const auto& p : set->ports) {
      if (!p.mac.empty() && host_port == nullptr) host_port = &p;
    }
    REQUIRE(host_port != nullptr);
    REQUIRE(host_port->addresses.size() == 2);
    auto link = nlohmann::json::parse(run_command(fmt::format("ip -n {} -j addr show dev {}", n.ns, host_port->ifname)).out);
    CHECK(link[0]["address"] == host_port->mac);
    CHECK(link[0]["mtu"] == host_port->mtu);
    std::set<std::string> have;
    for (const auto& a : link[0]["addr_info"]) have.insert(fmt::format("{}/{}", a["local"].get<std::string>(), a["prefixlen"].get<int>()));
    for (const auto& a : host_port->addresses) CHECK(have.count(a.text()) == 1);
    CHECK(run_command(fmt::format("ip netns exec {} cat /proc/sys/net/ipv6/ioam6_id", n.ns)).out ==
          std::to_string(set->node_id) + "\n");
    const std::string applied = dump(n.ns, set.value());

    auto second = run_hpnctl(apply + " --format json", dir.path());
    INFO(second.err);
    REQUIRE(second.exit_code == 0);
    auto j = nlohmann::json::parse(second.out);
    CHECK(j["result"] == "unchanged");
    CHECK(j["changes"].empty());
    CHECK(j["switch"] == kTor);
    CHECK(hpn::test::schema_errors_of_text("switch-apply.schema.json", second.out) == "");
    CHECK(run_hpnctl(apply, dir.path()).out == fmt::format("{} (namespace {}): nothing to change (0 changes)\n", kTor, n.ns));
    CHECK(dump(n.ns, set.value()) == applied);

    // A port of the set gone: another switch's ports, refused.
    const std::string gone = set->ports.back().ifname;
    REQUIRE(run_command(fmt::format("ip -n {} link del {}", n.ns, gone)).exit_code == 0);
    const std::string without = dump(n.ns, set.value());
    auto missing = run_hpnctl(apply, dir.path());
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find(fmt::format("port {} of the set does not exist here", gone)) != std::string::npos);
    CHECK(dump(n.ns, set.value()) == without);
  }

  SECTION("a foreign address on a fabric port is refused, nothing changed") {
    const std::string port = set->ports[1].ifname;
    REQUIRE(run_command(fmt::format("ip -n {} addr add 192.0.2.9/24 dev {}", n.ns, port)).exit_code == 0);
    const std::string before = dump(n.ns, set.value());
    auto r = run_hpnctl(apply, dir.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(fmt::format("fabric port {} carries 192.0.2.9/24, which the set does not give it", port)) !=
          std::string::npos);
    CHECK(r.out.empty());
    CHECK(dump(n.ns, set.value()) == before);
  }

  SECTION("another switch's set is refused, nothing changed") {
    auto r = run_hpnctl(fmt::format("switch apply '{}' --netns {}", (dir / "configs" / kOtherTor).string(), n.ns),
                        dir.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(fmt::format("the set is for {}, and namespace {} is neither named", kOtherTor, n.ns)) !=
          std::string::npos);
    CHECK(dump(n.ns, set.value()) == fresh);
  }

  SECTION("a failure at the last step rolls every step back to the exact prior state") {
    hpn::sw::ApplyOutcome outcome;
    size_t steps = 0;
    auto ran = hpn::lab::run_in_netns(n.ns, [&]() -> hpn::Status {
      auto state = hpn::sw::read_switch_state(hpn::sw::sysctl_keys(set.value()));
      if (!state) return state.error();
      auto plan = hpn::sw::plan_changes(set.value(), state.value(), 0);
      if (!plan) return plan.error();
      steps = plan->changes.size();
      FailingOps ops(steps - 1);
      outcome = hpn::sw::apply_plan(plan.value(), ops);
      return {};
    });
    REQUIRE(ran);
    REQUIRE(steps > 10);
    CHECK(outcome.failed_step == steps - 1);
    CHECK(outcome.undone.size() == steps - 1);
    CHECK(outcome.undo_errors.empty());
    CHECK(dump(n.ns, set.value()) == fresh);
  }
}
