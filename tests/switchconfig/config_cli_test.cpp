// `hpnctl config` end to end: one switch, every switch, what FRR itself
// says of the files, SONiC's schema, and every way of getting it wrong.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/sqlite.h"
#include "switchconfig/agent_config.h"
#include "test_util.h"
#include "support/schema.h"

namespace fs = std::filesystem;
using hpn::test::run_hpnctl;
using hpn::test::sql_exec;
using hpn::test::TempDir;

namespace {

void plan(const TempDir& dir, const std::string& example, const std::string& out = "plan") {
  auto r = run_hpnctl("plan '" + hpn::test::source_path(example).string() + "' -q -o " + out, dir.path());
  REQUIRE(r.exit_code == 0);
}

bool have_vtysh() { return std::system("test -x /usr/bin/vtysh") == 0; }

// `vtysh --dryrun -f FILE` prints what it cannot take and exits 0 either
// way (FRR 8.4): silence is the verdict.
std::string dryrun(const fs::path& conf) {
  auto r = hpn::test::run_command("vtysh --dryrun -f '" + conf.string() + "' 2>&1");
  return r.out + (r.exit_code == 0 ? "" : "exit " + std::to_string(r.exit_code));
}

}  // namespace

TEST_CASE("config: one switch's configuration in each format", "[switchconfig][cli]") {
  TempDir dir;
  plan(dir, "examples/lab-pod.yaml");
  auto frr = run_hpnctl("config tor-p0-s00-r1a --blueprint plan", dir.path());
  REQUIRE(frr.exit_code == 0);
  CHECK(frr.out.find("hostname tor-p0-s00-r1a\n") != std::string::npos);
  CHECK(frr.out.find("router bgp 4200010000\n") != std::string::npos);
  auto sonic = run_hpnctl("config tor-p0-s00-r1a --blueprint plan --format sonic", dir.path());
  REQUIRE(sonic.exit_code == 0);
  CHECK(nlohmann::json::parse(sonic.out)["DEVICE_METADATA"]["localhost"]["hostname"] == "tor-p0-s00-r1a");
  auto json = run_hpnctl("config agg-p0-1-00 --blueprint plan --format json", dir.path());
  REQUIRE(json.exit_code == 0);
  auto j = nlohmann::json::parse(json.out);
  CHECK(j["format"] == "hpnctl-switch-config");
  // Down to the plane-1 ToR of each rail of both segments, up to two cores.
  std::set<std::string> peers;
  for (const auto& s : j["bgp"]["sessions"]) peers.insert(s["peer"].get<std::string>());
  CHECK(peers == std::set<std::string>{"tor-p0-s00-r1a", "tor-p0-s00-r2a", "tor-p0-s01-r1a", "tor-p0-s01-r2a",
                                       "core-1-00", "core-1-01"});
  CHECK(j["bgp"]["maximum_paths"] == 2);
  auto sysctl = run_hpnctl("config core-1-00 --blueprint plan --format sysctl", dir.path());
  REQUIRE(sysctl.exit_code == 0);
  CHECK(sysctl.out.find("net.ipv6.ioam6_id = 1\n") != std::string::npos);
}

TEST_CASE("config: unknown switches, hosts and bad options exit 2 with one line", "[switchconfig][cli]") {
  TempDir dir;
  plan(dir, "examples/lab-pod.yaml");
  auto typo = run_hpnctl("config tor-p0-s00-r1x --blueprint plan", dir.path());
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "hpnctl: no switch 'tor-p0-s00-r1x' in plan/blueprint.db (did you mean 'tor-p0-s00-r1a'?)\n");
  auto host = run_hpnctl("config host-p0-s00-h000 --blueprint plan", dir.path());
  CHECK(host.exit_code == 2);
  CHECK(host.err == "hpnctl: host-p0-s00-h000 is a host, not a switch; its configuration is 'hpnctl profile "
                    "host-p0-s00-h000'\n");
  auto format = run_hpnctl("config core-1-00 --blueprint plan --format cisco", dir.path());
  CHECK(format.exit_code == 2);
  CHECK(format.err == "hpnctl: --format 'cisco': one of frr, sonic, json, sysctl\n");
  auto both = run_hpnctl("config core-1-00 --all -o x --blueprint plan", dir.path());
  CHECK(both.exit_code == 2);
  CHECK(both.err == "hpnctl: name one SWITCH, or give --all -o DIR\n");
  auto no_out = run_hpnctl("config --all --blueprint plan", dir.path());
  CHECK(no_out.exit_code == 2);
  CHECK(no_out.err == "hpnctl: --all writes every switch's configuration: give -o DIR\n");
  CHECK_FALSE(fs::exists(dir / "x"));
}

TEST_CASE("config: a plan written before gateway MACs were recorded is refused: re-plan", "[switchconfig][cli]") {
  TempDir dir;
  plan(dir, "examples/lab-pod.yaml");
  // What an older hpnctl wrote: schema 1, no interfaces.mac.
  sql_exec(dir / "plan" / "blueprint.db",
           "PRAGMA journal_mode=DELETE; ALTER TABLE interfaces DROP COLUMN mac; PRAGMA user_version = 1;");
  auto r = run_hpnctl("config tor-p0-s00-r1a --blueprint plan", dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: plan/blueprint.db was written by schema version 1; this hpnctl reads version 4: re-run "
                 "hpnctl plan\n");
  CHECK(r.out.empty());
}

TEST_CASE("config --all writes every switch, all or nothing, the same bytes each time", "[switchconfig][cli]") {
  TempDir dir;
  plan(dir, "examples/lab-2pod.yaml");
  auto r = run_hpnctl("config --all --blueprint plan -o configs", dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 5 files a switch (frr.conf, config_db.json, sysctl.conf, ioam.conf,
  // interfaces), the agent's on each of the 16 ToRs, the manifest.
  CHECK(r.out == "wrote 36 switch configurations (197 files, " + r.out.substr(r.out.find("files, ") + 7));
  auto manifest = nlohmann::json::parse(hpn::test::read_file(dir / "configs" / "hpnctl-config.json"));
  CHECK(manifest["format"] == "hpnctl-config-set");
  REQUIRE(manifest["switches"].size() == 36);
  std::set<std::string> dirs;
  for (const auto& e : fs::directory_iterator(dir / "configs")) {
    if (e.is_directory()) dirs.insert(e.path().filename());
  }
  CHECK(dirs.size() == 36);
  for (const auto& s : manifest["switches"]) {
    const fs::path at = dir / "configs" / s.get<std::string>();
    CHECK(fs::exists(at / "frr.conf"));
    CHECK(fs::exists(at / "config_db.json"));
    CHECK(fs::exists(at / "sysctl.conf"));
    CHECK(hpn::test::read_file(at / "ioam.conf").ends_with("\nnamespace 123\n"));
    // The file is the one `config SWITCH` prints.
    auto one = run_hpnctl("config " + s.get<std::string>() + " --blueprint plan", dir.path());
    CHECK(one.out == hpn::test::read_file(at / "frr.conf"));
    // A ToR's agent configuration beside it, naming it, valid by the
    // schema (python3-jsonschema) and read back by the agent's reader;
    // a switch without hosts has none.
    const bool tor = s.get<std::string>().starts_with("tor-");
    CHECK(fs::exists(at / "switch-agent.json") == tor);
    if (!tor) continue;
    auto agent = hpn::switchconfig::read_agent_config(hpn::test::read_file(at / "switch-agent.json"), "x");
    REQUIRE(agent);
    CHECK(agent->switch_name == s.get<std::string>());
    CHECK(agent->ports.size() == 8);
    CHECK(hpn::test::schema_errors("switch-agent.schema.json", at / "switch-agent.json") == "");
  }
  // Again: the set is swapped in whole, byte for byte the same.
  const std::string before = hpn::test::read_file(dir / "configs" / "core-1-00" / "frr.conf");
  REQUIRE(run_hpnctl("config --all --blueprint plan -o configs", dir.path()).exit_code == 0);
  CHECK(hpn::test::read_file(dir / "configs" / "core-1-00" / "frr.conf") == before);
}

TEST_CASE("config --all refuses a file, or a directory that is not a config set, and writes nothing",
          "[switchconfig][cli]") {
  TempDir dir;
  plan(dir, "examples/lab-pod.yaml");
  hpn::test::write_file(dir / "afile", "keep me\n");
  auto file = run_hpnctl("config --all --blueprint plan -o afile", dir.path());
  CHECK(file.exit_code == 2);
  CHECK(file.err.find("afile") != std::string::npos);
  CHECK(hpn::test::read_file(dir / "afile") == "keep me\n");
  fs::create_directories(dir / "mine");
  hpn::test::write_file(dir / "mine" / "notes.txt", "mine\n");
  auto other = run_hpnctl("config --all --blueprint plan -o mine", dir.path());
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("not an hpnctl config set") != std::string::npos);
  CHECK(hpn::test::read_file(dir / "mine" / "notes.txt") == "mine\n");
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path())) left.insert(e.path().filename());
  CHECK(left == std::set<std::string>{"afile", "mine", "plan"});
}

TEST_CASE("config: FRR accepts every generated frr.conf of the lab pods and of the default pod's sample",
          "[switchconfig][frr]") {
  if (!have_vtysh()) {
    hpn::test::skip("FRR's vtysh is not installed (Debian package frr; tools/deps.sh installs it)");
  }
  TempDir dir;
  plan(dir, "examples/lab-pod.yaml", "lab");
  plan(dir, "examples/lab-2pod.yaml", "lab2");
  plan(dir, "examples/hpn-pod.yaml", "default");
  for (const char* name : {"lab", "lab2"}) {
    for (const char* mode : {"", " --bring-up"}) {
      REQUIRE(run_hpnctl(std::string("config --all --blueprint ") + name + mode + " -o " + name + "-configs",
                         dir.path()).exit_code == 0);
      for (const auto& e : fs::directory_iterator(dir / (std::string(name) + "-configs"))) {
        if (!e.is_directory()) continue;
        INFO(e.path().string() << mode);
        CHECK(dryrun(e.path() / "frr.conf") == "");
      }
    }
  }
  // The default pod: a ToR, an aggregation switch, a core and a front-end
  // leaf of each kind at both ends of the fabric.
  for (const char* sw : {"tor-p0-s00-r1a", "tor-p0-s14-r8b", "agg-p0-1-00", "agg-p0-2-59", "core-1-00", "core-2-29",
                         "fe-p0-s00-l0a", "fe-p0-s14-l1b"}) {
    auto r = run_hpnctl(std::string("config ") + sw + " --blueprint default", dir.path());
    REQUIRE(r.exit_code == 0);
    hpn::test::write_file(dir / "one.conf", r.out);
    INFO(sw);
    CHECK(dryrun(dir / "one.conf") == "");
  }
  // And FRR does say no: a configuration it cannot read is not silent.
  hpn::test::write_file(dir / "bad.conf", "router bgp 65000\n neighbor etp1 interface peer-grup FABRIC\n");
  CHECK(dryrun(dir / "bad.conf") != "");
}

TEST_CASE("config: config_db.json of every lab switch validates against SONiC's schema", "[switchconfig][schema]") {
  TempDir dir;
  plan(dir, "examples/lab-2pod.yaml");
  REQUIRE(run_hpnctl("config --all --blueprint plan -o configs", dir.path()).exit_code == 0);
  plan(dir, "examples/hpn-pod.yaml", "default");
  for (const char* sw : {"tor-p0-s00-r1a", "agg-p0-2-59", "core-2-29", "fe-p0-s14-l1b"}) {
    auto r = run_hpnctl(std::string("config ") + sw + " --blueprint default --format sonic", dir.path());
    REQUIRE(r.exit_code == 0);
    fs::create_directories(dir / "configs" / (std::string("default-") + sw));
    hpn::test::write_file(dir / "configs" / (std::string("default-") + sw) / "config_db.json", r.out);
  }
  auto check = hpn::test::run_command("/usr/bin/python3 '" + hpn::test::source_path("tests/schema/sonic/validate_config_db.py").string() +
                                      "' '" + hpn::test::source_path("schemas/sonic-config-db.schema.json").string() +
                                      "' '" + (dir / "configs").string() + "' 2>&1");
  INFO(check.out);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("40 config_db.json files valid") != std::string::npos);
}
