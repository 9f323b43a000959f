// The exit-code contract, row by row: hpnctl(1)'s EXIT STATUS "By command"
// lists each command's codes, and this test runs every (command, code) of
// it, each with a case that must give that code. The few that need a lab
// up are named with the tests that give them.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using hpn::test::TempDir;

struct Case {
  std::string command;  // the row of hpnctl(1)
  int code;
  std::string args;     // after `hpnctl`, run in the test's directory
  bool as_nobody = false;  // run without root (setpriv to nobody)
};

// Codes given by other tests, which need a lab up or a host's real ports.
const std::map<std::pair<std::string, int>, std::string> kElsewhere = {
    {{"lab up", 0}, "dataplane/cli (root): lab up, status, a second up refused, down"},
    {{"lab down", 0}, "dataplane/cli (root): lab up, status, a second up refused, down"},
    {{"lab status", 0}, "dataplane/cli (root): lab up, status, a second up refused, down"},
    {{"lab ping", 0}, "verify/lab: lab ping shows one probe's hops by the blueprint's names"},
    {{"host announce", 0}, "host announce: one gratuitous ARP and one NA arrive on each member's peer"},
    {{"switch agent", 0}, "switch agent: reachable hosts become /32 and /128 routes, others are refused, ..."},
    {{"switch apply", 0}, "switch apply in a namespace: applies, changes nothing twice, refuses, rolls back exactly"},
};

// The rows of hpnctl(1)'s "By command": command -> the codes its line lists.
std::map<std::string, std::set<int>> man_rows() {
  const std::string page = hpn::test::read_file(hpn::test::source_path("man/hpnctl.1"));
  const size_t from = page.find(".SS By command");
  REQUIRE(from != std::string::npos);
  const size_t to = page.find(".SH", from);
  std::istringstream in(page.substr(from, to - from));
  std::map<std::string, std::set<int>> rows;
  std::string line, command, text;
  auto flush = [&] {
    if (command.empty()) return;
    static const std::regex code(R"((?:^|; )([0-3]) )");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), code); it != std::sregex_iterator(); ++it) {
      rows[command].insert(std::stoi((*it)[1]));
    }
  };
  bool name_next = false;
  while (std::getline(in, line)) {
    if (line == ".TP") {
      flush();
      command.clear();
      text.clear();
      name_next = true;
    } else if (name_next) {
      command = line.substr(line.find(' ') + 1);  // ".B lab up"
      name_next = false;
    } else if (!command.empty()) {
      text += (text.empty() ? "" : " ") + line;
    }
  }
  flush();
  return rows;
}

int run(const TempDir& dir, const Case& c) {
  const std::string prefix = c.as_nobody ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const std::string command =
      fmt::format("cd '{}' && {}'{}' {} >/dev/null 2>&1; echo $?", dir.path().string(), prefix, HPNCTL_BINARY, c.args);
  auto r = hpn::test::run_command(command);
  return std::stoi(r.out);
}

}  // namespace

TEST_CASE("cli/exit codes: every row of hpnctl(1)'s table, each code given by a case", "[cli][exit]") {
  if (geteuid() != 0 || std::system("command -v setpriv >/dev/null 2>&1") != 0) {
    hpn::test::skip("the exit codes of privileged commands need root to drop it (setpriv)");
  }
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  const std::string lab_spec = hpn::test::source_path("examples/lab-pod.yaml").string();
  REQUIRE(hpn::test::run_hpnctl("plan '" + lab_spec + "' -q -o plan", dir.path()).exit_code == 0);
  std::filesystem::permissions(dir / "plan", std::filesystem::perms::all, std::filesystem::perm_options::add);
  hpn::test::write_file(dir / "bad.yaml", "pod: [\n");
  // The lab pod with longer slack: the same fabric, other cable lengths.
  hpn::test::write_file(dir / "slack.yaml", hpn::test::read_file(lab_spec) + "media:\n  slack_m: 5\n");
  hpn::test::write_file(dir / "agent.json", R"({"format": "hpnctl-switch-agent", "format_version": 1,
    "switch": "t", "ports": ["lo"], "prefixes": ["10.0.0.0/8"], "table": 254, "protocol": 80})");
  hpn::test::write_file(dir / "bad.csv", "a_device,a_port,z_device,z_port\nx,y,z,w\n");
  REQUIRE(hpn::test::run_hpnctl("profile host-p0-s00-h000 --blueprint plan", dir.path()).exit_code == 0);
  REQUIRE(hpn::test::run_hpnctl("config --all --blueprint plan -o sets", dir.path()).exit_code == 0);
  hpn::test::write_file(dir / "h0.json", hpn::test::run_hpnctl("profile host-p0-s00-h000 --blueprint plan", dir.path()).out);
  std::string dumps;
  for (const auto& e : std::filesystem::directory_iterator(hpn::test::source_path("tests/data/lldp/planned"))) {
    if (e.path().extension() == ".json") dumps += " '" + e.path().string() + "'";
  }
  const std::string swap = hpn::test::source_path("tests/data/lldp/swap").string();
  // A namespace named for the profile's host, with its four ports: host apply for real.
  const std::string ns = fmt::format("hpnE-{}-host-p0-s00-h000", getpid());
  std::string make = "ip netns add " + ns;
  for (const char* port : {"nic1p1", "nic1p2", "nic2p1", "nic2p2"}) {
    make += fmt::format(" && ip -n {0} link add {1} type veth peer name t-{1}", ns, port);
  }
  REQUIRE(std::system(make.c_str()) == 0);
  struct Cleanup {
    std::string ns;
    ~Cleanup() { std::system(("ip netns del " + ns + " 2>/dev/null").c_str()); }
  } cleanup{ns};

  const std::vector<Case> cases = {
      {"plan", 0, "plan '" + lab_spec + "' -q -o again"},
      {"plan", 0, "plan '" + lab_spec + "' -q --diff plan"},
      {"plan", 1, "plan slack.yaml -q --diff plan"},
      {"plan", 2, "plan bad.yaml -q -o x"},
      {"plan", 3, "plan -q -o /proc/hpnctl-plan"},
      {"spec", 0, "spec check '" + lab_spec + "'"},
      {"spec", 2, "spec check bad.yaml"},
      {"devices", 0, "devices --blueprint plan"},
      {"devices", 2, "devices --blueprint plan --role spine"},
      {"cables", 0, "cables --blueprint plan --rack H0-R00-03"},
      {"cables", 2, "cables --blueprint plan --rack nowhere"},
      {"cable", 0, "cable host-p0-s00-h000:nic1p1 --blueprint plan"},
      {"cable", 2, "cable no-such-host --blueprint plan"},
      {"impact", 0, "impact host-p0-s00-h000:nic1p1 --blueprint plan"},
      {"impact", 1, "impact tor-p0-s00-r1a tor-p0-s00-r1b --blueprint plan"},
      {"impact", 2, "impact no-such-host --blueprint plan"},
      {"export", 0, "export ptm --blueprint plan -o topo.dot"},
      {"export", 2, "export nothing --blueprint plan"},
      {"export", 3, "export ptm --blueprint plan -o /proc/hpnctl.dot"},
      {"profile", 0, "profile host-p0-s00-h000 --blueprint plan"},
      {"profile", 2, "profile no-such-host --blueprint plan"},
      {"profile", 3, "profile --all --blueprint plan -o /proc/hpnctl-profiles"},
      {"config", 0, "config tor-p0-s00-r1a --blueprint plan"},
      {"config", 2, "config no-such-switch --blueprint plan"},
      {"config", 3, "config --all --blueprint plan -o /proc/hpnctl-configs"},
      {"verify", 0, "verify --blueprint plan --lldp" + dumps},
      {"verify", 1, "verify --blueprint plan --lldp '" + swap + "/host-p0-s00-h000.json' '" + swap +
                        "/host-p0-s00-h001.json' tor-p0-s00-r1a='" + swap + "/tor-p0-s00-r1a.json'"},
      {"verify", 2, "verify --blueprint plan bad.yaml"},
      {"verify", 2, "verify --blueprint plan --wiring bad.csv --lldp" + dumps},
      {"verify", 3, "verify --blueprint plan --lab", true},
      {"verify", 3, "verify --blueprint plan --paths-out /proc/hpnctl-paths --lldp" + dumps},
      {"lab up", 2, "lab up --blueprint plan --wiring bad.csv"},
      {"lab up", 3, "lab up --blueprint plan", true},
      {"lab down", 3, "lab down", true},
      {"lab status", 2, "lab status --format yaml"},
      {"lab status", 3, "lab status", true},
      {"lab ping", 2, "lab ping host-p0-s00-h000 host-p0-s00-h001 --format yaml"},
      {"lab ping", 3, "lab ping host-p0-s00-h000 host-p0-s00-h001", true},
      {"probe", 0, "probe key -o probe.key"},
      {"probe", 2, "probe send --from nic1p1"},
      {"probe", 3, "probe key -o /proc/hpnctl.key"},
      {"host apply", 0, "host apply h0.json --netns " + ns + " --no-bond"},
      {"host apply", 2, "host apply bad.yaml --netns " + ns},
      {"host apply", 3, "host apply h0.json --netns " + ns + " --no-bond", true},
      {"host announce", 2, "host announce h0.json --netns " + ns + " --count 0"},
      {"host announce", 3, "host announce h0.json --netns " + ns, true},
      {"switch agent", 2, "switch agent --config none.json"},
      {"switch agent", 3, "switch agent --config agent.json", true},
      // A host's namespace is no switch: its name is not the set's, its ports not the set's.
      {"switch apply", 2, "switch apply sets/tor-p0-s00-r1a --netns " + ns},
      {"switch apply", 3, "switch apply sets/tor-p0-s00-r1a --netns " + ns, true},
      {"completion", 0, "completion bash"},
      {"completion", 2, "completion fish"},
  };

  const auto rows = man_rows();
  std::map<std::string, std::set<int>> covered;
  for (const auto& c : cases) {
    INFO("hpnctl " << c.args << (c.as_nobody ? " (as nobody)" : ""));
    CHECK(run(dir, c) == c.code);
    covered[c.command].insert(c.code);
  }
  for (const auto& [key, test] : kElsewhere) covered[key.first].insert(key.second);
  // The table and the cases are the same rows with the same codes.
  CHECK(rows == covered);
}
