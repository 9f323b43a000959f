// The ToR host-route agent as shipped (hpnctl switch agent), in a lab ToR:
// run as its systemd unit's ExecStart line runs it, on the file `config
// --all` writes for that ToR, then killed and restarted while hosts keep
// talking through the ToR. No host route of the ToR is withdrawn at any
// moment (`ip monitor route`), the table holds the same routes before and
// after (`ip -j route show table 254 proto 80`), and probes through the ToR
// arrive throughout.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <sstream>

#include "running_lab.h"
#include "../switch/switch_agent_fixture.h"
#include "switchconfig/agent_config.h"

using namespace hpn;
using namespace hpn::lab;
using namespace hpn::test;

TEST_CASE("dataplane/lab (root): the ToR agent run as its unit, killed and restarted, withdraws no host route "
          "while hosts stay reachable",
          "[dataplane][lab][root][frr][agent]") {
  require_lab();
  const std::string csv = cabling_csv(lab_pod());
  auto wiring = parse_wiring(csv, "planned.csv", lab_pod());
  REQUIRE(wiring);
  RunningLab lab(wiring.value());
  const auto wires = wires_of(csv);
  const std::string tor = "tor-p0-s00-r1a", ns = lab.netns(tor);

  // The file the lab started this ToR's agent on is the one `config --all
  // --bring-up` (what the lab runs) writes for it.
  auto builder = switchconfig::ConfigBuilder::create(lab_pod(), {.bring_up = true});
  REQUIRE(builder);
  auto agent_config = switchconfig::agent_config(builder->build(builder->find(tor)));
  REQUIRE(agent_config);
  const std::string config = lab.state.routing_dir + "/" + tor + "/switch-agent.json";
  CHECK(read_file(config) == switchconfig::write_agent_config(agent_config.value()));

  const auto before = routes(ns, 254, 80);
  REQUIRE(before.size() >= 2);  // its hosts' /32 and /128
  // Hosts behind this ToR and behind another segment's: the probes cross it.
  const std::vector<Flow> flows = {{"host-p0-s01-h001", "host-p0-s00-h000", 1},
                                   {"host-p0-s00-h000", "host-p0-s01-h001", 1}};
  auto reachable = [&](std::uint16_t first) { (void)probe_flows(lab, wires, flows, ports_from(first, 8)); };
  reachable(43000);

  // The agent lab up started on this ToR (the one whose command line names
  // its file) is killed outright; its routes stay.
  RouteMonitor monitor(ns);
  int lab_agent = 0;
  for (const int pid : lab.state.agent_pids) {
    if (read_file("/proc/" + std::to_string(pid) + "/cmdline").find(config) != std::string::npos) lab_agent = pid;
  }
  REQUIRE(lab_agent > 0);
  kill(lab_agent, SIGKILL);
  waitpid(lab_agent, nullptr, 0);
  CHECK(routes(ns, 254, 80) == before);
  reachable(43050);

  AgentProcess agent;
  REQUIRE(agent.start(ns, config, lab.dir.path()));
  const std::string hosts = fmt::format("STATUS=routing {} hosts", before.size());
  CHECK(agent.wait_for("READY=1").find(hosts) != std::string::npos);
  CHECK(routes(ns, 254, 80) == before);
  reachable(43100);

  // Killed (no chance to clean up), then started again as systemd's
  // Restart=on-failure would.
  agent.stop(SIGKILL);
  CHECK(routes(ns, 254, 80) == before);
  reachable(43200);
  REQUIRE(agent.start(ns, config, lab.dir.path()));
  CHECK(agent.wait_for("READY=1").find(hosts) != std::string::npos);
  CHECK(routes(ns, 254, 80) == before);
  reachable(43300);
  agent.stop(SIGTERM);
  CHECK(agent.exit_code() == 0);
  CHECK(routes(ns, 254, 80) == before);

  // Not one withdrawal, not even for a moment, across both restarts.
  const std::string seen = monitor.stop();
  INFO(seen);
  std::istringstream lines(seen);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("Deleted ")) continue;
    const std::string dst = line.substr(8, line.find(' ', 8) - 8);
    for (const auto& r : before) CHECK_FALSE(r.starts_with(dst + "/"));
  }
  INFO(agent.log());
  CHECK(agent.log().find("del ") == std::string::npos);
}
