// End-to-end tests of the hpnctl binary: what a user sees on the command
// line and finds in the output directory. Each test runs the real executable
// in its own temporary directory; the lab pod (examples/lab-pod.yaml) keeps
// most of them fast, the default pod is planned where its numbers matter.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "blueprint/csv.h"
#include "support/sqlite.h"
#include "test_util.h"

namespace {

using namespace hpn::test;
using Files = std::map<std::string, std::string>;  // file name -> bytes

const std::vector<std::string> kPlanFiles{
    "blueprint.db", "bom.csv",   "cabling.csv", "core-rules.csv", "devices.csv", "interfaces.csv",
    "legs.csv",     "links.csv", "racks.csv",   "spec.yaml",      "summary.json", "warnings.csv"};

// Every entry of a directory, by name; regular files with their bytes,
// anything else (a directory, a leftover temporary) as a marker.
Files snapshot(const fs::path& dir) {
  Files files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    files[name] = entry.is_regular_file() ? read_file(entry.path()) : "<not a regular file>";
  }
  return files;
}

std::vector<std::string> names(const Files& files) {
  std::vector<std::string> out;
  for (const auto& [name, bytes] : files) out.push_back(name);
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Compares two snapshots file by file, so a failure names the file.
void require_same_files(const Files& expected, const Files& actual) {
  REQUIRE(names(actual) == names(expected));
  for (const auto& [name, bytes] : expected) {
    INFO("file " << name);
    CHECK(actual.at(name).size() == bytes.size());
    CHECK((actual.at(name) == bytes));
  }
}

// A CSV sheet as rows of fields, the header first. Our sheets never hold a
// line break inside a field, so a record is a line.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : split_lines(text)) {
    std::vector<std::string> fields;
    REQUIRE(hpn::parse_csv_line(line, fields));
    rows.push_back(std::move(fields));
  }
  return rows;
}

// Rows of a sheet as column name -> value.
std::vector<std::map<std::string, std::string>> csv_records(const std::string& text) {
  auto rows = parse_csv(text);
  REQUIRE(!rows.empty());
  std::vector<std::map<std::string, std::string>> records;
  for (size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == rows[0].size());
    std::map<std::string, std::string> r;
    for (size_t c = 0; c < rows[0].size(); ++c) r[rows[0][c]] = rows[i][c];
    records.push_back(std::move(r));
  }
  return records;
}

// The cells of the first line of a text table whose first cell is `first`.
// Cells are separated by two or more spaces; a cell holds at most single ones.
std::optional<std::vector<std::string>> table_row(const std::string& text, const std::string& first) {
  for (const auto& line : split_lines(text)) {
    std::vector<std::string> cells;
    size_t i = 0;
    while (i < line.size()) {
      size_t end = line.find("  ", i);
      if (end == std::string::npos) end = line.size();
      if (end > i) cells.push_back(line.substr(i, end - i));
      i = end;
      while (i < line.size() && line[i] == ' ') ++i;
    }
    if (!cells.empty() && cells[0] == first) return cells;
  }
  return std::nullopt;
}

// Where two texts first differ, as "line N: expected '...', got '...'".
std::string first_difference(const std::string& expected, const std::string& actual) {
  auto e = split_lines(expected), a = split_lines(actual);
  for (size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
    std::string le = i < e.size() ? e[i] : "<end of file>";
    std::string la = i < a.size() ? a[i] : "<end of file>";
    if (le != la) return "line " + std::to_string(i + 1) + ": expected '" + le + "', got '" + la + "'";
  }
  return "same lines; the bytes differ (line endings or a final newline)";
}

RunResult plan_ok(const std::string& spec_arg, const fs::path& out, const fs::path& cwd) {
  RunResult r = run_hpnctl("plan " + spec_arg + " -o " + q(out) + " -q", cwd);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

nlohmann::json parse_json(const std::string& text) {
  INFO("output: " << text.substr(0, 500));
  REQUIRE(nlohmann::json::accept(text));
  return nlohmann::json::parse(text);
}

size_t count_lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

bool has_temporary_sibling(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// --- hpnctl plan -------------------------------------------------------------

TEST_CASE("cli/plan: without a spec plans the default pod into ./hpn-plan", "[cli][plan]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plan", cwd.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);

  // Only the plan itself: no temporary sibling left behind.
  CHECK(names(snapshot(cwd.path())) == std::vector<std::string>{"hpn-plan"});
  Files plan = snapshot(cwd / "hpn-plan");
  CHECK(names(plan) == sorted(kPlanFiles));
  for (const auto& name : kPlanFiles) {
    INFO(name);
    CHECK_FALSE(plan[name].empty());
  }
  CHECK(plan["spec.yaml"] == read_file(source_path("examples/hpn-pod.yaml")));

  // The summary's tables: 15 segments x 136 hosts, 15 x 16 ToRs, 2040 hosts x
  // 8 NICs x 2 ports; ToR 128 x 200G : 60 x 400G, with backups 136 x 200G.
  INFO("stdout:\n" << r.out);
  CHECK(table_row(r.out, "host") == std::vector<std::string>{"host", "2040"});
  CHECK(table_row(r.out, "tor") == std::vector<std::string>{"tor", "240"});
  CHECK(table_row(r.out, "host-tor") == std::vector<std::string>{"host-tor", "30720", "1920", "32640"});
  CHECK(table_row(r.out, "ToR") == std::vector<std::string>{"ToR", "1.067:1"});
  CHECK(table_row(r.out, "ToR, backups in use") == std::vector<std::string>{"ToR, backups in use", "1.133:1"});
  CHECK(table_row(r.out, "aggregation to core") == std::vector<std::string>{"aggregation to core", "15.000:1"});
}

TEST_CASE("cli/plan: --format json prints the summary as JSON", "[cli][plan]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plan --format json", cwd.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = parse_json(r.out);
  CHECK(j["name"] == "hpn-default");
  CHECK(j["devices"]["host"] == 2040);
  CHECK(j["devices"]["tor"] == 240);
  CHECK(j["cables"]["host-tor"]["total"] == 32640);
  CHECK(j["cables"]["host-tor"]["backup"] == 1920);
  CHECK(j["oversubscription"]["tor"].get<double>() == Approx(1.067).margin(1e-9));
  CHECK(j["oversubscription"]["aggregation_to_core"].get<double>() == Approx(15.0).margin(1e-9));
  // The JSON on stdout is the summary.json written with the plan.
  CHECK(parse_json(read_file(cwd / "hpn-plan/summary.json")) == j);
}

TEST_CASE("cli/plan: the lab pod planned twice gives byte-identical files", "[cli][plan][determinism]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "first", cwd.path());
  plan_ok(lab_spec_arg(), cwd / "second", cwd.path());
  Files first = snapshot(cwd / "first");
  CHECK(names(first) == sorted(kPlanFiles));
  require_same_files(first, snapshot(cwd / "second"));
}

TEST_CASE("cli/plan: the default pod planned twice gives byte-identical files", "[cli][plan][determinism]") {
  TempDir cwd;
  plan_ok("", cwd / "first", cwd.path());
  plan_ok("", cwd / "second", cwd.path());
  require_same_files(snapshot(cwd / "first"), snapshot(cwd / "second"));
}

TEST_CASE("cli/plan: spec.yaml is the input spec byte for byte", "[cli][plan]") {
  TempDir cwd;
  // Comments, odd spacing and no final newline: all kept as given.
  std::string spec = read_file(source_path("examples/lab-pod.yaml")) +
                     "\n# a trailing comment   \nname:    \"lab-copy\"   # renamed";
  // Drop the original name line so the key is not duplicated.
  spec.erase(spec.find("name: lab\n"), std::string("name: lab\n").size());
  write_file(cwd / "copy.yaml", spec);
  plan_ok("copy.yaml", cwd / "out", cwd.path());
  CHECK(read_file(cwd / "out/spec.yaml") == spec);

  plan_ok(lab_spec_arg(), cwd / "lab", cwd.path());
  CHECK(read_file(cwd / "lab/spec.yaml") == read_file(source_path("examples/lab-pod.yaml")));
}

TEST_CASE("cli/plan: a design error exits 2 with a located diagnostic and writes nothing", "[cli][plan]") {
  TempDir cwd;
  write_file(cwd / "bad.yaml", "version: 1\ntor:\n  uplinks: 59\n");
  RunResult r = run_hpnctl("plan bad.yaml", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "hpnctl: bad.yaml:3:3: tor.uplinks (59) must equal aggregation.switches_per_plane (60): each ToR has "
        "one uplink to every aggregation switch of its plane\n"
        "  uplinks: 59\n"
        "  ^\n");
  // No ./hpn-plan, no temporary directory: only the spec is there.
  CHECK(names(snapshot(cwd.path())) == std::vector<std::string>{"bad.yaml"});

  // The same copy of the lab spec with 59 uplinks breaks two rules, both reported.
  std::string lab = read_file(source_path("examples/lab-pod.yaml"));
  size_t at = lab.find("  uplinks: 4\n");
  REQUIRE(at != std::string::npos);
  lab.replace(at, std::string("  uplinks: 4\n").size(), "  uplinks: 59\n");
  write_file(cwd / "lab59.yaml", lab);
  r = run_hpnctl("plan lab59.yaml -o " + q(cwd / "out"), cwd.path());
  CHECK(r.exit_code == 2);
  const std::string line = std::to_string(std::count(lab.begin(), lab.begin() + at, '\n') + 1);
  CHECK(r.err.find("lab59.yaml:" + line + ":3: ToR port budget exceeded") != std::string::npos);
  CHECK(r.err.find("lab59.yaml:" + line + ":3: tor.uplinks (59) must equal") != std::string::npos);
  CHECK_FALSE(fs::exists(cwd / "out"));
  CHECK_FALSE(has_temporary_sibling(cwd.path()));
}

TEST_CASE("cli/plan: a failing plan leaves an existing plan byte-identical", "[cli][plan][atomic]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  const Files before = snapshot(cwd / "plan");

  SECTION("a design error") {
    write_file(cwd / "bad.yaml", "version: 1\ntor:\n  uplinks: 59\n");
    RunResult r = run_hpnctl("plan bad.yaml -o plan", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("hpnctl: bad.yaml:3:3: ") == 0);
  }
  SECTION("a failure while the new plan is written") {
    // Port names without {sub} collide on broken-out cages; today this is
    // only caught when blueprint.db is indexed, after the sheets are written.
    write_file(cwd / "collide.yaml", read_file(source_path("examples/lab-pod.yaml")) +
                                         "naming:\n  switch_port: \"etp{cage}\"\n");
    RunResult r = run_hpnctl("plan collide.yaml -o plan", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK_FALSE(r.err.empty());
  }
  require_same_files(before, snapshot(cwd / "plan"));
  CHECK_FALSE(has_temporary_sibling(cwd.path()));
}

TEST_CASE("cli/plan: a successful re-plan replaces the old plan as a whole", "[cli][plan][atomic]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  // A file that is not part of a plan goes with the old plan: the directory is
  // swapped, not merged, so nothing stale (a -wal file, an old sheet) survives.
  write_file(cwd / "plan/notes.txt", "old\n");

  std::string renamed = read_file(source_path("examples/lab-pod.yaml"));
  renamed.replace(renamed.find("name: lab\n"), std::string("name: lab\n").size(), "name: lab-two\n");
  write_file(cwd / "two.yaml", renamed);
  plan_ok("two.yaml", cwd / "plan", cwd.path());
  plan_ok("two.yaml", cwd / "fresh", cwd.path());

  require_same_files(snapshot(cwd / "fresh"), snapshot(cwd / "plan"));
  CHECK(read_file(cwd / "plan/spec.yaml") == renamed);
  CHECK_FALSE(has_temporary_sibling(cwd.path()));
}

TEST_CASE("cli/plan: an existing directory that is not a plan is refused and left untouched",
          "[cli][plan][atomic]") {
  TempDir cwd;
  fs::create_directory(cwd / "mine");
  write_file(cwd / "mine/thesis.tex", "\\documentclass{article}\n");
  write_file(cwd / "afile", "not a directory\n");
  const Files mine = snapshot(cwd / "mine");

  RunResult r = run_hpnctl("plan " + lab_spec_arg() + " -o mine", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: mine: exists and is not an hpnctl plan (no blueprint.db); refusing to replace it\n");
  require_same_files(mine, snapshot(cwd / "mine"));

  r = run_hpnctl("plan " + lab_spec_arg() + " -o afile", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("afile: exists and is not a directory") != std::string::npos);
  CHECK(read_file(cwd / "afile") == "not a directory\n");
  CHECK_FALSE(has_temporary_sibling(cwd.path()));
}

TEST_CASE("cli/plan: an existing empty directory is planned into", "[cli][plan]") {
  TempDir cwd;
  fs::create_directory(cwd / "empty");
  plan_ok(lab_spec_arg(), cwd / "empty", cwd.path());
  CHECK(names(snapshot(cwd / "empty")) == sorted(kPlanFiles));
}

TEST_CASE("cli/plan: -o into a nested path that does not exist yet", "[cli][plan]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plan " + lab_spec_arg() + " -q -o deep/er/plan", cwd.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());  // --quiet
  CHECK(names(snapshot(cwd / "deep/er/plan")) == sorted(kPlanFiles));
  CHECK(names(snapshot(cwd / "deep/er")) == std::vector<std::string>{"plan"});
}

TEST_CASE("cli/plan: bom.csv counts each cable in the smallest length bin that covers it", "[cli][plan]") {
  TempDir cwd;
  // The lab's cables are 6 to 9 m: 6 and 7 go to the 7 m bin, 8 to the 8 m
  // bin, and 9 m, beyond the last bin, is counted at its own length.
  write_file(cwd / "bins.yaml", read_file(source_path("examples/lab-pod.yaml")) +
                                    "media:\n  length_bins_m: [7, 8]\n");
  plan_ok("bins.yaml", cwd / "plan", cwd.path());

  std::map<std::pair<std::string, int>, int64_t> expected;  // media, bin -> cables
  std::set<int> lengths;
  for (const auto& c : csv_records(read_file(cwd / "plan/cabling.csv"))) {
    int length = std::stoi(c.at("length_m"));
    lengths.insert(length);
    int bin = length <= 7 ? 7 : length <= 8 ? 8 : length;
    ++expected[{c.at("media"), bin}];
  }
  REQUIRE(lengths.size() >= 3);  // the test means nothing if every cable is one length
  REQUIRE(*lengths.rbegin() > 8);

  std::map<std::pair<std::string, int>, int64_t> counted;
  for (const auto& b : csv_records(read_file(cwd / "plan/bom.csv"))) {
    if (b.at("category") != "cable") continue;
    counted[{b.at("media"), std::stoi(b.at("length_m"))}] += std::stoll(b.at("count"));
  }
  CHECK(counted == expected);
}

TEST_CASE("cli/plan: the lab pod's cabling follows the HPN wiring rules", "[cli][plan]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  std::map<std::string, std::map<std::string, std::string>> devices;
  for (auto& d : csv_records(read_file(cwd / "plan/devices.csv"))) devices[d.at("name")] = d;
  SqliteReader db(cwd / "plan/blueprint.db");
  std::map<std::string, std::string> tor_port_use;
  for (const auto& row : db.rows("SELECT port, use FROM panels WHERE panel = 'tor'")) {
    tor_port_use[row[0]] = row[1];
  }

  std::map<std::string, std::set<std::string>> aggs_of_tor, cores_of_agg;
  std::map<std::string, int> host_cables;
  for (const auto& c : csv_records(read_file(cwd / "plan/cabling.csv"))) {
    const auto& a = devices.at(c.at("a_device"));
    const auto& z = devices.at(c.at("z_device"));
    INFO(c.at("cable_id") << " " << c.at("a_device") << ":" << c.at("a_port") << " - "
                          << c.at("z_device") << ":" << c.at("z_port"));
    if (c.at("kind") == "host-tor") {
      // NIC r port p lands on the rail-r ToR of side p ('a' = plane 1, 'b' = plane 2).
      int nic = 0, port = 0;
      REQUIRE(std::sscanf(c.at("a_port").c_str(), "nic%dp%d", &nic, &port) == 2);
      CHECK(a.at("role") == "host");
      CHECK(z.at("role") == "tor");
      CHECK(z.at("segment") == a.at("segment"));
      CHECK(z.at("rail") == std::to_string(nic));
      CHECK(z.at("plane") == std::to_string(port));
      CHECK(c.at("z_device").back() == static_cast<char>('a' + port - 1));
      // Backup hosts sit on the ToRs' backup ports, active ones on host ports.
      CHECK(c.at("state") == a.at("state"));
      CHECK(tor_port_use.at(c.at("z_port")) == (a.at("state") == "backup" ? "backup" : "host"));
      ++host_cables[c.at("a_device")];
    } else if (c.at("kind") == "tor-agg") {
      CHECK(a.at("role") == "tor");
      CHECK(z.at("role") == "agg");
      CHECK(z.at("plane") == a.at("plane"));
      CHECK(tor_port_use.at(c.at("a_port")) == "uplink");
      aggs_of_tor[c.at("a_device")].insert(c.at("z_device"));
    } else if (c.at("kind") == "agg-core") {
      CHECK(a.at("role") == "agg");
      CHECK(z.at("role") == "core");
      CHECK(z.at("plane") == a.at("plane"));
      CHECK(cores_of_agg[c.at("a_device")].insert(c.at("z_device")).second);  // distinct cores
    } else {
      FAIL("unexpected cable kind " << c.at("kind"));
    }
  }
  // Every host: 2 NICs x 2 ports. Every ToR: all 4 aggregation switches of its plane.
  for (const auto& [name, d] : devices) {
    INFO(name);
    if (d.at("role") == "host") CHECK(host_cables[name] == 4);
    if (d.at("role") != "tor") continue;
    std::set<std::string> plane_aggs;
    for (const auto& [other, o] : devices) {
      if (o.at("role") == "agg" && o.at("plane") == d.at("plane")) plane_aggs.insert(other);
    }
    CHECK(plane_aggs.size() == 4);
    CHECK(aggs_of_tor[name] == plane_aggs);
  }
  CHECK(cores_of_agg.size() == 8);
}

// --- hpnctl spec ---------------------------------------------------------------

TEST_CASE("cli/spec: spec default prints examples/hpn-pod.yaml exactly", "[cli][spec]") {
  TempDir cwd;
  RunResult r = run_hpnctl("spec default", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == read_file(source_path("examples/hpn-pod.yaml")));
}

TEST_CASE("cli/spec: spec check validates a spec and writes nothing", "[cli][spec]") {
  TempDir cwd;
  write_file(cwd / "lab.yaml", read_file(source_path("examples/lab-pod.yaml")));
  RunResult r = run_hpnctl("spec check lab.yaml", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out == "lab.yaml: ok (16 hosts, 112 cables)\n");

  write_file(cwd / "bad.yaml", "version: 1\ntor:\n  uplinks: 59\n");
  r = run_hpnctl("spec check bad.yaml", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("hpnctl: bad.yaml:3:3: tor.uplinks (59) must equal") == 0);
  CHECK(names(snapshot(cwd.path())) == std::vector<std::string>{"bad.yaml", "lab.yaml"});
}

// --- hpnctl devices --------------------------------------------------------------

TEST_CASE("cli/devices: the plane-2 ToRs of one segment, one per rail", "[cli][devices]") {
  TempDir cwd;
  plan_ok("", cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("devices --blueprint plan --role tor --pod 0 --segment 3 --plane 2 --format json",
                           cwd.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json list = parse_json(r.out);
  REQUIRE(list.is_array());
  CHECK(list.size() == 8);
  std::set<int> rails;
  for (const auto& d : list) {
    INFO(d.dump());
    CHECK(d["role"] == "tor");
    CHECK(d["pod"] == 0);
    CHECK(d["segment"] == 3);
    CHECK(d["plane"] == 2);
    // The second ToR of each pair: side 'b' is plane 2 in a dual-plane pod.
    CHECK(d["name"].get<std::string>().back() == 'b');
    rails.insert(d["rail"].get<int>());
  }
  CHECK(rails == std::set<int>{1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("cli/devices: the backup hosts of a segment", "[cli][devices]") {
  TempDir cwd;
  plan_ok("", cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("devices --blueprint plan --role host --state backup --segment 0 --format json",
                           cwd.path());
  REQUIRE(r.exit_code == 0);
  nlohmann::json list = parse_json(r.out);
  CHECK(list.size() == 8);
  std::set<std::string> seen;
  for (const auto& d : list) {
    INFO(d.dump());
    CHECK(d["role"] == "host");
    CHECK(d["state"] == "backup");
    CHECK(d["segment"] == 0);
    CHECK(d["plane"].is_null());  // a host is in both planes
    seen.insert(d["name"].get<std::string>());
  }
  CHECK(seen.size() == 8);
}

TEST_CASE("cli/devices: --format csv has a header and one line per device", "[cli][devices]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  RunResult json = run_hpnctl("devices --blueprint plan --role tor --segment 1 --format json", cwd.path());
  RunResult csv = run_hpnctl("devices --blueprint plan --role tor --segment 1 --format csv", cwd.path());
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  nlohmann::json list = parse_json(json.out);
  REQUIRE(list.size() == 4);  // 2 rails x 2 sides
  auto rows = parse_csv(csv.out);
  REQUIRE(rows.size() == 1 + list.size());
  CHECK(rows[0] == std::vector<std::string>{"name", "role", "pod", "segment", "plane", "rail", "node_id",
                                            "rack", "ru", "state", "asn"});
  for (size_t i = 0; i < list.size(); ++i) {
    INFO(i);
    CHECK(rows[i + 1][0] == list[i]["name"]);
    CHECK(rows[i + 1][3] == "1");
    CHECK(rows[i + 1][4] == std::to_string(list[i]["plane"].get<int>()));
  }
  // The same devices as the devices.csv sheet.
  std::vector<std::string> from_sheet;
  for (const auto& d : csv_records(read_file(cwd / "plan/devices.csv"))) {
    if (d.at("role") == "tor" && d.at("segment") == "1") from_sheet.push_back(d.at("name"));
  }
  std::vector<std::string> listed;
  for (size_t i = 1; i < rows.size(); ++i) listed.push_back(rows[i][0]);
  CHECK(listed == from_sheet);
}

TEST_CASE("cli/devices: a bad --role, --state or --format exits 2", "[cli][devices]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("devices --blueprint plan --role spine", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "hpnctl: --role 'spine': one of host, tor, agg, core, frontend\n");
  r = run_hpnctl("devices --blueprint plan --state spare", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--state 'spare'") != std::string::npos);
  r = run_hpnctl("devices --blueprint plan --format xml", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
}

// --- hpnctl cable ------------------------------------------------------------------

TEST_CASE("cli/cable: a host port's cable and its far end", "[cli][cable]") {
  TempDir cwd;
  plan_ok("", cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("cable host-p0-s00-h000:nic1p1 --blueprint plan --format json", cwd.path());
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json list = parse_json(r.out);
  REQUIRE(list.size() == 1);
  CHECK(list[0]["kind"] == "host-tor");
  CHECK(list[0]["device"] == "host-p0-s00-h000");
  CHECK(list[0]["port"] == "nic1p1");
  CHECK(list[0]["far_device"] == "tor-p0-s00-r1a");
  CHECK(list[0]["far_port"] == "etp1a");
  CHECK(list[0]["label"].get<std::string>().find(list[0]["cable_id"].get<std::string>() +
                                                 " host-p0-s00-h000:nic1p1 > tor-p0-s00-r1a:etp1a ") == 0);
  // Port 2 of the same NIC goes to the other ToR of the pair.
  r = run_hpnctl("cable host-p0-s00-h000:nic1p2 --blueprint plan --format json", cwd.path());
  REQUIRE(r.exit_code == 0);
  list = parse_json(r.out);
  REQUIRE(list.size() == 1);
  CHECK(list[0]["far_device"] == "tor-p0-s00-r1b");
  CHECK(list[0]["far_port"] == "etp1a");
}

TEST_CASE("cli/cable: a ToR's 136 host cables and 60 uplinks", "[cli][cable]") {
  TempDir cwd;
  plan_ok("", cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("cable tor-p0-s00-r1a --blueprint plan --format json", cwd.path());
  REQUIRE(r.exit_code == 0);
  nlohmann::json list = parse_json(r.out);
  CHECK(list.size() == 196);
  std::set<std::string> hosts, aggs, ports;
  for (const auto& c : list) {
    INFO(c.dump());
    CHECK(c["device"] == "tor-p0-s00-r1a");
    ports.insert(c["port"].get<std::string>());
    const std::string far = c["far_device"];
    if (c["kind"] == "host-tor") {
      CHECK(far.rfind("host-p0-s00-", 0) == 0);
      CHECK(c["far_port"] == "nic1p1");
      hosts.insert(far);
    } else {
      CHECK(c["kind"] == "tor-agg");
      CHECK(far.rfind("agg-p0-1-", 0) == 0);  // plane 1 only
      aggs.insert(far);
    }
  }
  CHECK(hosts.size() == 136);
  CHECK(aggs.size() == 60);
  CHECK(ports.size() == 196);  // one cable per port

  RunResult table = run_hpnctl("cable tor-p0-s00-r1a --blueprint plan", cwd.path());
  REQUIRE(table.exit_code == 0);
  CHECK(count_lines(table.out) == 1 + 196);
}

TEST_CASE("cli/cable: an unknown device or port exits 2, a spare port has no cable", "[cli][cable]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  RunResult r = run_hpnctl("cable tor-p9-s00-r1a --blueprint plan", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: no device or cable 'tor-p9-s00-r1a' in plan/blueprint.db\n");

  r = run_hpnctl("cable tor-p0-s00-r1a:etp99 --blueprint plan", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: device 'tor-p0-s00-r1a' has no port 'etp99'\n");

  // A port the panel has but nothing plugs into.
  SqliteReader db(cwd / "plan/blueprint.db");
  auto spare = db.rows("SELECT device, port FROM ports WHERE device = 'tor-p0-s00-r1a' AND use = 'spare' "
                       "ORDER BY port_id LIMIT 1");
  REQUIRE(spare.size() == 1);
  const std::string target = spare[0][0] + ":" + spare[0][1];
  r = run_hpnctl("cable " + target + " --blueprint plan", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out == target + " has no cable\n");
  r = run_hpnctl("cable " + target + " --blueprint plan --format json", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(parse_json(r.out) == nlohmann::json::array());
}

// --- bad blueprints ------------------------------------------------------------------

namespace {

// A query of a bad blueprint: exit 2, one line on stderr naming the problem.
void expect_refused(const std::string& blueprint_arg, const fs::path& cwd, const std::string& needle) {
  for (const std::string command : {"devices", "cable host-p0-s00-h000"}) {
    RunResult r = run_hpnctl(command + " --blueprint " + blueprint_arg, cwd);
    INFO(command << ": stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("hpnctl: ", 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.back() == '\n');
    CHECK(r.err.find(needle) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("cli/blueprint: a missing blueprint is refused", "[cli][blueprint]") {
  TempDir cwd;
  expect_refused("nowhere", cwd.path(), "no blueprint here");
  fs::create_directory(cwd / "empty");
  expect_refused("empty", cwd.path(), "no blueprint here");
  CHECK(fs::is_empty(cwd / "empty"));
}

TEST_CASE("cli/blueprint: an empty blueprint.db is refused", "[cli][blueprint]") {
  TempDir cwd;
  fs::create_directory(cwd / "plan");
  write_file(cwd / "plan/blueprint.db", "");
  expect_refused("plan", cwd.path(), "empty file");
}

TEST_CASE("cli/blueprint: random bytes named blueprint.db are refused", "[cli][blueprint]") {
  TempDir cwd;
  fs::create_directory(cwd / "plan");
  std::mt19937 random(20240804);
  std::string bytes(8192, '\0');
  for (auto& b : bytes) b = static_cast<char>(random() & 0xff);
  write_file(cwd / "plan/blueprint.db", bytes);
  expect_refused("plan", cwd.path(), "not an SQLite database");
}

TEST_CASE("cli/blueprint: a truncated blueprint.db is refused", "[cli][blueprint]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  std::string db = read_file(cwd / "plan/blueprint.db");
  REQUIRE(db.size() > 8192);
  fs::create_directory(cwd / "cut");
  write_file(cwd / "cut/blueprint.db", db.substr(0, db.size() / 2));
  expect_refused("cut", cwd.path(), "truncated");
}

TEST_CASE("cli/blueprint: an SQLite file that is not a blueprint is refused", "[cli][blueprint]") {
  TempDir cwd;
  fs::create_directory(cwd / "plan");
  sql_exec(cwd / "plan/blueprint.db", "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');");
  expect_refused("plan", cwd.path(), "not an hpnctl blueprint");
}

TEST_CASE("cli/blueprint: a blueprint of another schema version is refused", "[cli][blueprint]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  sql_exec(cwd / "plan/blueprint.db", "PRAGMA user_version = 99;");
  expect_refused("plan", cwd.path(), "schema version 99");
}

TEST_CASE("cli/blueprint: cable rows and labels in blueprint.db equal cabling.csv", "[cli][blueprint]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  auto sheet = parse_csv(read_file(cwd / "plan/cabling.csv"));
  REQUIRE(sheet.size() > 1);
  const std::vector<std::string> columns = sheet[0];
  CHECK(columns == std::vector<std::string>{"cable_id", "kind", "a_device", "a_port", "z_device", "z_port",
                                            "speed_gbps", "state", "length_m", "media", "label_a",
                                            "label_z", "a_rack", "a_ru", "z_rack", "z_ru", "stock_length_m",
                                            "legs", "a_panel", "z_panel"});
  std::string select;
  for (const auto& c : columns) select += (select.empty() ? "" : ", ") + c;
  SqliteReader db(cwd / "plan/blueprint.db");
  auto rows = db.rows("SELECT " + select + " FROM cables ORDER BY rowid");
  REQUIRE(rows.size() == sheet.size() - 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("cable " << sheet[i + 1][0]);
    CHECK(rows[i] == sheet[i + 1]);
  }
  // Each label names its cable, its own end, and the far end's place.
  auto places = db.rows("SELECT cable_id, a_device, a_port, z_device, z_port, a_rack, a_ru, z_rack, z_ru, "
                        "label_a, label_z FROM cables ORDER BY rowid");
  for (const auto& p : places) {
    INFO("cable " << p[0]);
    CHECK(p[9] == p[0] + " " + p[1] + ":" + p[2] + " > " + p[3] + ":" + p[4] + " " + p[7] + " U" + p[8]);
    CHECK(p[10] == p[0] + " " + p[3] + ":" + p[4] + " > " + p[1] + ":" + p[2] + " " + p[5] + " U" + p[6]);
  }
}

// --- usage ---------------------------------------------------------------------------

TEST_CASE("cli/usage: a mistyped command suggests the closest one", "[cli][usage]") {
  TempDir cwd;
  RunResult r = run_hpnctl("plna", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command 'plna'") != std::string::npos);
  CHECK(r.err.find("did you mean 'plan'?") != std::string::npos);
  r = run_hpnctl("devics", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'devices'?") != std::string::npos);
  CHECK(fs::is_empty(cwd.path()));
}

TEST_CASE("cli/usage: --help, plan --help and --version", "[cli][usage]") {
  TempDir cwd;
  RunResult r = run_hpnctl("--help", cwd.path());
  CHECK(r.exit_code == 0);
  for (const char* command : {"plan", "spec", "devices", "cable"}) {
    INFO(command);
    CHECK(r.out.find(command) != std::string::npos);
  }
  r = run_hpnctl("plan --help", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("--output") != std::string::npos);
  CHECK(r.out.find("--format") != std::string::npos);
  CHECK(fs::is_empty(cwd.path()));  // help plans nothing

  r = run_hpnctl("--version", cwd.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out == std::string(HPNCTL_EXPECTED_VERSION) + "\n");
}

// --- golden files ----------------------------------------------------------------------

TEST_CASE("cli/golden: the lab pod's cabling.csv and summary.json match tests/golden/lab-pod", "[cli][golden]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  for (const char* file : {"cabling.csv", "summary.json"}) {
    const fs::path golden = source_path("tests/golden/lab-pod") / file;
    REQUIRE(fs::exists(golden));
    const std::string expected = read_file(golden);
    const std::string actual = read_file(cwd / "plan" / file);
    if (actual != expected) {
      FAIL_CHECK("tests/golden/lab-pod/" << file << " differs from a fresh plan of examples/lab-pod.yaml ("
                                         << first_difference(expected, actual)
                                         << "). If the change is intended, run tools/regen-golden.sh "
                                            "PATH/TO/hpnctl and review the diff before committing it.");
    }
  }
}

TEST_CASE("cli/errors: the parser's errors are hpnctl's, naming the option as typed, with a did-you-mean",
          "[cli][errors]") {
  TempDir cwd;
  struct Case {
    std::string args, err;
  };
  const std::vector<Case> cases = {
      {"plan --ouput x", "hpnctl: plan: unknown option '--ouput' (did you mean '--output'?); see 'hpnctl plan --help'\n"},
      {"cable", "hpnctl: cable: TARGET is required; see 'hpnctl cable --help'\n"},
      {"devices --segment abc", "hpnctl: devices: --segment: 'abc' is not a valid value; see 'hpnctl devices --help'\n"},
      {"lab pin", "hpnctl: lab: unknown command 'pin' (did you mean 'ping'?); see 'hpnctl lab --help'\n"},
      {"lab", "hpnctl: lab: a command is required, one of up, down, status, ping, inventory; see 'hpnctl lab --help'\n"},
      {"plan a b c", "hpnctl: plan: unexpected arguments 'b c'; see 'hpnctl plan --help'\n"},
  };
  for (const auto& c : cases) {
    INFO("hpnctl " << c.args);
    RunResult r = run_hpnctl(c.args, cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err == c.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli/quiet: -q and --quiet are the same before the command and after it", "[cli][quiet]") {
  TempDir cwd;
  for (const char* args : {"-q plan -o a", "--quiet plan -o b", "plan -q -o c", "plan --quiet -o d"}) {
    INFO(args);
    RunResult r = run_hpnctl(args, cwd.path());
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
  }
}

TEST_CASE("cli/cable: the ID on a label, a cage's lanes, and where the far end is", "[cli][cable]") {
  TempDir cwd;
  plan_ok("", cwd / "plan", cwd.path());
  // The label in the technician's hand names the cable: shown from its a-end.
  RunResult r = run_hpnctl("cable C0H00001 --blueprint plan --format json", cwd.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json list = parse_json(r.out);
  REQUIRE(list.size() == 1);
  CHECK(list[0]["cable_id"] == "C0H00001");
  CHECK(list[0]["device"] == list[0]["a_device"]);
  // Its far end's rack and unit are the devices' own, as devices lists them.
  RunResult tor = run_hpnctl("devices --blueprint plan --role tor --format json", cwd.path());
  REQUIRE(tor.exit_code == 0);
  bool placed = false;
  for (const auto& d : parse_json(tor.out)) {
    if (d["name"] != list[0]["far_device"]) continue;
    CHECK(d["rack"] == list[0]["far_rack"]);
    CHECK(d["ru"] == list[0]["far_ru"]);
    placed = true;
  }
  CHECK(placed);
  // The CSV carries the location, each end's optic and the label.
  r = run_hpnctl("cable C0H00001 --blueprint plan --format csv", cwd.path());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("cable_id,kind,port,far_device,far_port,far_rack,far_ru,speed_gbps,length_m,stock_length_m,media,state,"
                    "optic,far_optic,label\n", 0) == 0);
  CHECK(r.out.find(list[0]["label"].get<std::string>()) != std::string::npos);
  // The host port's 200G optic; the ToR's cage of two 200G lanes, one 400G optic (the spec's media.optics).
  CHECK(list[0]["optic"] == "QSFP56-200G-SR4");
  CHECK(list[0]["far_optic"] == "QSFP-DD-400G-SR8 (2 x 200G)");
  CHECK(r.out.find(",QSFP56-200G-SR4,QSFP-DD-400G-SR8 (2 x 200G),") != std::string::npos);
  // A cage named without its lane: the cables of etp1a and etp1b.
  r = run_hpnctl("cable tor-p0-s00-r1a:etp1 --blueprint plan --format json", cwd.path());
  REQUIRE(r.exit_code == 0);
  list = parse_json(r.out);
  REQUIRE(list.size() == 2);
  CHECK(list[0]["port"] == "etp1a");
  CHECK(list[1]["port"] == "etp1b");
  // Neither a device nor a cable.
  r = run_hpnctl("cable C9Z99999 --blueprint plan", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no device or cable 'C9Z99999'") != std::string::npos);
}

TEST_CASE("cli/devices: a filter value the plan has no device of exits 2 with the plan's range", "[cli][devices]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--pod 5", "hpnctl: --pod 5: the plan has 0 to 0\n"},
      {"--rail 0", "hpnctl: --rail 0: the plan has 1 to 2\n"},
      {"--plane 3", "hpnctl: --plane 3: the plan has 1 to 2\n"},
      {"--segment 2", "hpnctl: --segment 2: the plan has 0 to 1\n"},
  };
  for (const auto& [args, err] : cases) {
    INFO(args);
    RunResult r = run_hpnctl("devices --blueprint plan " + args, cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err == err);
    CHECK(r.out.empty());
  }
  // In range, the same filters list devices.
  RunResult r = run_hpnctl("devices --blueprint plan --pod 0 --rail 2 --plane 2 --segment 1 --format json", cwd.path());
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(parse_json(r.out).empty());
}

TEST_CASE("cli/export: --format as every other command takes it, the positional form the same", "[cli][export]") {
  TempDir cwd;
  plan_ok(lab_spec_arg(), cwd / "plan", cwd.path());
  RunResult option = run_hpnctl("export --format batfish --blueprint plan", cwd.path());
  RunResult positional = run_hpnctl("export batfish --blueprint plan", cwd.path());
  REQUIRE(option.exit_code == 0);
  CHECK(option.out == positional.out);
  CHECK_FALSE(option.out.empty());
  RunResult both = run_hpnctl("export batfish --format ptm --blueprint plan", cwd.path());
  CHECK(both.exit_code == 2);
  CHECK(both.err == "hpnctl: two formats, 'batfish' and --format ptm: give one\n");
  RunResult none = run_hpnctl("export --blueprint plan", cwd.path());
  CHECK(none.exit_code == 2);
  CHECK(none.err == "hpnctl: give --format, one of ptm, sonic, netbox, batfish, xlsx, dot, svg, ansible\n");
}

TEST_CASE("cli/help: every command's --help fits 80 columns", "[cli][help]") {
  TempDir cwd;
  // Every command, found by walking the Subcommands sections from the top.
  std::vector<std::string> todo{""}, seen;
  while (!todo.empty()) {
    const std::string command = todo.back();
    todo.pop_back();
    seen.push_back(command);
    RunResult r = run_hpnctl((command.empty() ? "" : command + " ") + "--help", cwd.path());
    INFO("hpnctl " << command << " --help");
    REQUIRE(r.exit_code == 0);
    std::istringstream in(r.out);
    bool subcommands = false;
    for (std::string line; std::getline(in, line);) {
      // The usage line names the binary by the path it was run as: not the user's.
      if (line.rfind("Usage: ", 0) != 0) CHECK(line.size() <= 80);
      if (line == "Subcommands:") subcommands = true;
      else if (line.empty()) subcommands = false;
      else if (subcommands && line.rfind("  ", 0) == 0 && line[2] != ' ') {
        const std::string name = line.substr(2, line.find(' ', 2) - 2);
        todo.push_back(command.empty() ? name : command + " " + name);
      }
    }
  }
  CHECK(seen.size() > 15);
}
