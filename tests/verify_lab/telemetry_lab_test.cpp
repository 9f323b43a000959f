// verify --lab on the two-pod lab with switches that give the probes less
// than they should, through the wiring file's switch-port faults: a ToR
// port and a whole ToR with IOAM off (net.ipv6.conf.IF.ioam6_enabled=0),
// a core whose ICMPv6 errors an nftables rule drops, and a core whose
// cables are all dark. One lab for the four: each shows in findings of
// its own, and none of them is a miswire, a dark cable or a broken
// direction.
#include <fmt/format.h>

#include <set>

#include "lab_verify.h"

namespace {

using hpn::test::LabVerify;
using hpn::test::require_lab;

// Every row with `device` at one end gets `fault` + that end's letter.
std::set<std::string> fault_device(LabVerify& lab, const std::string& device, const std::string& fault) {
  std::set<std::string> cables;
  for (auto& row : lab.sheet().rows) {
    if (row["a_device"] != device && row["z_device"] != device) continue;
    row["fault"] = fault.empty() ? "down" : fault + (row["a_device"] == device ? "a" : "z");
    cables.insert(row["cable_id"]);
  }
  return cables;
}

}  // namespace

TEST_CASE("verify/lab telemetry: IOAM off on a ToR port and on a whole ToR, a core without ICMPv6 errors, a dead core") {
  require_lab();
  LabVerify lab("examples/lab-2pod.yaml");
  auto& port = lab.sheet().row("host-p0-s00-h000", "nic1p1");  // -> tor-p0-s00-r1a:etp1a
  port["fault"] = "ioam-off-z";
  const std::set<std::string> silent_tor = fault_device(lab, "tor-p1-s01-r2b", "ioam-off-");
  const std::set<std::string> quiet_core = fault_device(lab, "core-1-01", "icmp-off-");
  const std::set<std::string> dead_core = fault_device(lab, "core-2-00", "");
  REQUIRE(silent_tor.size() == 12);  // 8 host cables (C1H...), 4 uplinks
  REQUIRE(dead_core.size() == 8);
  // The subject is what answers, not loss: no loss rounds.
  const auto report = lab.run(1, " --lossy-detect 0");
  INFO(report.dump(2));
  CHECK(report["summary"]["clean"] == false);
  std::map<std::string, const nlohmann::json*> telemetry;
  const nlohmann::json* unreached = nullptr;
  std::map<std::string, std::string> unobserved;  // cable -> message
  for (const auto& f : report["findings"]) {
    const std::string kind = f["kind"];
    INFO(f.dump());
    if (kind == "telemetry") {
      telemetry[f["device"].get<std::string>()] = &f;
    } else if (kind == "unreached") {
      CHECK(unreached == nullptr);
      unreached = &f;
    } else {
      // Never a miswire, a dark cable or a broken direction.
      REQUIRE(kind == "unobserved");
      unobserved[f["cables"][0].get<std::string>()] = f["message"];
    }
  }
  // The ToR port: one finding for it, its host cable unobserved with the reason.
  REQUIRE(telemetry.count("tor-p0-s00-r1a"));
  CHECK((*telemetry["tor-p0-s00-r1a"])["ports"] == nlohmann::json::array({"etp1a"}));
  REQUIRE(unobserved.count(port["cable_id"]));
  CHECK(unobserved[port["cable_id"]].find("switch tor-p0-s00-r1a wrote no telemetry on port etp1a") != std::string::npos);
  // The whole ToR: one finding naming it; its host cables unobserved. Its
  // uplinks' BGP sessions witness them, telemetry or not.
  REQUIRE(telemetry.count("tor-p1-s01-r2b"));
  CHECK((*telemetry["tor-p1-s01-r2b"])["message"].get<std::string>().starts_with(
      "switch tor-p1-s01-r2b wrote no telemetry at all: "));
  for (const auto& cable : silent_tor) {
    INFO(cable);
    const bool host_cable = cable.starts_with("C1H");
    REQUIRE(unobserved.count(cable) == (host_cable ? 1 : 0));
    if (host_cable) CHECK(unobserved[cable].find("switch tor-p1-s01-r2b wrote no telemetry") != std::string::npos);
  }
  CHECK(unobserved.size() == 1 + 8);
  // The core that sends no ICMPv6 error still forwards between the pods.
  REQUIRE(telemetry.count("core-1-01"));
  CHECK((*telemetry["core-1-01"])["message"].get<std::string>().starts_with(
      "switch core-1-01 answered none of the "));
  CHECK(telemetry.size() == 3);
  // The dead core: one finding, naming it and its cables.
  REQUIRE(unreached != nullptr);
  CHECK((*unreached)["device"] == "core-2-00");
  std::set<std::string> named;
  for (const auto& c : (*unreached)["cables"]) named.insert(c.get<std::string>());
  CHECK(named == dead_core);
}
