// `hpnctl lab` end to end: located wiring errors and exit 2 before anything
// is made, exit 3 without root, and (as root, when no lab of the machine's
// own is up) up, status, a refused second up, down.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "lab/lab_state.h"
#include "test_util.h"

using namespace hpn;

namespace {

// A planned lab pod in a fresh directory, as `hpnctl plan` writes it.
struct PlannedLab {
  test::TempDir dir;
  PlannedLab() {
    const auto r = test::run_hpnctl(
        "plan '" + test::source_path("examples/lab-pod.yaml").string() + "' -o plan -q", dir.path());
    REQUIRE(r.exit_code == 0);
  }
};

}  // namespace

TEST_CASE("dataplane/cli: a bad wiring file is refused with every bad line, exit 2",
          "[dataplane][cli]") {
  PlannedLab plan;
  test::write_file(plan.dir / "wiring.csv",
                   "cable_id,a_device,a_port,z_device,z_port,fault\n"
                   "C1,host-p0-s00-h000,nic1p1,tor-p0-s00-r1a,etp1a,\n"
                   "C2,x,etp5,agg-p0-1-00,etp1,\n"
                   "C3,tor-p0-s00-r1a,etp6,agg-p0-1-01,etp1,loss-a-z:0\n");
  const auto r = test::run_hpnctl("lab up --blueprint plan --wiring wiring.csv", plan.dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "hpnctl: wiring.csv:3: unknown device 'x'\n"
        "wiring.csv:4: fault 'loss-a-z:0': expected down, drop-a-z, drop-z-a, loss-a-z:N, loss-z-a:N (N in 1..100), "
        "ioam-off-a, ioam-off-z, icmp-off-a or icmp-off-z\n");
  CHECK(r.out.empty());
}

TEST_CASE("dataplane/cli: bad arguments exit 2, missing privileges 3", "[dataplane][cli]") {
  PlannedLab plan;
  auto r = test::run_hpnctl("lab up --blueprint nowhere", plan.dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.starts_with("hpnctl: "));
  r = test::run_hpnctl("lab up --blueprint plan --wiring missing.csv", plan.dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: missing.csv: no such file\n");
  r = test::run_hpnctl("lab status --format yaml", plan.dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --format must be table or json\n");
  r = test::run_hpnctl("lab", plan.dir.path());
  CHECK(r.exit_code == 2);
  {
    // A record that is not an absolute, normal .json path: refused before
    // privileges, in every lab command. The test's own record comes back.
    const char* slot = std::getenv(hpn::lab::kLabStateVariable);
    const std::string kept = slot ? slot : "";
    for (const char* bad : {"lab.json", "/run/hpnctl/../lab.json", "/run/hpnctl/lab"}) {
      INFO(bad);
      REQUIRE(setenv(hpn::lab::kLabStateVariable, bad, 1) == 0);
      for (const char* args : {"lab status", "lab down", "lab up --blueprint plan"}) {
        INFO(args);
        r = test::run_hpnctl(args, plan.dir.path());
        CHECK(r.exit_code == 2);
        CHECK(r.err == fmt::format("hpnctl: {}='{}': expected an absolute, normal path to a .json file\n",
                                   hpn::lab::kLabStateVariable, bad));
      }
    }
    if (slot) {
      setenv(hpn::lab::kLabStateVariable, kept.c_str(), 1);
    } else {
      unsetenv(hpn::lab::kLabStateVariable);
    }
  }
  if (geteuid() != 0 || std::system("command -v setpriv >/dev/null 2>&1") != 0) {
    hpn::test::skip("exit 3 without root (needs root to drop it, and setpriv)");
  }
  std::filesystem::permissions(plan.dir.path(), std::filesystem::perms::all);
  test::write_file(plan.dir / "bad.csv", "a_device,a_port,z_device,z_port\nx,y,z,w\n");
  auto as_nobody = [&](const std::string& args) {
    const std::string command = "cd '" + plan.dir.path().string() +
                                "' && setpriv --reuid=65534 --regid=65534 --clear-groups '" HPNCTL_BINARY "' " +
                                args + " >/dev/null 2>&1; echo $?";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buf[16] = "";
    REQUIRE(std::fgets(buf, sizeof buf, pipe) != nullptr);
    pclose(pipe);
    return std::string(buf);
  };
  CHECK(as_nobody("lab up --blueprint plan") == "3\n");
  CHECK(as_nobody("lab down") == "3\n");
  // The wiring is checked before privileges, i.e. before anything is made.
  CHECK(as_nobody("lab up --blueprint plan --wiring bad.csv") == "2\n");
}

TEST_CASE("dataplane/cli (root): lab up, status, a second up refused, down", "[dataplane][cli][root]") {
  if (geteuid() != 0) {
    hpn::test::skip("the lab needs root");
  }
  const std::string record = lab::lab_state_path().value();
  if (std::filesystem::exists(record)) {
    hpn::test::skip("a lab of this machine is up (" + record + "); not touching it");
  }
  PlannedLab plan;
  auto r = test::run_hpnctl("lab up --blueprint plan", plan.dir.path());
  REQUIRE(r.exit_code == 0);
  // 36 devices, and the far ends of the switches' ports without a cable.
  CHECK(r.out.find("is up: 37 namespaces") != std::string::npos);

  auto again = test::run_hpnctl("lab up --blueprint plan", plan.dir.path());
  CHECK(again.exit_code == 3);
  CHECK(again.err.starts_with("hpnctl: lab up: a lab is already up (lab "));

  auto status = test::run_hpnctl("lab status --format json", plan.dir.path());
  CHECK(status.exit_code == 0);
  const auto json = nlohmann::json::parse(status.out);
  CHECK(json["phase"] == "up");
  CHECK(json["blueprint"] == std::filesystem::canonical(plan.dir / "plan").string());
  CHECK(json["devices"].size() == 36);
  auto text = test::run_hpnctl("lab status", plan.dir.path());
  CHECK(text.exit_code == 0);
  CHECK(text.out.starts_with("lab " + json["lab"].get<std::string>() + " (up): 36 devices from "));
  // Each switch's sessions, from its bgpd: both ends of the 48 switch cables up.
  int established = 0;
  for (const auto& d : json["devices"]) {
    for (const auto& s : d["sessions"]) established += s["established"].get<bool>() ? 1 : 0;
  }
  CHECK(established == 96);
  CHECK(text.out.find("switch") != std::string::npos);
  const std::string prefix = json["prefix"];
  // "[h]pn-": a pattern pgrep's own shell does not match.
  auto daemons = [&] { return test::run_command("pgrep -f -c -- '-N [h]" + prefix.substr(1) + "' || true").out; };
  CHECK(daemons() == "40\n");  // zebra and bgpd on each of the 20 switches (no active core rule: no pbrd)
  // The lab's own agent (another lab may be up beside this one, with its own).
  auto recorded = lab::LabStateFile(record).load();
  REQUIRE(recorded.ok());
  REQUIRE(recorded->has_value());
  // One per ToR, each `hpnctl switch agent --config .../switch-agent.json`.
  const std::vector<int> agent_pids = (**recorded).agent_pids;
  REQUIRE(agent_pids.size() == 8);
  auto agent = [&] {
    int running = 0;
    for (const int pid : agent_pids) {
      std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
      std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      running += args.find(std::string("switch\0agent\0--config\0", 22)) != std::string::npos ? 1 : 0;
    }
    return running;
  };
  CHECK(agent() == 8);

  auto down = test::run_hpnctl("lab down", plan.dir.path());
  CHECK(down.exit_code == 0);
  CHECK(down.out == "lab " + json["lab"].get<std::string>() + " is down: 37 namespaces removed\n");
  // Every daemon it started is gone (given a moment to be reaped), and FRR's files.
  std::string left;
  for (int i = 0; i < 50 && (left = daemons()) != "0\n"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(left == "0\n");
  CHECK(agent() == 0);
  CHECK_FALSE(std::filesystem::exists("/run/hpnctl/frr-" + json["lab"].get<std::string>()));
  auto none = test::run_hpnctl("lab status", plan.dir.path());
  CHECK(none.exit_code == 3);
  CHECK(none.err == std::string("hpnctl: no lab is up (no record at ") + record + ")\n");
}
