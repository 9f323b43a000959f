// `lab down` after a SIGKILLed `lab up` (root): no namespace with the lab's
// prefix and no interface of ours remains.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "running_lab.h"

using namespace hpn;
using namespace hpn::lab;
using namespace hpn::test;
using hpn::test::lab_pod;

TEST_CASE("dataplane/lab (root): lab down after a SIGKILLed lab up leaves nothing behind",
          "[dataplane][lab][root]") {
  require_lab();
  TempDir dir;
  const std::string state_path = (dir / "lab.json").string();
  const auto interfaces_before = root_interfaces();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    NetlinkOps ops;
    LabUpRequest r;
    r.blueprint = &lab_pod();
    r.blueprint_path = "examples/lab-pod.yaml";
    r.wiring = planned_wiring(lab_pod());
    r.state_path = state_path;
    r.agent_binary = HPNCTL_BINARY;
    _exit(lab_up(r, ops) ? 0 : 1);
  }
  // Kill it once it is linking: namespaces made, veth pairs half done.
  std::string phase, prefix;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto s = LabStateFile(state_path).load();
    if (s && s->has_value()) {
      phase = (*s)->phase;
      prefix = (*s)->prefix;
      if (phase != "creating") break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(!prefix.empty());
  if (phase == "up") WARN("lab up finished before it could be killed; checking lab down anyway");
  CHECK(WIFSIGNALED(status));
  INFO("killed in phase " << phase);
  CHECK(!namespaces_with(prefix).empty());

  NetlinkOps ops;
  auto down = lab_down(state_path, ops);
  REQUIRE(down);
  CHECK(down->had_lab);
  CHECK(down->namespaces_removed > 0);
  CHECK(namespaces_with(prefix).empty());
  CHECK(root_interfaces() == interfaces_before);
  CHECK_FALSE(std::filesystem::exists(state_path));
}
