// hpnctl export, end to end: each format written by the real binary from a
// real plan and read back by the consumer's own parser (Graphviz's dot,
// Python's csv and json modules, openpyxl, an XML parser; see
// export_check.py), then compared with what blueprint.db says, queried
// directly with SQLite.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "planned_pod.h"
#include "support/sqlite.h"
#include "test_util.h"

namespace {

using namespace hpn::test;

std::string lab_spec() { return q(source_path("examples/lab-pod.yaml")); }

// Runs a shell command, stdout captured.
RunResult shell(const std::string& command) {
  TempDir capture;
  int status = std::system((command + " >" + q(capture / "out") + " 2>" + q(capture / "err") + " </dev/null").c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(capture / "out");
  r.err = read_file(capture / "err");
  return r;
}

// What export_check.py (the consumers' parsers) found in the files.
nlohmann::json check(const std::string& mode, const std::vector<fs::path>& files) {
  // Debian's python3, which has python3-openpyxl; a pyenv or venv python3 first
  // on PATH usually has not.
  std::string command = "/usr/bin/python3 " + q(source_path("tests/cli/export_check.py")) + " " + mode;
  for (const auto& f : files) command += " " + q(f);
  auto r = shell(command);
  INFO(command << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// The cables as blueprint.db has them, in its order.
Rows db_cables(SqliteReader& db, const std::string& where = "") {
  return db.rows("SELECT cable_id, kind, a_device, a_port, z_device, z_port, speed_gbps, state, length_m, media,"
                 " a_rack, a_ru, z_rack, z_ru, label_a, label_z, stock_length_m FROM cables " + where + " ORDER BY rowid");
}

std::vector<std::string> ptm_lines(const Rows& cables) {
  std::vector<std::string> lines{"graph G {"};
  for (const auto& c : cables) {
    lines.push_back("  \"" + c[2] + "\":\"" + c[3] + "\" -- \"" + c[4] + "\":\"" + c[5] + "\";");
  }
  lines.push_back("}");
  return lines;
}

std::vector<std::string> strings(const nlohmann::json& row) {
  std::vector<std::string> out;
  for (const auto& v : row) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

}  // namespace

// --- Cumulus PTM -------------------------------------------------------------

TEST_CASE("cli/export: ptm has every cable of the plan once in order and dot parses it", "[cli][export]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path out = lab.dir / "topology.dot";
  auto r = lab.ok("export ptm -o " + q(out));
  Rows cables = db_cables(db);
  REQUIRE(cables.size() == 112);
  CHECK(r.out == "wrote 112 cables (ptm) to " + out.string() + "\n");
  CHECK(split_lines(read_file(out)) == ptm_lines(cables));

  // Graphviz reads the file: every device with a cable becomes one node.
  auto rendered = shell("dot -Tsvg " + q(out) + " -o " + q(lab.dir / "topology.svg"));
  INFO(rendered.err);
  REQUIRE(rendered.exit_code == 0);
  long devices = db.number("SELECT count(*) FROM (SELECT a_device FROM cables UNION SELECT z_device FROM cables)");
  auto nodes = check("svg", {lab.dir / "topology.svg"});
  CHECK(nodes.begin().value() == devices);

  // Without -o the same bytes go to stdout.
  CHECK(lab.ok("export ptm").out == read_file(out));
}

TEST_CASE("cli/export: ptm --switch is that switch's file: only the cables with an end on it", "[cli][export]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  for (const char* role : {"tor", "agg", "core"}) {
    std::string device = db.rows(std::string("SELECT name FROM devices WHERE role = '") + role +
                                 "' ORDER BY rowid LIMIT 1")[0][0];
    Rows cables = db_cables(db, "WHERE a_device = '" + device + "' OR z_device = '" + device + "'");
    REQUIRE_FALSE(cables.empty());
    auto r = lab.ok("export ptm --switch " + device);
    INFO(device);
    CHECK(split_lines(r.out) == ptm_lines(cables));
  }
}

// --- SONiC -------------------------------------------------------------------

TEST_CASE("cli/export: sonic links CSV has the sonic-mgmt columns and bandwidth in Mb/s with one row per cable",
          "[cli][export]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path out = lab.dir / "lab_links.csv";
  lab.ok("export sonic -o " + q(out));
  auto csv = check("csv", {out});
  CHECK(strings(csv["header"]) ==
        std::vector<std::string>{"StartDevice", "StartPort", "EndDevice", "EndPort", "BandWidth", "VlanID",
                                 "VlanMode"});
  Rows cables = db_cables(db);
  REQUIRE(csv["rows"].size() == cables.size());
  for (size_t i = 0; i < cables.size(); ++i) {
    const auto& c = cables[i];
    INFO("cable " << c[0]);
    CHECK(strings(csv["rows"][i]) ==
          std::vector<std::string>{c[2], c[3], c[4], c[5], std::to_string(std::stoi(c[6]) * 1000), "", ""});
  }
  // One known row: the first host's first port on its rail-1 plane-1 ToR, at 200G.
  CHECK(strings(csv["rows"][0]) ==
        std::vector<std::string>{"host-p0-s00-h000", "nic1p1", "tor-p0-s00-r1a", "etp1a", "200000", "", ""});
}

// --- NetBox ------------------------------------------------------------------

TEST_CASE("cli/export: netbox cable import CSV has NetBox's columns and only values NetBox accepts",
          "[cli][export]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path out = lab.dir / "cables.csv";
  lab.ok("export netbox --segment 1 -o " + q(out));
  auto csv = check("csv", {out});
  CHECK(strings(csv["header"]) == std::vector<std::string>{"side_a_device", "side_a_type", "side_a_name",
                                                           "side_b_device", "side_b_type", "side_b_name", "type",
                                                           "status", "label", "color", "length", "length_unit"});
  // Segment 1's cables: its hosts' and its ToRs' (the ToR uplinks included).
  Rows cables = db_cables(db,
                          "WHERE a_device IN (SELECT name FROM devices WHERE segment = 1)"
                          " OR z_device IN (SELECT name FROM devices WHERE segment = 1)");
  REQUIRE(cables.size() == 48);  // 8 hosts x 4 ports + 4 ToRs x 4 uplinks
  REQUIRE(csv["rows"].size() == cables.size());
  // NetBox's CableTypeChoices and the cable statuses (dcim/choices.py).
  const std::set<std::string> netbox_types{"cat3", "cat5", "cat5e", "cat6", "cat6a", "cat7", "cat7a", "cat8",
                                           "dac-active", "dac-passive", "mrj21-trunk", "coaxial", "mmf", "mmf-om1",
                                           "mmf-om2", "mmf-om3", "mmf-om4", "mmf-om5", "smf", "smf-os1", "smf-os2",
                                           "aoc", "power", "usb"};
  const std::regex color("^([0-9a-f]{6})?$");
  for (size_t i = 0; i < cables.size(); ++i) {
    const auto& c = cables[i];
    auto row = strings(csv["rows"][i]);
    INFO("cable " << c[0]);
    CHECK(row[0] == c[2]);
    CHECK(row[1] == "dcim.interface");
    CHECK(row[2] == c[3]);
    CHECK(row[3] == c[4]);
    CHECK(row[4] == "dcim.interface");
    CHECK(row[5] == c[5]);
    CHECK(netbox_types.count(row[6]) == 1);
    CHECK(row[7] == "planned");
    CHECK(row[8] == c[0]);
    CHECK(std::regex_match(row[9], color));
    CHECK(row[10] == c[8]);
    CHECK(row[11] == "m");
  }
  CHECK(strings(csv["rows"][0]) ==
        std::vector<std::string>{"host-p0-s01-h000", "dcim.interface", "nic1p1", "tor-p0-s01-r1a", "dcim.interface",
                                 "etp1a", "mmf", "planned", cables[0][0], "00ffff", cables[0][8], "m"});
}

// --- Batfish -----------------------------------------------------------------

TEST_CASE("cli/export: batfish layer1_topology.json has each cable in both directions", "[cli][export]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path out = lab.dir / "layer1_topology.json";
  lab.ok("export batfish -o " + q(out));
  auto topo = check("batfish", {out});
  CHECK(topo["keys"] == nlohmann::json::array({"edges"}));
  Rows cables = db_cables(db);
  REQUIRE(topo["edges"].size() == 2 * cables.size());
  std::multiset<std::vector<std::string>> expected, actual;
  for (const auto& c : cables) {
    expected.insert({c[2], c[3], c[4], c[5]});
    expected.insert({c[4], c[5], c[2], c[3]});
  }
  for (const auto& e : topo["edges"]) actual.insert(strings(e));
  CHECK(actual == expected);
  // One known link, both ways: the first ToR's first uplink to the first plane-1 aggregation switch.
  CHECK(actual.count({"tor-p0-s00-r1a", "etp5", "agg-p0-1-00", "etp1"}) == 1);
  CHECK(actual.count({"agg-p0-1-00", "etp1", "tor-p0-s00-r1a", "etp5"}) == 1);
}

// --- XLSX --------------------------------------------------------------------

namespace {

// The workbook's sheets as blueprint.db implies them: a sheet per segment
// with its hosts' cables, then the uplinks, each as its cable IDs.
std::vector<std::pair<std::string, std::vector<std::string>>> expected_sheets(SqliteReader& db) {
  std::vector<std::pair<std::string, std::vector<std::string>>> sheets;
  for (const auto& s : db.rows("SELECT DISTINCT pod, segment FROM devices WHERE role = 'host' ORDER BY pod, segment")) {
    std::vector<std::string> ids;
    for (const auto& r : db.rows("SELECT c.cable_id FROM cables c JOIN devices d ON d.name = c.a_device"
                                 " WHERE d.role = 'host' AND d.pod = " + s[0] + " AND d.segment = " + s[1] +
                                 " ORDER BY c.rowid")) {
      ids.push_back(r[0]);
    }
    sheets.push_back({"segment " + s[0] + "-" + s[1], ids});
  }
  std::vector<std::string> uplinks;
  for (const auto& r : db.rows("SELECT c.cable_id FROM cables c JOIN devices d ON d.name = c.a_device"
                               " WHERE d.role <> 'host' ORDER BY c.rowid")) {
    uplinks.push_back(r[0]);
  }
  sheets.push_back({"uplinks", uplinks});
  return sheets;
}

// The first <name .../> element of an XML text, or empty.
std::string element(const std::string& xml, const std::string& name) {
  const size_t at = xml.find("<" + name + " ");
  if (at == std::string::npos) return "";
  return xml.substr(at, xml.find('>', at) - at + 1);
}

// An attribute's value in one element's text, or empty.
std::string attribute(const std::string& element, const std::string& name) {
  const size_t at = element.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const size_t from = at + name.size() + 3;
  return element.substr(from, element.find('"', from) - from);
}

void check_workbook(SqliteReader& db, const nlohmann::json& book) {
  auto expected = expected_sheets(db);
  REQUIRE(book["sheets"].size() == expected.size());
  std::map<std::string, std::vector<std::string>> by_id;
  for (auto& c : db_cables(db)) by_id[c[0]] = c;
  for (size_t s = 0; s < expected.size(); ++s) {
    const auto& sheet = book["sheets"][s];
    INFO("sheet " << expected[s].first);
    CHECK(sheet["name"] == expected[s].first);
    CHECK(sheet["freeze_panes"] == "A2");
    CHECK(sheet["auto_filter"] == "A1:R" + std::to_string(expected[s].second.size() + 1));
    // cabling.csv's names for the same columns, so one reader keyed by name reads both.
    CHECK(strings(sheet["header"]) ==
          std::vector<std::string>{"cable_id", "kind", "state", "a_device", "a_port", "a_rack", "a_ru", "z_device",
                                   "z_port", "z_rack", "z_ru", "media", "speed_gbps", "length_m", "stock_length_m",
                                   "label_a", "label_z", "label_printer"});
    CHECK(sheet["printer_wraps"] == true);
    // Every column has a width, at least as wide as its header.
    CHECK(sheet["widths"].size() == 18);
    CHECK(sheet["widths"]["A"].get<double>() >= std::string("cable_id").size());
    REQUIRE(sheet["rows"].size() == expected[s].second.size());
    for (size_t i = 0; i < expected[s].second.size(); ++i) {
      auto row = strings(sheet["rows"][i]);
      const auto& c = by_id.at(expected[s].second[i]);
      INFO("cable " << c[0]);
      REQUIRE(row[0] == c[0]);
      CHECK(std::vector<std::string>(row.begin() + 1, row.begin() + 17) ==
            std::vector<std::string>{c[1], c[7], c[2], c[3], c[10], c[11], c[4], c[5], c[12], c[13], c[9], c[6],
                                     c[8], c[16], c[14], c[15]});
      CHECK(row[17] == c[0] + "\nA " + c[2] + ":" + c[3] + " " + c[10] + " U" + c[11] + "\nZ " + c[4] + ":" + c[5] +
                           " " + c[12] + " U" + c[13]);
    }
  }
}

}  // namespace

TEST_CASE("cli/export: xlsx opens in openpyxl with a sheet per segment and the uplinks frozen and filtered",
          "[cli][export][xlsx]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path out = lab.dir / "cabling.xlsx";
  auto r = lab.ok("export xlsx -o " + q(out));
  CHECK(r.out == "wrote 112 cables on 3 sheets to " + out.string() + "\n");
  auto book = check("xlsx", {out});
  CHECK(book["title"] == "Cabling of lab");
  check_workbook(db, book);

  // Printed: every sheet landscape, one page wide and as many down as it
  // takes, its header row repeated on each page (the print titles), as the
  // file itself says.
  const size_t sheets = book["sheets"].size();
  const nlohmann::json members = check("zip", {out});  // the XLSX unzipped
  REQUIRE(members.contains("xl/workbook.xml"));
  const std::string workbook = members["xl/workbook.xml"];
  for (size_t i = 0; i < sheets; ++i) {
    const std::string name = book["sheets"][i]["name"];
    INFO("sheet " << name);
    const std::string member = "xl/worksheets/sheet" + std::to_string(i + 1) + ".xml";
    REQUIRE(members.contains(member));
    const std::string xml = members[member];
    const std::string setup = element(xml, "pageSetup");
    CHECK(attribute(setup, "orientation") == "landscape");
    // fitToWidth's default is 1 (ECMA-376 §18.3.1.64): absent or 1, one page wide.
    const std::string width = attribute(setup, "fitToWidth");
    CHECK((width.empty() || width == "1"));
    CHECK(attribute(setup, "fitToHeight") == "0");
    CHECK(attribute(element(xml, "pageSetUpPr"), "fitToPage") == "1");
    const std::string quoted = name.find(' ') == std::string::npos ? name : "'" + name + "'";
    CHECK(workbook.find("<definedName name=\"_xlnm.Print_Titles\" localSheetId=\"" + std::to_string(i) + "\">" +
                        quoted + "!$1:$1</definedName>") != std::string::npos);
  }

  // The same plan gives the same bytes.
  fs::path again = lab.dir / "again.xlsx";
  lab.ok("export xlsx -o " + q(again));
  CHECK(read_file(out) == read_file(again));
}

TEST_CASE("cli/export: xlsx of the default pod has 15 segment sheets and the uplinks with every cable once",
          "[cli][export][xlsx][default-pod]") {
  Planned pod("");
  SqliteReader db(pod.db());
  fs::path out = pod.dir / "cabling.xlsx";
  auto start = std::chrono::steady_clock::now();
  pod.ok("export xlsx -o " + q(out));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("export xlsx of the default pod: " << seconds << " s");
  // The rows themselves are checked on the lab pod above; here each sheet's size.
  auto book = check("xlsx-sizes", {out});
  auto expected = expected_sheets(db);
  REQUIRE(expected.size() == 16);
  REQUIRE(book["sheets"].size() == expected.size());
  size_t rows = 0;
  for (size_t s = 0; s < expected.size(); ++s) {
    INFO("sheet " << expected[s].first);
    CHECK(book["sheets"][s]["name"] == expected[s].first);
    CHECK(book["sheets"][s]["rows"] == expected[s].second.size());
    CHECK(book["sheets"][s]["columns"] == 18);
    rows += book["sheets"][s]["rows"].get<size_t>();
  }
  CHECK(rows == static_cast<size_t>(db.number("SELECT count(*) FROM cables")));
}

// --- Graphviz ----------------------------------------------------------------

namespace {

// Graphviz nodes a diagram must have, from blueprint.db: a segment rail's
// ToRs and the racks of the hosts cabled to them; a pod's segments,
// aggregation planes and the core planes its aggregation switches reach.
std::string rail_cables(const nlohmann::json& entry) {
  return "FROM cables c JOIN devices h ON h.name = c.a_device JOIN devices t ON t.name = c.z_device"
         " WHERE c.kind = 'host-tor' AND t.pod = " + std::to_string(entry["pod"].get<int>()) +
         " AND t.segment = " + std::to_string(entry["segment"].get<int>()) +
         " AND t.rail = " + std::to_string(entry["rail"].get<int>());
}

long expected_nodes(SqliteReader& db, const nlohmann::json& entry) {
  std::string pod = std::to_string(entry["pod"].get<int>());
  if (entry["kind"] == "segment") {
    return db.number("SELECT count(DISTINCT h.rack) " + rail_cables(entry)) +
           db.number("SELECT count(*) FROM devices WHERE role = 'tor' AND pod = " + pod +
                     " AND segment = " + std::to_string(entry["segment"].get<int>()) +
                     " AND rail = " + std::to_string(entry["rail"].get<int>()));
  }
  return db.number("SELECT count(DISTINCT segment) FROM devices WHERE pod = " + pod + " AND segment IS NOT NULL") +
         db.number("SELECT count(DISTINCT plane) FROM devices WHERE role = 'agg' AND pod = " + pod) +
         db.number("SELECT count(DISTINCT z.plane) FROM cables c JOIN devices a ON a.name = c.a_device"
                   " JOIN devices z ON z.name = c.z_device WHERE c.kind = 'agg-core' AND a.pod = " + pod);
}

// A line per rack and ToR of a rail; per bundle in the overview.
long expected_edges(SqliteReader& db, const nlohmann::json& entry) {
  std::string pod = std::to_string(entry["pod"].get<int>());
  if (entry["kind"] == "segment") {
    return db.number("SELECT count(*) FROM (SELECT DISTINCT h.rack, t.name " + rail_cables(entry) + ")");
  }
  // One bundle per (segment, plane) of ToR uplinks and one per plane toward the core.
  return db.number("SELECT count(*) FROM (SELECT DISTINCT a.segment, z.plane FROM cables c"
                   " JOIN devices a ON a.name = c.a_device JOIN devices z ON z.name = c.z_device"
                   " WHERE c.kind = 'tor-agg' AND a.pod = " + pod + ")") +
         db.number("SELECT count(DISTINCT z.plane) FROM cables c JOIN devices a ON a.name = c.a_device"
                   " JOIN devices z ON z.name = c.z_device WHERE c.kind = 'agg-core' AND a.pod = " + pod);
}

long expected_cables(SqliteReader& db, const nlohmann::json& entry) {
  return entry["kind"] == "segment" ? db.number("SELECT count(*) " + rail_cables(entry)) : 0;
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("cli/export: dot writes a diagram per segment rail and per pod that Graphviz renders with the plan's nodes",
          "[cli][export][graphviz]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path dir = lab.dir / "diagrams";
  auto r = lab.ok("export dot -o " + q(dir));
  CHECK(r.out == "wrote 5 diagrams (dot) to " + dir.string() + "/\n");
  auto index = nlohmann::json::parse(read_file(dir / "diagrams.json"));
  CHECK(index["format"] == "hpnctl-diagrams");
  std::set<std::string> listed{"diagrams.json"};
  for (const auto& e : index["diagrams"]) listed.insert(e["file"].get<std::string>());
  CHECK(listed == std::set<std::string>{"diagrams.json", "pod-0.dot", "segment-0-0-rail-1.dot", "segment-0-0-rail-2.dot",
                                        "segment-0-1-rail-1.dot", "segment-0-1-rail-2.dot"});
  CHECK(files_in(dir) == listed);

  for (const auto& e : index["diagrams"]) {
    fs::path dot = dir / e["file"].get<std::string>();
    fs::path svg = lab.dir / (dot.stem().string() + ".svg");
    INFO(dot);
    auto rendered = shell("dot -Tsvg " + q(dot) + " -o " + q(svg));
    INFO(rendered.err);
    REQUIRE(rendered.exit_code == 0);
    CHECK(rendered.err.empty());  // no Graphviz warning either
    long nodes = expected_nodes(db, e);
    CHECK(e["nodes"] == nodes);
    CHECK(e["edges"] == expected_edges(db, e));
    CHECK(e["cables"] == expected_cables(db, e));
    CHECK(check("svg", {svg}).begin().value() == nodes);
  }

  // Without -o, every diagram on stdout, one after another, as dot(1) reads them.
  std::string all;
  for (const auto& e : index["diagrams"]) all += read_file(dir / e["file"].get<std::string>());
  CHECK(lab.ok("export dot").out == all);
}

TEST_CASE("cli/export: svg renders every diagram through Graphviz into the directory", "[cli][export][graphviz]") {
  Planned lab(lab_spec());
  SqliteReader db(lab.db());
  fs::path dir = lab.dir / "svg";
  lab.ok("export svg --pod 0 -o " + q(dir));
  auto index = nlohmann::json::parse(read_file(dir / "diagrams.json"));
  std::vector<fs::path> svgs;
  for (const auto& e : index["diagrams"]) svgs.push_back(dir / e["file"].get<std::string>());
  CHECK(files_in(dir) == std::set<std::string>{"diagrams.json", "pod-0.svg", "segment-0-0-rail-1.svg",
                                               "segment-0-0-rail-2.svg", "segment-0-1-rail-1.svg",
                                               "segment-0-1-rail-2.svg"});
  auto counts = check("svg", svgs);
  for (size_t i = 0; i < svgs.size(); ++i) {
    INFO(svgs[i]);
    CHECK(counts[svgs[i].string()] == expected_nodes(db, index["diagrams"][i]));
  }
  // Each rack-ToR line carries its cables' IDs as a tooltip.
  std::string first_cable = db.rows("SELECT cable_id FROM cables WHERE kind = 'host-tor' ORDER BY rowid LIMIT 1")[0][0];
  CHECK(read_file(dir / "segment-0-0-rail-1.svg").find(first_cable) != std::string::npos);

  // --segment leaves the pod overview out; a second run replaces the set whole.
  lab.ok("export svg --segment 1 -o " + q(dir));
  CHECK(files_in(dir) == std::set<std::string>{"diagrams.json", "segment-0-1-rail-1.svg", "segment-0-1-rail-2.svg"});
}

// --- Errors ------------------------------------------------------------------

TEST_CASE("cli/export: bad input exits 2 with one line that says what to do and writes nothing",
          "[cli][export][errors]") {
  Planned lab(lab_spec());
  const std::vector<std::pair<std::string, std::string>> cases{
      {"export yaml",
       "hpnctl: unknown export format 'yaml'; one of ptm, sonic, netbox, batfish, xlsx, dot, svg, ansible\n"},
      {"export sonc",
       "hpnctl: unknown export format 'sonc' (did you mean 'sonic'?); one of ptm, sonic, netbox, batfish, xlsx, dot, "
       "svg, ansible\n"},
      {"export ptm --switch host-p0-s00-h000",
       "hpnctl: --switch host-p0-s00-h000: is a host; name a switch (ToR, aggregation, core or front-end leaf)\n"},
      {"export ptm --switch tor-p0-s00-r1x",
       "hpnctl: --switch tor-p0-s00-r1x: no such device in " + (lab.plan / "blueprint.db").string() +
           " (did you mean 'tor-p0-s00-r1a'?)\n"},
      {"export sonic --pod 3", "hpnctl: --pod 3: the plan has pod 0\n"},
      {"export sonic --segment 7", "hpnctl: --segment 7: the plan has segment 0..1\n"},
      {"export netbox --pod -1", "hpnctl: --pod must be 0 or more\n"},
      {"export xlsx", "hpnctl: xlsx is a binary file: give -o FILE\n"},
      {"export svg", "hpnctl: svg writes one file per diagram: give -o DIR\n"},
      {"export dot --switch tor-p0-s00-r1a -o d",
       "hpnctl: --switch applies to ptm, sonic, netbox, batfish and xlsx; diagrams take --pod and --segment\n"},
      {"export sonic -o " + q(lab.plan), "hpnctl: " + lab.plan.string() + ": is a directory; sonic writes one file\n"},
      {"export dot -o " + q(lab.plan),
       "hpnctl: " + lab.plan.string() + ": exists and is not an hpnctl diagram set (no diagrams.json); refusing to "
       "replace it\n"},
  };
  auto before = files_in(lab.dir.path());
  auto plan_before = files_in(lab.plan);
  for (const auto& [args, message] : cases) {
    auto r = lab.run(args);
    INFO("hpnctl " << args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == message);
    CHECK(r.out.empty());
  }
  CHECK(files_in(lab.dir.path()) == before);
  CHECK(files_in(lab.plan) == plan_before);

  // A blueprint that is not there: exit 2 as well.
  auto missing = run_hpnctl("export ptm --blueprint " + q(lab.dir / "nope"), lab.dir.path());
  CHECK(missing.exit_code == 2);
  CHECK_FALSE(missing.err.empty());
}

TEST_CASE("cli/export: an export that cannot be written exits 3 and leaves no temporary file",
          "[cli][export][errors]") {
  Planned lab(lab_spec());
  auto r = lab.run("export sonic -o " + q(lab.dir / "no-such-dir" / "links.csv"));
  CHECK(r.exit_code == 3);
  CHECK(r.err.rfind("hpnctl: ", 0) == 0);
  CHECK_FALSE(fs::exists(lab.dir / "no-such-dir"));

  // Over an existing file, the new export replaces it whole.
  fs::path out = lab.dir / "links.csv";
  write_file(out, "old contents\n");
  lab.ok("export sonic --segment 0 -o " + q(out));
  CHECK(read_file(out).rfind("StartDevice,", 0) == 0);
  CHECK(files_in(lab.dir.path()).count(".links.csv.tmp-") == 0);
  for (const auto& name : files_in(lab.dir.path())) CHECK(name.find(".tmp-") == std::string::npos);
}

// --- The default pod ---------------------------------------------------------

TEST_CASE("cli/export: the default pod in every format: 52080 cables each read back by its consumer",
          "[cli][export][default-pod]") {
  Planned pod("");
  SqliteReader db(pod.db());
  const long cables = db.number("SELECT count(*) FROM cables");
  REQUIRE(cables == 52080);
  // (xlsx has a test of its own above.)
  for (const char* format : {"ptm", "sonic", "netbox", "batfish", "dot", "svg"}) {
    bool dir = std::string(format) == "dot" || std::string(format) == "svg";
    fs::path out = pod.dir / (std::string("out.") + format);
    auto start = std::chrono::steady_clock::now();
    pod.ok(std::string("export ") + format + " -o " + q(out));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN("export " << format << " of the default pod: " << seconds << " s");
    if (!dir) {
      CHECK(fs::file_size(out) > 0);
    }
  }
  CHECK(split_lines(read_file(pod.dir / "out.ptm")).size() == static_cast<size_t>(cables) + 2);
  CHECK(check("csv", {pod.dir / "out.sonic"})["rows"].size() == static_cast<size_t>(cables));
  CHECK(check("batfish", {pod.dir / "out.batfish"})["edges"].size() == 2 * static_cast<size_t>(cables));
  auto index = nlohmann::json::parse(read_file(pod.dir / "out.svg" / "diagrams.json"));
  CHECK(index["diagrams"].size() == 121);  // the pod overview and the 8 rails of its 15 segments
  std::vector<fs::path> svgs;
  for (const auto& e : index["diagrams"]) svgs.push_back(pod.dir / "out.svg" / e["file"].get<std::string>());
  auto counts = check("svg", svgs);
  for (size_t i = 0; i < svgs.size(); ++i) {
    INFO(svgs[i]);
    CHECK(counts[svgs[i].string()] == expected_nodes(db, index["diagrams"][i]));
  }
}
