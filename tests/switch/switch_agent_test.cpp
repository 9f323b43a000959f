// `hpnctl switch agent` for real (root), without a lab: a namespace standing
// in for a ToR with host-facing veth ports p1 and p2, their peers in a
// namespace standing in for the hosts. The agent runs as its unit's
// ExecStart line runs it (deploy/systemd/hpnctl-switch-agent.service), with
// $NOTIFY_SOCKET pointing at the test, and is judged by what the kernel
// holds afterwards (`ip -j route`, `ip monitor route`), never by its log
// alone.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "system/netns.h"
#include "switch_agent_fixture.h"
#include "test_util.h"

namespace {

using namespace hpn::test;
using nlohmann::json;

// ToR "hpnS-<pid>-<n>-tor" with p1 (hosts 10.0.0.5, 10.0.0.200, fd00::5)
// and p2 (host 10.0.1.7), the hosts' side in "hpnS-<pid>-<n>-hosts".
class AgentBench {
 public:
  AgentBench() {
    static std::atomic<int> counter{0};
    const std::string prefix = fmt::format("hpnS-{}-{}-", getpid(), counter++);
    tor = prefix + "tor";
    hosts = prefix + "hosts";
    const std::string script = fmt::format(R"(
ip netns add {0} && ip netns add {1}
ip -n {0} link set lo up && ip -n {1} link set lo up
ip link add p1 netns {0} type veth peer name h1 netns {1}
ip link add p2 netns {0} type veth peer name h2 netns {1}
ip -n {0} addr add 10.0.0.1/24 dev p1 && ip -n {0} addr add fd00::1/64 dev p1 nodad
ip -n {0} addr add 10.0.1.1/24 dev p2
ip -n {1} addr add 10.0.0.5/24 dev h1 && ip -n {1} addr add 10.0.0.200/24 dev h1
ip -n {1} addr add fd00::5/64 dev h1 nodad && ip -n {1} addr add 10.0.1.7/24 dev h2
for l in p1 p2; do ip -n {0} link set $l up; done
for l in h1 h2; do ip -n {1} link set $l up; done
)", tor, hosts);
    ok = shell_ok(script);
    config = (dir / "switch-agent.json").string();
    write_file(config, R"({"format": "hpnctl-switch-agent", "format_version": 1, "switch": "tor-test",
      "ports": ["p1", "p2", "nosuch0"], "prefixes": ["10.0.0.0/25", "10.0.1.0/24", "fd00::/64"],
      "table": 254, "protocol": 80})");
  }
  ~AgentBench() {
    agent.stop(SIGKILL);
    (void)std::system(fmt::format("ip netns del {} 2>/dev/null; ip netns del {} 2>/dev/null", tor, hosts).c_str());
  }

  // The hosts announce themselves, as `hpnctl host announce` makes them:
  // the ToR holds each as a STALE neighbour with its MAC, which the agent
  // must confirm (a unicast solicitation the host answers) before routing.
  void hear(const std::string& address, const std::string& host_port, const std::string& tor_port) const {
    const auto link = nlohmann::json::parse(run_command(fmt::format("ip -n {} -j link show {}", hosts, host_port)).out);
    REQUIRE(link.size() == 1);
    REQUIRE(shell_ok(fmt::format("ip -n {} neigh replace {} lladdr {} dev {} nud stale", tor, address,
                                 link[0].at("address").get<std::string>(), tor_port)));
  }
  void hear_hosts() const {
    hear("10.0.0.5", "h1", "p1");
    hear("10.0.0.200", "h1", "p1");
    hear("10.0.1.7", "h2", "p2");
    hear("fd00::5", "h1", "p1");
  }

  TempDir dir;
  std::string tor, hosts, config;
  bool ok = false;
  AgentProcess agent;
};

bool possible() {
  if (geteuid() != 0) skip("the agent test needs root (network namespaces, veth pairs)");
  return true;
}

}  // namespace

TEST_CASE("switch agent: reachable hosts become /32 and /128 routes, others are refused, a missing port is logged",
          "[dataplane][agent][root]") {
  possible();
  AgentBench b;
  REQUIRE(b.ok);
  REQUIRE(b.agent.start(b.tor, b.config, b.dir.path()));
  const std::string ready = b.agent.wait_for("READY=1");
  CHECK(ready.find("STATUS=routing 0 hosts (0 IPv4, 0 IPv6) on 2 ports; 1 configured port missing") !=
        std::string::npos);
  b.hear_hosts();
  const std::set<std::string> want = {"10.0.0.5/32 dev p1", "10.0.1.7/32 dev p2", "fd00::5/128 dev p1"};
  CHECK(wait_for_routes(b.tor, 254, 80, want) == want);
  CHECK(b.agent.wait_for("STATUS=routing 3 hosts (2 IPv4, 1 IPv6) on 2 ports; 1 configured port missing") != "");
  // The host outside the prefixes: refused, logged, never routed.
  const std::string log = b.agent.log();
  CHECK(log.find("port nosuch0: no such interface; routing the other ports") != std::string::npos);
  CHECK(log.find("refused 10.0.0.200 on p1: outside the accepted prefixes (10.0.0.0/25, 10.0.1.0/24, fd00::/64)") !=
        std::string::npos);
  CHECK(log.find("add 10.0.0.5/32 dev p1") != std::string::npos);
  CHECK(routes(b.tor, 254, 80).count("10.0.0.200/32 dev p1") == 0);

  // Carrier loss on p2 (the host's end goes down) withdraws its host.
  REQUIRE(shell_ok(fmt::format("ip -n {} link set h2 down", b.hosts)));
  const std::set<std::string> without_p2 = {"10.0.0.5/32 dev p1", "fd00::5/128 dev p1"};
  CHECK(wait_for_routes(b.tor, 254, 80, without_p2) == without_p2);
  CHECK(b.agent.wait_for("STATUS=routing 2 hosts (1 IPv4, 1 IPv6)") != "");

  // The missing port appears: watched from then on.
  REQUIRE(shell_ok(fmt::format("ip netns exec {0} ip link add nosuch0 type veth peer name h3 && "
                               "ip -n {0} link set h3 netns {1} && ip -n {0} link set nosuch0 up && "
                               "ip -n {0} addr add 10.0.1.129/25 dev nosuch0 && "
                               "ip -n {1} addr add 10.0.1.130/25 dev h3 && ip -n {1} link set h3 up",
                               b.tor, b.hosts)));
  b.hear("10.0.1.130", "h3", "nosuch0");
  const std::set<std::string> with_new = {"10.0.0.5/32 dev p1", "fd00::5/128 dev p1", "10.0.1.130/32 dev nosuch0"};
  CHECK(wait_for_routes(b.tor, 254, 80, with_new) == with_new);
  CHECK(b.agent.log().find("port nosuch0: appeared; watching it") != std::string::npos);
  b.agent.stop(SIGTERM);
  CHECK(b.agent.exit_code() == 0);
  // Stopped, it leaves its routes.
  CHECK(routes(b.tor, 254, 80) == with_new);
}

TEST_CASE("switch agent: a restart keeps every route still valid and withdraws only the invalid ones",
          "[dataplane][agent][root]") {
  possible();
  AgentBench b;
  REQUIRE(b.ok);
  REQUIRE(b.agent.start(b.tor, b.config, b.dir.path()));
  REQUIRE(b.agent.wait_for("READY=1") != "");
  b.hear_hosts();
  const std::set<std::string> all = {"10.0.0.5/32 dev p1", "10.0.1.7/32 dev p2", "fd00::5/128 dev p1"};
  REQUIRE(wait_for_routes(b.tor, 254, 80, all) == all);

  RouteMonitor monitor(b.tor);
  b.agent.stop(SIGKILL);
  CHECK(routes(b.tor, 254, 80) == all);
  // While it is down: p2's host loses carrier; the kernel forgets
  // 10.0.0.5's neighbour entry (the host is still there); routes of the
  // agent's protocol appear to an address outside the prefixes and to an
  // address no host answers for.
  REQUIRE(shell_ok(fmt::format("ip -n {0} link set h2 down && ip -n {1} neigh del 10.0.0.5 dev p1 && "
                               "ip -n {1} route add 192.168.5.5/32 dev p1 proto 80 && "
                               "ip -n {1} route add 10.0.0.99/32 dev p1 proto 80",
                               b.hosts, b.tor)));
  // The kernel's linkwatch reports p2's carrier loss asynchronously (up
  // to a second later under load): the agent must start after it, as the
  // case it tests is a port already without carrier at start.
  REQUIRE(shell_ok(fmt::format("for i in $(seq 100); do ip -n {} link show p2 | grep -q NO-CARRIER && exit 0; "
                               "sleep 0.05; done; exit 1",
                               b.tor)));

  REQUIRE(b.agent.start(b.tor, b.config, b.dir.path()));
  const std::string ready = b.agent.wait_for("READY=1");
  REQUIRE(ready != "");
  // Settled before READY: outside the prefixes and the port without
  // carrier are gone; 10.0.0.99 is kept while it is asked.
  auto now = routes(b.tor, 254, 80);
  CHECK(now.count("192.168.5.5/32 dev p1") == 0);
  CHECK(now.count("10.0.1.7/32 dev p2") == 0);
  CHECK(now.count("10.0.0.5/32 dev p1") == 1);
  CHECK(now.count("fd00::5/128 dev p1") == 1);
  // Nobody answers for 10.0.0.99: FAILED withdraws it.
  const std::set<std::string> valid = {"10.0.0.5/32 dev p1", "fd00::5/128 dev p1"};
  CHECK(wait_for_routes(b.tor, 254, 80, valid, std::chrono::seconds(15)) == valid);
  // The forgotten neighbour was resolved again.
  const auto neigh = json::parse(run_command(fmt::format("ip -n {} -j neigh show 10.0.0.5 dev p1", b.tor)).out);
  REQUIRE(neigh.size() == 1);
  CHECK(neigh[0].value("lladdr", "") != "");

  // Across the kill and the restart, no route to a host that stayed was
  // withdrawn, not even for a moment.
  const std::string deleted = monitor.stop();
  CHECK(deleted.find("Deleted 10.0.0.5 ") == std::string::npos);
  CHECK(deleted.find("Deleted fd00::5 ") == std::string::npos);
  CHECK(deleted.find("Deleted 192.168.5.5 ") != std::string::npos);
  const std::string log = b.agent.log();
  CHECK(log.find("192.168.5.5/32 dev p1: outside the accepted prefixes; withdrawing it") != std::string::npos);
  CHECK(log.find("10.0.1.7/32 dev p2: no carrier; withdrawing it") != std::string::npos);
  CHECK(log.find("del 10.0.0.99/32 dev p1") != std::string::npos);
}

TEST_CASE("switch agent: a bad configuration is refused before anything is touched, exit 2", "[dataplane][agent]") {
  TempDir dir;
  write_file(dir / "a.json", R"({"format": "hpnctl-switch-agent", "format_version": 1, "switch": "t",
    "ports": ["p1"], "prefixes": ["10.0.0.1/24"], "table": 254, "protocol": 80})");
  auto r = run_hpnctl("switch agent --config a.json", dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: a.json: key 'prefixes': '10.0.0.1/24' is not a prefix: bits set past the length\n");
  auto missing = run_hpnctl("switch agent --config none.json", dir.path());
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "hpnctl: none.json: no such file\n");
}
