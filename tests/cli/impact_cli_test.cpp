// hpnctl impact end to end: names resolved as `hpnctl cable` resolves them,
// the JSON valid against schemas/impact.schema.json, the exit codes, and the
// expected failures `hpnctl plan` prints.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "test_util.h"
#include "support/schema.h"

namespace {

using namespace hpn::test;

void plan(const std::string& spec, const TempDir& cwd, const std::string& dir) {
  RunResult r = run_hpnctl("plan " + spec + " -q -o " + dir, cwd.path());
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("cli/impact: the default pod's host cable, ToR pair and the single-ToR baseline's ToR", "[cli][impact]") {
  TempDir cwd;
  plan("", cwd, "plan");
  plan("'" + source_path("examples/baseline-single-tor.yaml").string() + "'", cwd, "single");

  SECTION("one host cable, by its label: 6.25% of the host, which keeps rail 1 on plane 2; exit 0") {
    RunResult r = run_hpnctl(
        "impact --blueprint plan --format json 'C0H00001 host-p0-s00-h000:nic1p1 > tor-p0-s00-r1a:etp1a H0-R00-09 U47'",
        cwd.path());
    REQUIRE(r.exit_code == 0);
    CHECK(schema_errors_of_text("impact.schema.json", r.out) == "");
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["failures"][0]["name"] == "C0H00001");
    REQUIRE(j["hosts"].size() == 1);
    CHECK(j["hosts"][0]["lost_gbps"] == 200);
    CHECK(j["hosts"][0]["total_gbps"] == 3200);
    CHECK(j["hosts"][0]["lost_percent"] == 6.25);  // 200 / 3,200
    CHECK(j["hosts"][0]["rails"][0]["ports_left"][0]["tor"] == "tor-p0-s00-r1b");
    CHECK(j["summary"]["hosts_dark_on_a_rail"] == 0);
  }
  SECTION("the same cable as DEVICE:PORT, as a table") {
    RunResult r = run_hpnctl("impact --blueprint plan host-p0-s00-h000:nic1p1", cwd.path());
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("host-p0-s00-h000        200     3200  6.25%  rail 1: nic1p2 -> tor-p0-s00-r1b (plane 2)\n") !=
          std::string::npos);
    CHECK(r.out.find("redundancy: no host loses every path on a rail\n") != std::string::npos);
  }
  SECTION("an aggregation switch: 1.67% of the plane's ToR uplinks") {
    RunResult r = run_hpnctl("impact --blueprint plan agg-p0-1-00", cwd.path());
    REQUIRE(r.exit_code == 0);
    // 120 ToRs x 400G of 120 x 60 x 400G = 1/60.
    CHECK(r.out.find("pod 0 plane 1             tor-agg       48000  2880000  1.67%\n") != std::string::npos);
  }
  SECTION("both ToRs of rail 1: called out, 136 hosts dark on the rail, exit 1") {
    RunResult r = run_hpnctl("impact --blueprint plan tor-p0-s00-r1a tor-p0-s00-r1b", cwd.path());
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("both ToRs of rail 1 fail together (tor-p0-s00-r1a and tor-p0-s00-r1b): 136 hosts of pod 0 "
                     "segment 0 (host-p0-s00-h000 to host-p0-s00-h135) lose every path on rail 1\n") !=
          std::string::npos);
  }
  SECTION("single-ToR: one ToR is a single point of failure for its 68 hosts") {
    RunResult r = run_hpnctl("impact --blueprint single tor-p0-s00-r1 --format json", cwd.path());
    CHECK(r.exit_code == 1);
    CHECK(schema_errors_of_text("impact.schema.json", r.out) == "");
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["rail_outages"].size() == 1);
    CHECK(j["rail_outages"][0]["kind"] == "single-tor");
    CHECK(j["rail_outages"][0]["single_point_of_failure"] == true);
    CHECK(j["rail_outages"][0]["hosts"].size() == 68);  // 64 active + 4 backup
    CHECK(j["summary"]["hosts_dark_on_a_rail"] == 68);
  }
  SECTION("an unknown name exits 2 naming the argument, with nothing on stdout") {
    RunResult r = run_hpnctl("impact --blueprint plan C0H00001 tor-p0-s00-r9a", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "hpnctl: impact: argument 2 'tor-p0-s00-r9a': no device or cable 'tor-p0-s00-r9a' in plan/blueprint.db "
          "(did you mean 'tor-p0-s00-r1a'?)\n");
    r = run_hpnctl("impact --blueprint plan tor-p0-s00-r1a:etp999", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "hpnctl: impact: argument 1 'tor-p0-s00-r1a:etp999': device 'tor-p0-s00-r1a' has no port 'etp999' "
          "(did you mean 'etp99'?)\n");
    r = run_hpnctl("impact --blueprint plan C9Z99999", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("hpnctl: impact: argument 1 'C9Z99999': no device or cable 'C9Z99999' in plan/blueprint.db") == 0);
    // A core port kept for a pod not built yet has nothing to fail.
    r = run_hpnctl("impact --blueprint plan core-1-00:etp100", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hpnctl: impact: argument 1 'core-1-00:etp100': the port has no cable to fail\n");
    // A cable ID followed by what is not its label is no label.
    r = run_hpnctl("impact --blueprint plan 'C0H00001 host-p0-s00-h001:nic1p1'", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no device or cable 'C0H00001 host-p0-s00-h001:nic1p1'") != std::string::npos);
    r = run_hpnctl("impact --blueprint plan --format csv C0H00001", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hpnctl: impact: --format 'csv': table or json\n");
    r = run_hpnctl("impact --blueprint nowhere C0H00001", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli/impact: plan prints the expected failures a month", "[cli][impact]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plan -o plan", cwd.path());
  REQUIRE(r.exit_code == 0);
  // 32,640 x 0.057% = 18.6 (1.24 per segment of 15); 240 x 0.051% = 0.122 (0.00816).
  CHECK(r.out.find("  NIC-ToR link    32640     18.6         1.24                          0\n") != std::string::npos);
  CHECK(r.out.find("  ToR               240    0.122      0.00816                          0\n") != std::string::npos);
  CHECK(r.out.find("backup hosts per segment: 8, against 0 hosts cut off a rail a month per segment") !=
        std::string::npos);
  const auto j = nlohmann::json::parse(read_file(cwd / "plan/summary.json"));
  CHECK(j["expected_failures"]["nic_tor_links"]["failures_a_month"] == Approx(18.6048));
}
