// A plan whose blueprint.db was edited by hand (real SQLite, sqlite3's own
// API): text that is not UTF-8 and integers past the model's range are input
// errors naming table, row and column, in every command that reads them,
// never an abort (nlohmann::json throws on dumping such text), and never a
// staging directory left behind.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "planned_pod.h"
#include "support/sqlite.h"
#include "test_util.h"

using namespace hpn::test;

namespace {

// Every name in `dir` that starts with '.': what a staging directory is.
std::vector<std::string> hidden_entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().front() == '.') out.push_back(e.path().filename().string());
  }
  return out;
}

struct Form {
  const char* args;    // PLAN stands for the corrupt plan's directory
  const char* table;   // the cell made invalid: table, column, and which row
  const char* column;
  const char* where;
  const char* output;  // a directory the command writes, or ""
};

}  // namespace

TEST_CASE("cli/corrupt plan: text that is not UTF-8 is exit 2 naming table, row and column, in each of 8 commands",
          "[cli][robust]") {
  // Each cell is one the command turns into JSON; before the store checked
  // its text, each of these aborted (SIGABRT, exit 134).
  const Form form = GENERATE(values<Form>({
      {"config --all --blueprint PLAN -o out", "interfaces", "ipv6",
       "device = 'tor-p0-s00-r1a' AND interface = 'Loopback0'", "out"},
      {"config tor-p0-s00-r1a --blueprint PLAN --format json", "interfaces", "ipv6",
       "device = 'tor-p0-s00-r1a' AND interface = 'Loopback0'", ""},
      {"config tor-p0-s00-r1a --blueprint PLAN --format sonic", "interfaces", "ipv6",
       "device = 'tor-p0-s00-r1a' AND interface = 'Loopback0'", ""},
      {"profile host-p0-s00-h000 --blueprint PLAN", "interfaces", "ipv4", "device = 'host-p0-s00-h000' AND nic = 1", ""},
      {"profile --all --blueprint PLAN -o out", "interfaces", "ipv4", "device = 'host-p0-s00-h000' AND nic = 1", "out"},
      {"cables --blueprint PLAN --format json", "cables", "media", "cable_id = 'C0H00001'", ""},
      {"cable C0H00001 --blueprint PLAN --format json", "cables", "media", "cable_id = 'C0H00001'", ""},
      {"plan SPEC --diff PLAN --format json", "cables", "media", "cable_id = 'C0H00001'", ""},
  }));
  INFO("hpnctl " << form.args);
  Planned pod(q(source_path("examples/lab-pod.yaml")));
  const std::string rowid =
      SqliteReader(pod.db()).value(fmt::format("SELECT rowid FROM {} WHERE {}", form.table, form.where));
  sql_exec(pod.db(), fmt::format("UPDATE {0} SET {1} = CAST({1} || X'FF' AS TEXT) WHERE rowid = {2}", form.table,
                                 form.column, rowid));

  std::string args = form.args;
  args.replace(args.find("PLAN"), 4, q(pod.plan));
  if (auto at = args.find("SPEC"); at != std::string::npos) args.replace(at, 4, q(source_path("examples/lab-pod.yaml")));
  const auto r = run_hpnctl(args, pod.dir.path());
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(fmt::format("{} row {}, column {}: text that is not UTF-8 ('", form.table, rowid,
                                                form.column)));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
  if (*form.output) CHECK_FALSE(fs::exists(pod.dir / form.output));
  CHECK(hidden_entries(pod.dir.path()).empty());
}

TEST_CASE("cli/corrupt plan: an integer past the model's range or of the wrong type is named by its row",
          "[cli][robust]") {
  Planned pod(q(source_path("examples/lab-pod.yaml")));
  const std::string rowid = SqliteReader(pod.db()).value("SELECT rowid FROM devices WHERE name = 'tor-p0-s00-r1a'");
  SECTION("a segment past int") {
    sql_exec(pod.db(), "UPDATE devices SET segment = 4294967296 WHERE rowid = " + rowid);
    const auto r = pod.run("devices");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::EndsWith(fmt::format(
                          "devices row {}, column segment: 4294967296 is out of range (-2147483648 to 2147483647)\n",
                          rowid)));
  }
  SECTION("a node ID past 24 bits") {
    // The schema's CHECK would refuse the edit: a hand edit can switch it off.
    sql_exec(pod.db(), "PRAGMA ignore_check_constraints = ON; UPDATE devices SET node_id = 16777216 WHERE rowid = " +
                           rowid);
    const auto r = pod.run("config tor-p0-s00-r1a");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::EndsWith(
                          fmt::format("devices row {}, column node_id: 16777216 is out of range (0 to 16777214)\n", rowid)));
  }
  SECTION("text in an integer column") {
    sql_exec(pod.db(), "UPDATE devices SET rail = 'one' WHERE rowid = " + rowid);
    const auto r = pod.run("devices --role tor");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::EndsWith(fmt::format("devices row {}, column rail: 'one' is not an integer\n", rowid)));
  }
}

TEST_CASE("cli/corrupt plan: a device renamed '..' by hand is exit 2 at its row, and nothing is written outside -o",
          "[cli][robust]") {
  Planned pod(q(source_path("examples/lab-pod.yaml")));
  const std::string rowid = SqliteReader(pod.db()).value("SELECT rowid FROM devices WHERE name = 'tor-p0-s00-r1a'");
  sql_exec(pod.db(), "UPDATE devices SET name = '..' WHERE rowid = " + rowid);
  const std::string expected =
      fmt::format("devices row {}, column name: '..': names start with a letter or a digit\n", rowid);
  fs::create_directories(pod.dir.path() / "etc");
  // Run in the pod's directory: -o etc/... is where '..' would have escaped to etc/.
  for (const char* args : {"devices", "config --all -o etc/configs", "export ansible -o etc/ansible"}) {
    INFO(args);
    const auto r = pod.run(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::EndsWith(expected));
    CHECK(fs::is_empty(pod.dir.path() / "etc"));
  }
}
