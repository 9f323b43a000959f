// `hpnctl probe plan` and `verify --probe-plan` from the command line:
// the files a fleet's agents are given validate against their schemas
// (python3-jsonschema), and every misuse is an input error (exit 2) that
// leaves the plan's directory as it was.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "support/schema.h"

namespace {

namespace fs = std::filesystem;
using hpn::test::read_file;
using hpn::test::run_hpnctl;
using hpn::test::TempDir;

struct PlannedLab {
  TempDir dir;
  PlannedLab() {
    auto r = run_hpnctl("plan '" + hpn::test::source_path("examples/lab-pod.yaml").string() + "' -q -o plan",
                        dir.path());
    REQUIRE(r.exit_code == 0);
  }
  hpn::test::RunResult hpnctl(const std::string& args) const { return run_hpnctl(args, dir.path()); }
};

}  // namespace

TEST_CASE("cli/probe plan: the first round's files, as their schemas say, for the hosts of a rack") {
  PlannedLab lab;
  auto r = lab.hpnctl("probe plan --blueprint plan --scope rack=H0-R01-01 -o verify --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(r.out);
  CHECK(summary == nlohmann::json::parse(read_file(lab.dir / "verify" / "summary.json")));
  CHECK(hpn::test::schema_errors("probe-plan.schema.json", lab.dir / "verify" / "summary.json") == "");
  CHECK(hpn::test::schema_errors("probe-plan-entry.schema.json", lab.dir / "verify" / "plan.jsonl", true) == "");
  // The switch probes' round comes first, from the rack's hosts only.
  const auto& round = summary["round"];
  CHECK(round["name"] == "switches1");
  for (const auto& h : round["hosts"]) {
    CHECK((h == "host-p0-s01-h002" || h == "host-p0-s01-h003"));
  }
  for (const auto& s : round["senders"]) CHECK(fs::is_regular_file(lab.dir / "verify" / s["plan"].get<std::string>()));
  // Listeners: the hosts the plan sends to, other segments' among them.
  bool other_segment = false;
  for (const auto& h : summary["listeners"]) other_segment |= h.get<std::string>().rfind("host-p0-s00-", 0) == 0;
  CHECK(other_segment);
  // The text summary says the same in a line.
  auto text = lab.hpnctl("probe plan --blueprint plan --scope rack=H0-R01-01 -o verify-text");
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("round switches1: "));
}

TEST_CASE("cli/probe plan: misuse is an input error that leaves the plan as it was") {
  PlannedLab lab;
  REQUIRE(lab.hpnctl("probe plan --blueprint plan --scope rack=H0-R01-01 -o verify").exit_code == 0);
  const std::string summary = read_file(lab.dir / "verify" / "summary.json");
  const std::string entries = read_file(lab.dir / "verify" / "plan.jsonl");
  hpn::test::write_file(lab.dir / "seen.jsonl", "");
  for (const auto& [args, words] : std::vector<std::pair<std::string, std::string>>{
           // A started plan keeps its settings.
           {"probe plan --blueprint plan -o verify --retries 5 seen.jsonl", "--retries would change them"},
           // The next round needs what the senders saw.
           {"probe plan --blueprint plan -o verify", "give the observations its senders wrote"},
           {"probe plan --blueprint plan -o verify seen.jsonl", "no observation records"},
           // verify --probe-plan takes the plan's scope and rules, and no lab.
           {"verify --blueprint plan --probe-plan verify --scope pod=0 seen.jsonl", "decides --scope"},
           {"verify --blueprint plan --probe-plan verify --lab", "--lab probes by its own"},
       }) {
    auto r = lab.hpnctl(args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(words));
    CHECK(read_file(lab.dir / "verify" / "summary.json") == summary);
    CHECK(read_file(lab.dir / "verify" / "plan.jsonl") == entries);
  }
  // Observations for a plan not started yet; a directory that is something else.
  auto early = lab.hpnctl("probe plan --blueprint plan -o fresh seen.jsonl");
  CHECK(early.exit_code == 2);
  CHECK_FALSE(fs::exists(lab.dir / "fresh"));
  auto foreign = lab.hpnctl("probe plan --blueprint plan -o plan");
  CHECK(foreign.exit_code == 2);
  CHECK_THAT(foreign.err, Catch::Contains("not a probe plan"));
  auto scope = lab.hpnctl("probe plan --blueprint plan --scope rack=H9-R99-99 -o other");
  CHECK(scope.exit_code == 2);
  CHECK_THAT(scope.err, Catch::Contains("H9-R99-99"));
  CHECK_FALSE(fs::exists(lab.dir / "other"));
}
