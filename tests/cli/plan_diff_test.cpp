// hpnctl plan --diff end to end: two real plans on disk, the work order the
// binary prints, and the same sets computed independently by SQL over the two
// blueprint.db files (ATTACHed side by side), never by hard-coded numbers.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "test_util.h"

namespace {

using namespace hpn::test;
using Ids = std::set<std::string>;

// Both blueprints in one SQLite connection: `old` and `nw`.
class TwoPlans {
 public:
  TwoPlans(const fs::path& old_dir, const fs::path& new_dir) {
    REQUIRE(sqlite3_open_v2((old_dir / "blueprint.db").c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    exec("ATTACH DATABASE '" + (new_dir / "blueprint.db").string() + "' AS nw");
  }
  ~TwoPlans() { sqlite3_close(db_); }
  TwoPlans(const TwoPlans&) = delete;
  TwoPlans& operator=(const TwoPlans&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    INFO(sql << ": " << (err ? err : ""));
    sqlite3_free(err);
    REQUIRE(rc == SQLITE_OK);
  }

  Ids ids(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    Ids out;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    sqlite3_finalize(s);
    REQUIRE(rc == SQLITE_DONE);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

// What the work order should hold, by SQL over the two plans alone.
std::map<std::string, Ids> expected_steps(TwoPlans& db) {
  std::map<std::string, Ids> e;
  e["add device"] = db.ids("SELECT name FROM nw.devices EXCEPT SELECT name FROM main.devices");
  e["remove device"] = db.ids("SELECT name FROM main.devices EXCEPT SELECT name FROM nw.devices");
  e["move device"] = db.ids(
      "SELECT n.name FROM nw.devices n JOIN main.devices o ON o.name = n.name"
      " WHERE n.rack IS NOT o.rack OR n.ru IS NOT o.ru");
  e["renumber device"] = db.ids(
      "SELECT n.name FROM nw.devices n JOIN main.devices o ON o.name = n.name"
      " WHERE n.node_id != o.node_id OR n.asn IS NOT o.asn OR n.role != o.role OR n.pod IS NOT o.pod"
      " OR n.segment IS NOT o.segment OR n.plane IS NOT o.plane OR n.rail IS NOT o.rail");
  e["relabel device"] = db.ids(
      "SELECT n.name FROM nw.devices n JOIN main.devices o ON o.name = n.name WHERE n.state != o.state");
  // Cables: by ID, then by their two ends.
  db.exec("CREATE TEMP VIEW ends_paired AS SELECT n.cable_id AS new_id, o.cable_id AS old_id"
          " FROM nw.cables n JOIN main.cables o ON o.a_device = n.a_device AND o.a_port = n.a_port"
          " AND o.z_device = n.z_device AND o.z_port = n.z_port"
          " WHERE n.cable_id NOT IN (SELECT cable_id FROM main.cables)"
          " AND o.cable_id NOT IN (SELECT cable_id FROM nw.cables)");
  e["add cable"] = db.ids(
      "SELECT cable_id FROM nw.cables WHERE cable_id NOT IN (SELECT cable_id FROM main.cables)"
      " EXCEPT SELECT new_id FROM ends_paired");
  e["remove cable"] = db.ids(
      "SELECT cable_id FROM main.cables WHERE cable_id NOT IN (SELECT cable_id FROM nw.cables)"
      " EXCEPT SELECT old_id FROM ends_paired");
  // A paired cable's step is the first that applies: move (an end or the
  // run's panel ports and trunks elsewhere), replace (another stocked cord,
  // media or speed), relabel (other label text), record (length or state).
  for (const char* plan : {"main", "nw"}) {
    db.exec(std::string("CREATE TEMP VIEW route_") + plan + " AS SELECT cable_id,"
            " group_concat(ifnull(from_panel, '') || ':' || ifnull(from_port, '') || '>' || ifnull(to_panel, '')"
            " || ':' || ifnull(to_port, '') || '/' || ifnull(trunk_id, '') || ':' || ifnull(lane, ''), ' ') AS route,"
            " group_concat(stock_length_m, '+') AS cords FROM (SELECT * FROM " + plan + ".legs ORDER BY rowid)"
            " GROUP BY cable_id");
  }
  db.exec("CREATE TEMP VIEW cmp AS SELECT n.cable_id AS id,"
          " (n.a_device != o.a_device OR n.a_port != o.a_port OR n.z_device != o.z_device"
          "  OR n.z_port != o.z_port OR n.a_rack != o.a_rack OR n.a_ru != o.a_ru OR n.z_rack != o.z_rack"
          "  OR n.z_ru != o.z_ru OR nr.route IS NOT orr.route) AS moved,"
          " (n.media != o.media OR n.speed_gbps != o.speed_gbps OR n.kind != o.kind"
          "  OR n.stock_length_m IS NOT o.stock_length_m OR nr.cords IS NOT orr.cords) AS replaced,"
          " (n.label_a != o.label_a OR n.label_z != o.label_z) AS relabelled,"
          " (n.length_m != o.length_m OR n.state != o.state) AS recorded"
          " FROM nw.cables n JOIN main.cables o ON o.cable_id = n.cable_id"
          " LEFT JOIN route_nw nr ON nr.cable_id = n.cable_id LEFT JOIN route_main orr ON orr.cable_id = o.cable_id");
  e["move cable"] = db.ids("SELECT id FROM cmp WHERE moved");
  e["replace cable"] = db.ids("SELECT id FROM cmp WHERE NOT moved AND replaced");
  e["relabel cable"] = db.ids("SELECT id FROM cmp WHERE NOT moved AND NOT replaced AND relabelled"
                              " UNION SELECT new_id FROM ends_paired");
  e["record cable"] = db.ids("SELECT id FROM cmp WHERE NOT moved AND NOT replaced AND NOT relabelled AND recorded");
  // Addresses: links of cables both have, interfaces of devices both have.
  Ids links = db.ids(
      "SELECT n.cable_id FROM nw.links n JOIN main.links o ON o.cable_id = n.cable_id"
      " WHERE n.a_ipv4 != o.a_ipv4 OR n.z_ipv4 != o.z_ipv4 OR n.a_ipv6 != o.a_ipv6 OR n.z_ipv6 != o.z_ipv6"
      " OR n.ipv4_len != o.ipv4_len OR n.ipv6_len != o.ipv6_len");
  Ids interfaces = db.ids(
      "SELECT device FROM (SELECT device, interface, ipv4, ipv4_len, ipv6, ipv6_len FROM nw.interfaces"
      "   EXCEPT SELECT device, interface, ipv4, ipv4_len, ipv6, ipv6_len FROM main.interfaces)"
      " WHERE device IN (SELECT name FROM main.devices)"
      " UNION SELECT device FROM (SELECT device, interface, ipv4, ipv4_len, ipv6, ipv6_len FROM main.interfaces"
      "   EXCEPT SELECT device, interface, ipv4, ipv4_len, ipv6, ipv6_len FROM nw.interfaces)"
      " WHERE device IN (SELECT name FROM nw.devices)");
  e["readdress address"] = links;
  e["readdress address"].insert(interfaces.begin(), interfaces.end());
  return e;
}

std::map<std::string, Ids> reported_steps(const nlohmann::json& report) {
  std::map<std::string, Ids> r;
  for (const auto& item : report.at("items")) {
    std::string key = item.at("action").get<std::string>() + " " + item.at("item").get<std::string>();
    INFO(key << " " << item.at("id"));
    CHECK(r[key].insert(item.at("id").get<std::string>()).second);  // one step per thing
  }
  return r;
}

void require_same_steps(std::map<std::string, Ids> expected, std::map<std::string, Ids> reported) {
  for (auto& [key, ids] : reported) expected[key];  // a kind the SQL did not foresee shows up empty
  for (auto& [key, ids] : expected) {
    INFO("work-order steps '" << key << "'");
    CHECK(reported[key].size() == ids.size());
    CHECK(reported[key] == ids);
  }
}

// The work order is in working order: removals, then moves, then additions
// (devices in before the cables that go into them), cords replaced, labels,
// configuration, and what changes only in the record.
void require_work_order(const nlohmann::json& report) {
  auto rank = [](const std::string& action, const std::string& item) {
    if (action == "remove") return item == "cable" ? 0 : 1;
    if (action == "move") return item == "device" ? 2 : 3;
    if (action == "add") return item == "device" ? 4 : 5;
    if (action == "replace") return 6;
    if (action == "relabel") return 7;
    if (action == "record") return 9;  // nothing for the hands: last
    return 8;  // renumber, readdress: configuration after the physical work
  };
  int last = -1, step = 0;
  for (const auto& item : report.at("items")) {
    CHECK(item.at("step") == ++step);
    int r = rank(item.at("action"), item.at("item"));
    INFO("step " << step);
    CHECK(r >= last);
    last = r;
  }
}

// Growing a fabric by a segment or a pod is incremental (hpn-pod.yaml(5),
// ALLOCATION): the work order only adds; nothing existing moves, is
// relabelled, renumbered or readdressed.
void require_only_additions(const nlohmann::json& report) {
  for (const auto& item : report.at("items")) {
    INFO("step " << item.at("step") << ": " << item.dump());
    CHECK(item.at("action") == "add");
  }
  const auto& counts = report.at("counts");
  for (const char* kind : {"devices_removed", "devices_moved", "devices_relabelled", "devices_renumbered",
                           "cables_removed", "cables_moved", "cables_replaced", "cables_relabelled",
                           "cables_recorded", "readdressed"}) {
    INFO(kind);
    CHECK(counts.at(kind) == 0);
  }
  CHECK(report.at("changes") == counts.at("devices_added").get<int64_t>() + counts.at("cables_added").get<int64_t>());
}

}  // namespace

TEST_CASE("cli/plan --diff: one more segment of the lab pod lists exactly its devices and cables",
          "[cli][plan][diff]") {
  TempDir cwd;
  write_file(cwd / "lab.yaml", lab_spec_text(2));
  write_file(cwd / "lab3.yaml", lab_spec_text(3));
  REQUIRE(run_hpnctl("plan lab.yaml -o old -q", cwd.path()).exit_code == 0);
  REQUIRE(run_hpnctl("plan lab3.yaml -o plain -q", cwd.path()).exit_code == 0);  // the same plan, for SQL

  RunResult r = run_hpnctl("plan lab3.yaml --diff old --format json", cwd.path());
  INFO(r.err);
  CHECK(r.exit_code == 1);  // there is work to do
  CHECK_FALSE(fs::exists(cwd / "hpn-plan"));  // without -o, --diff only reports
  nlohmann::json report = nlohmann::json::parse(r.out);
  TwoPlans db(cwd / "old", cwd / "plain");
  auto expected = expected_steps(db);
  require_same_steps(expected, reported_steps(report));
  require_work_order(report);

  // "Exactly the new devices and cables": those of segment 2, and the cables with an end on them.
  Ids new_segment = db.ids("SELECT name FROM nw.devices WHERE segment = 2");
  CHECK(!new_segment.empty());
  CHECK(expected["add device"] == new_segment);
  CHECK(expected["add cable"] ==
        db.ids("SELECT cable_id FROM nw.cables WHERE a_device IN (SELECT name FROM nw.devices WHERE segment = 2)"
               " OR z_device IN (SELECT name FROM nw.devices WHERE segment = 2)"));
  CHECK(expected["remove cable"].empty());
  CHECK(expected["remove device"].empty());
  CHECK(expected["renumber device"].empty());
  CHECK(report.at("counts").at("devices_added") == new_segment.size());
  // Nothing else: no rack row, aggregation uplink port or address shifts.
  for (const char* step : {"move device", "move cable", "replace cable", "relabel device", "relabel cable",
                           "record cable", "renumber device", "readdress address"}) {
    INFO(step);
    CHECK(expected[step].empty());
  }
  require_only_additions(report);
}

TEST_CASE("cli/plan --diff -o writes the new plan and its work order, as plan and --format csv would",
          "[cli][plan][diff]") {
  TempDir cwd;
  write_file(cwd / "lab3.yaml", lab_spec_text(3));
  REQUIRE(run_hpnctl("plan " + q(source_path("examples/lab-pod.yaml")) + " -o old -q", cwd.path()).exit_code == 0);
  REQUIRE(run_hpnctl("plan lab3.yaml -o plain -q", cwd.path()).exit_code == 0);
  RunResult csv = run_hpnctl("plan lab3.yaml --diff old --format csv", cwd.path());
  REQUIRE(csv.exit_code == 1);
  RunResult r = run_hpnctl("plan lab3.yaml --diff old -o new", cwd.path());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("wrote the new plan to new/") != std::string::npos);
  CHECK(r.out.find(" steps: ") != std::string::npos);  // the table's summary line
  CHECK(read_file(cwd / "new" / "work-order.csv") == csv.out);
  for (const auto& entry : fs::directory_iterator(cwd / "plain")) {
    INFO(entry.path().filename());
    CHECK(read_file(cwd / "new" / entry.path().filename()) == read_file(entry.path()));
  }
  // Diffing the written plan against the spec it came from: no change, exit 0.
  RunResult again = run_hpnctl("plan lab3.yaml --diff new", cwd.path());
  CHECK(again.exit_code == 0);
  CHECK(again.out == "no change: spec 'lab' plans the same fabric as 'lab'\n");
  RunResult quiet = run_hpnctl("plan lab3.yaml --diff new -q", cwd.path());
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
  // In place: the old plan replaced by the new one, the diff read before the swap.
  RunResult in_place = run_hpnctl("plan lab3.yaml --diff old -o old -q", cwd.path());
  CHECK(in_place.exit_code == 1);
  CHECK(read_file(cwd / "old" / "blueprint.db") == read_file(cwd / "plain" / "blueprint.db"));
}

TEST_CASE("cli/plan --diff: the default pod against the same pod with one segment fewer",
          "[cli][plan][diff]") {
  // 16 segments of the default pod exceed the aggregation radix (128 downlinks
  // + 8 uplinks > 128 ports), so the default pod is the "one more segment" side.
  TempDir cwd;
  write_file(cwd / "p14.yaml", "version: 1\npod:\n  segments: 14\naggregation:\n  downlinks: 112\n");
  REQUIRE(run_hpnctl("plan p14.yaml -o old -q", cwd.path()).exit_code == 0);
  RunResult r = run_hpnctl("plan --diff old -o new --format json", cwd.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 1);
  nlohmann::json report = nlohmann::json::parse(r.out);
  TwoPlans db(cwd / "old", cwd / "new");
  auto expected = expected_steps(db);
  require_same_steps(expected, reported_steps(report));
  require_work_order(report);
  Ids new_segment = db.ids("SELECT name FROM nw.devices WHERE segment = 14");
  CHECK(expected["add device"] == new_segment);
  CHECK(expected["add cable"] ==
        db.ids("SELECT cable_id FROM nw.cables WHERE a_device IN (SELECT name FROM nw.devices WHERE segment = 14)"
               " OR z_device IN (SELECT name FROM nw.devices WHERE segment = 14)"));
  CHECK(expected["remove cable"].empty());
  CHECK(expected["renumber device"].empty());
  for (const char* step : {"move device", "move cable", "replace cable", "relabel device", "relabel cable",
                           "record cable", "readdress address"}) {
    INFO(step);
    CHECK(expected[step].empty());
  }
  require_only_additions(report);
}

// Issue 17: raising media.slack_m from 3 to 5 reported "52080 cables
// relabelled", though no label text changed and most cords stay in their
// stock bin. Each cable is now the work it takes: a cord to replace where
// the bin changed, a move where the run now goes through the panels,
// nothing but the record where only the estimate grew.
TEST_CASE("cli/plan --diff: more slack on the default pod is cords, moves and records, not 52080 relabels",
          "[cli][plan][diff]") {
  TempDir cwd;
  write_file(cwd / "slack5.yaml", "version: 1\nmedia:\n  slack_m: 5\n");
  REQUIRE(run_hpnctl("plan -o old -q", cwd.path()).exit_code == 0);
  RunResult r = run_hpnctl("plan slack5.yaml --diff old -o new --format json", cwd.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 1);
  nlohmann::json report = nlohmann::json::parse(r.out);
  TwoPlans db(cwd / "old", cwd / "new");
  auto expected = expected_steps(db);
  require_same_steps(expected, reported_steps(report));
  require_work_order(report);
  const auto& counts = report.at("counts");
  // Labels name ends, places and panel ports, none of which slack moves
  // for a cable that stays direct: no relabel without a move.
  CHECK(counts.at("cables_relabelled") == 0);
  CHECK(counts.at("cables_recorded").get<int64_t>() > 0);
  CHECK(counts.at("cables_replaced").get<int64_t>() > 0);
  CHECK(counts.at("cables_recorded").get<int64_t>() + counts.at("cables_replaced").get<int64_t>() +
            counts.at("cables_moved").get<int64_t>() == 52080);
  // A direct cord whose stock bin changed is one to replace; one whose bin
  // did not is only a record (slack moves no rack, so neither is a move).
  const std::string direct_both = "SELECT n.cable_id FROM nw.cables n JOIN main.cables o USING (cable_id)"
                                  " WHERE n.legs = 1 AND o.legs = 1 AND n.length_m != o.length_m AND ";
  const Ids bin_changed = db.ids(direct_both + "n.stock_length_m != o.stock_length_m");
  const Ids same_bin = db.ids(direct_both + "n.stock_length_m = o.stock_length_m");
  CHECK_FALSE(bin_changed.empty());
  CHECK_FALSE(same_bin.empty());
  CHECK(std::includes(expected["replace cable"].begin(), expected["replace cable"].end(), bin_changed.begin(),
                      bin_changed.end()));
  CHECK(std::includes(expected["record cable"].begin(), expected["record cable"].end(), same_bin.begin(),
                      same_bin.end()));
  // The table a technician reads: physical moves counted first, no record row.
  RunResult table = run_hpnctl("plan slack5.yaml --diff old", cwd.path());
  REQUIRE(table.exit_code == 1);
  CHECK(table.out.find("52080 cables relabelled") == std::string::npos);
  const size_t summary = table.out.find(" steps: ");
  REQUIRE(summary != std::string::npos);
  const std::string line = table.out.substr(summary, table.out.find('\n', summary) - summary);
  CHECK(line.find("cables moved") < line.find("cords replaced"));
  CHECK(line.find("cords replaced") < line.find("record-only changes"));
  CHECK(table.out.find(" record ") == std::string::npos);
}

TEST_CASE("cli/plan --diff: a new segment or pod in a two-pod fabric renumbers nothing", "[cli][plan][diff]") {
  // Pod 1's node IDs, ASNs and addresses sit in a block reserved for the
  // segments pod 0 can grow to, so they stay when pod 0 grows; a new pod
  // takes the block after the last.
  TempDir cwd;
  write_file(cwd / "one.yaml", lab_spec_text(2, 1));
  write_file(cwd / "two.yaml", lab_spec_text(2, 2));
  write_file(cwd / "two3.yaml", lab_spec_text(3, 2));
  REQUIRE(run_hpnctl("plan one.yaml -o one -q", cwd.path()).exit_code == 0);
  REQUIRE(run_hpnctl("plan two.yaml -o two -q", cwd.path()).exit_code == 0);
  for (auto [spec, old] : {std::pair{"two3.yaml", "two"}, std::pair{"two.yaml", "one"}}) {
    RunResult r = run_hpnctl(std::string("plan ") + spec + " --diff " + old + " --format json", cwd.path());
    INFO(spec << " --diff " << old << "\n" << r.err);
    CHECK(r.exit_code == 1);  // work to do, and no renumbering to refuse
    require_only_additions(nlohmann::json::parse(r.out));
  }
}

TEST_CASE("cli/plan --diff: a change that renumbers devices is refused, naming them, unless allowed",
          "[cli][plan][diff]") {
  // Moving the ToRs' node-ID range renumbers every ToR of both pods.
  TempDir cwd;
  write_file(cwd / "two.yaml", lab_spec_text(2, 2));
  write_file(cwd / "two3.yaml",
             lab_spec_text(3, 2) + "\nnode_ids:\n  tor: {first: 0x020000, last: 0x07FFFF}\n");
  REQUIRE(run_hpnctl("plan two.yaml -o old -q", cwd.path()).exit_code == 0);
  RunResult r = run_hpnctl("plan two3.yaml --diff old -o new", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_FALSE(fs::exists(cwd / "new"));  // nothing written
  CHECK(r.err.rfind("hpnctl: plan --diff old: the new plan renumbers 16 existing devices: tor-p0-", 0) == 0);
  CHECK(r.err.find("tor-p0-s00-") != std::string::npos);   // the first ToRs on the floor, named
  CHECK(r.err.find(" (node_id 0x01000") != std::string::npos);  // with what changes
  CHECK(r.err.find("--allow-renumber") != std::string::npos);

  RunResult allowed = run_hpnctl("plan two3.yaml --diff old -o new --allow-renumber --format json", cwd.path());
  INFO(allowed.err);
  CHECK(allowed.exit_code == 1);
  CHECK(fs::exists(cwd / "new" / "work-order.csv"));
  TwoPlans db(cwd / "old", cwd / "new");
  auto expected = expected_steps(db);
  CHECK(!expected["renumber device"].empty());
  require_same_steps(expected, reported_steps(nlohmann::json::parse(allowed.out)));
}

TEST_CASE("cli/plan --diff: bad input is exit 2 with one line", "[cli][plan][diff]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plan --diff nowhere", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("hpnctl: --diff: nowhere", 0) == 0);
  r = run_hpnctl("plan --allow-renumber -o x", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --allow-renumber applies to --diff only\n");
  r = run_hpnctl("plan --format csv -o x", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --format csv: a plan's summary is text or json (table and csv are for --diff)\n");
  r = run_hpnctl("plan --format xml", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("xml not in {text,table,csv,json}") != std::string::npos);
  CHECK_FALSE(fs::exists(cwd / "x"));
}

TEST_CASE("cli/verbosity: --verbose times each phase, --quiet silences, progress only on a terminal",
          "[cli][plan]") {
  TempDir cwd;
  const std::string lab = q(source_path("examples/lab-pod.yaml"));
  for (const std::string& args : {"--verbose plan " + lab + " -o a", "plan " + lab + " -o b --verbose"}) {
    RunResult r = run_hpnctl(args, cwd.path());
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 0);
    for (const char* phase : {"hpnctl: loading the spec: ", "hpnctl: expanding lab: ", "hpnctl: writing ",
                              " s in all\n"}) {
      CHECK(r.err.find(phase) != std::string::npos);
    }
    CHECK(r.err.find('\r') == std::string::npos);  // stderr is a file here: no progress line
    CHECK(!r.out.empty());                           // the summary
  }
  RunResult other = run_hpnctl("devices --blueprint a --role core --verbose", cwd.path());
  CHECK(other.exit_code == 0);
  CHECK(other.err.rfind("hpnctl: devices: ", 0) == 0);  // every command: its total time
  for (const std::string& args : {"--quiet plan " + lab + " -o c", "plan " + lab + " -o d -q"}) {
    RunResult r = run_hpnctl(args, cwd.path());
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
  }
  // On a terminal (script(1) runs the command on a pseudo-terminal and
  // copies what it wrote there to its own stdout) the progress line appears.
  auto on_terminal = [&](const std::string& args) {
    const fs::path out = cwd / "typescript.out";
    std::string command = "cd " + q(cwd.path()) + " && script -qec " +
                          q(std::string(HPNCTL_BINARY) + " " + args) + " /dev/null >" + q(out) + " 2>&1 </dev/null";
    CHECK(std::system(command.c_str()) == 0);
    return read_file(out);
  };
  std::string tty = on_terminal("plan " + lab + " -o e");
  INFO(tty);
  CHECK(tty.find("hpnctl: expanding lab...") != std::string::npos);
  CHECK(tty.find("\r\033[K") != std::string::npos);  // and cleared before the summary
  CHECK(on_terminal("--quiet plan " + lab + " -o f").find("expanding") == std::string::npos);
}
