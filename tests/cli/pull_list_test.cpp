// Pull lists end to end: cabling.csv's place and stock columns, `hpnctl
// cables` and `devices --rack`, checked against blueprint.db's own tables
// (racks, devices, cables, bom) with the tests' own SQL.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "blueprint/csv.h"
#include "support/sqlite.h"
#include "test_util.h"

namespace {

using namespace hpn::test;

void plan(const std::string& spec_arg, const TempDir& cwd) {
  RunResult r = run_hpnctl("plan " + spec_arg + " -o plan -q", cwd.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// A CSV text as records keyed by its header.
std::vector<std::map<std::string, std::string>> records(const std::string& text) {
  std::vector<std::map<std::string, std::string>> out;
  std::vector<std::string> header, fields;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    REQUIRE(hpn::parse_csv_line(text.substr(start, end - start), fields));
    start = end + 1;
    if (header.empty()) {
      header = fields;
      continue;
    }
    REQUIRE(fields.size() == header.size());
    std::map<std::string, std::string> r;
    for (size_t i = 0; i < header.size(); ++i) r[header[i]] = fields[i];
    out.push_back(std::move(r));
  }
  return out;
}

std::string header_of(const std::string& csv) { return csv.substr(0, csv.find('\n')); }

nlohmann::json json_of(const RunResult& r) {
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(nlohmann::json::accept(r.out));
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("cli/plan: cabling.csv's racks and units are the devices' own for every cable", "[cli][plan][pull-list]") {
  TempDir cwd;
  plan(lab_spec_arg(), cwd);
  const std::string sheet = read_file(cwd / "plan/cabling.csv");
  // The old columns first, as readers keyed by position knew them; the new ones after.
  CHECK(header_of(sheet) ==
        "cable_id,kind,a_device,a_port,z_device,z_port,speed_gbps,state,length_m,media,label_a,label_z,"
        "a_rack,a_ru,z_rack,z_ru,stock_length_m,legs,a_panel,z_panel");
  std::set<std::string> racks;
  for (const auto& r : records(read_file(cwd / "plan/racks.csv"))) racks.insert(r.at("name"));
  std::map<std::string, std::pair<std::string, std::string>> place;  // device -> rack, unit
  for (const auto& d : records(read_file(cwd / "plan/devices.csv"))) place[d.at("name")] = {d.at("rack"), d.at("ru")};
  const auto cables = records(sheet);
  REQUIRE(cables.size() == 112);
  for (const auto& c : cables) {
    INFO("cable " << c.at("cable_id"));
    for (const char* end : {"a", "z"}) {
      const std::string e(end);
      CHECK(racks.count(c.at(e + "_rack")) == 1);
      CHECK(std::pair{c.at(e + "_rack"), c.at(e + "_ru")} == place.at(c.at(e + "_device")));
    }
    // The label for each end names where the far end is: the same rack and unit.
    CHECK(c.at("label_a").ends_with(" " + c.at("z_rack") + " U" + c.at("z_ru")));
    CHECK(c.at("label_z").ends_with(" " + c.at("a_rack") + " U" + c.at("a_ru")));
  }
}

TEST_CASE("cli/plan: stock_length_m is the stocked cord the BOM counts each cable in", "[cli][plan][pull-list]") {
  TempDir cwd;
  // Bins 7 and 8 m over the lab's 6 to 9 m runs: 6 and 7 take the 7 m cord,
  // 8 the 8 m one, and 9 m, beyond the last bin, its own length.
  write_file(cwd / "bins.yaml", read_file(source_path("examples/lab-pod.yaml")) + "media:\n  length_bins_m: [7, 8]\n");
  plan("bins.yaml", cwd);
  std::map<std::pair<std::string, int>, long> pulled;  // media, stock length -> cables
  std::set<int> lengths;
  for (const auto& c : records(read_file(cwd / "plan/cabling.csv"))) {
    INFO("cable " << c.at("cable_id"));
    const int length = std::stoi(c.at("length_m")), stock = std::stoi(c.at("stock_length_m"));
    lengths.insert(length);
    CHECK(stock == (length <= 7 ? 7 : length <= 8 ? 8 : length));
    ++pulled[{c.at("media"), stock}];
  }
  REQUIRE(lengths.size() >= 3);
  REQUIRE(*lengths.rbegin() > 8);
  std::map<std::pair<std::string, int>, long> bought;
  for (const auto& b : records(read_file(cwd / "plan/bom.csv"))) {
    if (b.at("category") == "cable") bought[{b.at("media"), std::stoi(b.at("length_m"))}] += std::stol(b.at("count"));
  }
  CHECK(pulled == bought);
}

TEST_CASE("cli/cables: a rack's pull list of the default pod is every cable with an end there, by unit",
          "[cli][cables][pull-list]") {
  TempDir cwd;
  plan("", cwd);
  const fs::path db = cwd / "plan/blueprint.db";
  // A ToR rack of a segment in the middle of the pod, and one of its host racks.
  const Rows network = sql_rows(db, "SELECT DISTINCT rack FROM devices WHERE role = 'tor' AND pod = 0 AND segment = 7");
  const Rows hosts = sql_rows(db, "SELECT DISTINCT rack FROM devices WHERE role = 'host' AND pod = 0 AND segment = 7"
                               " ORDER BY rack LIMIT 1");
  REQUIRE(network.size() == 1);
  REQUIRE(hosts.size() == 1);
  for (const std::string& rack : {network[0][0], hosts[0][0]}) {
    INFO("rack " << rack);
    // What the technician finds there, by blueprint.db: per cable the end in
    // the rack (the a-end when both are), its device's unit, the far end.
    const Rows expected = sql_rows(
        db, "SELECT c.cable_id, CASE WHEN c.a_rack = '" + rack + "' THEN 'a' ELSE 'z' END, c.stock_length_m, "
            "c.media, c.length_m FROM cables c WHERE c.a_rack = '" + rack + "' OR c.z_rack = '" + rack + "'");
    REQUIRE(expected.size() > 1);  // the order means nothing on one cable
    std::map<std::string, std::vector<std::string>> by_id;
    for (const auto& e : expected) by_id[e[0]] = e;
    std::map<std::string, std::map<std::string, std::string>> cable;
    for (const auto& c : records(read_file(cwd / "plan/cabling.csv"))) cable[c.at("cable_id")] = c;

    const nlohmann::json list = json_of(run_hpnctl("cables --blueprint plan --rack " + rack + " --format json", cwd.path()));
    REQUIRE(list.size() == expected.size());
    std::set<std::string> seen;
    int last_unit = 0;
    for (const auto& e : list) {
      const std::string id = e["cable_id"];
      INFO("cable " << id);
      REQUIRE(by_id.count(id) == 1);
      seen.insert(id);
      const auto& c = cable.at(id);
      const std::string near = by_id[id][1], far = near == "a" ? "z" : "a";
      CHECK(e["end"] == near);
      CHECK(e["rack"] == rack);
      CHECK(e["device"] == c.at(near + "_device"));
      CHECK(e["port"] == c.at(near + "_port"));
      CHECK(std::to_string(e["ru"].get<int>()) == c.at(near + "_ru"));
      CHECK(e["far_rack"] == c.at(far + "_rack"));
      CHECK(std::to_string(e["far_ru"].get<int>()) == c.at(far + "_ru"));
      CHECK(e["far_device"] == c.at(far + "_device"));
      CHECK(e["far_port"] == c.at(far + "_port"));
      CHECK(e["label"] == c.at("label_" + near));
      CHECK(e["media"] == by_id[id][3]);
      CHECK(std::to_string(e["stock_length_m"].get<int>()) == by_id[id][2]);
      CHECK(e["stock_length_m"].get<int>() >= e["length_m"].get<int>());
      // Worked unit by unit.
      CHECK(e["ru"].get<int>() >= last_unit);
      last_unit = e["ru"].get<int>();
    }
    CHECK(seen.size() == expected.size());

    // The CSV and the table: the same cables in the same order.
    RunResult csv = run_hpnctl("cables --blueprint plan --rack " + rack + " --format csv", cwd.path());
    REQUIRE(csv.exit_code == 0);
    CHECK(header_of(csv.out) == "rack,device,ru,port,far_rack,far_ru,far_device,far_port,cable_id,label,media,"
                                "speed_gbps,stock_length_m,length_m,kind,state");
    const auto rows = records(csv.out);
    REQUIRE(rows.size() == list.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].at("cable_id") == list[i]["cable_id"]);
      CHECK(rows[i].at("label") == list[i]["label"]);
      CHECK(rows[i].at("stock_length_m") == std::to_string(list[i]["stock_length_m"].get<int>()));
    }
    RunResult table = run_hpnctl("cables --blueprint plan --rack " + rack, cwd.path());
    REQUIRE(table.exit_code == 0);
    CHECK(std::count(table.out.begin(), table.out.end(), '\n') == static_cast<long>(1 + list.size()));
    CHECK(table.out.rfind("rack ", 0) == 0);
  }
}

TEST_CASE("cli/devices: --rack lists the rack's devices by unit", "[cli][devices][pull-list]") {
  TempDir cwd;
  plan("", cwd);
  const Rows racks = sql_rows(cwd / "plan/blueprint.db", "SELECT DISTINCT rack FROM devices WHERE role = 'agg' LIMIT 1");
  REQUIRE(racks.size() == 1);
  const std::string rack = racks[0][0];
  std::set<std::string> expected;
  for (const auto& d : records(read_file(cwd / "plan/devices.csv"))) {
    if (d.at("rack") == rack) expected.insert(d.at("name"));
  }
  REQUIRE(expected.size() > 1);
  const nlohmann::json list = json_of(run_hpnctl("devices --blueprint plan --rack " + rack + " --format json", cwd.path()));
  std::set<std::string> listed;
  int last_unit = 0;
  for (const auto& d : list) {
    CHECK(d["rack"] == rack);
    CHECK(d["ru"].get<int>() >= last_unit);
    last_unit = d["ru"].get<int>();
    listed.insert(d["name"].get<std::string>());
  }
  CHECK(listed == expected);
  CHECK(list.size() == expected.size());
}

TEST_CASE("cli/cables: an unknown rack exits 2 with the closest name and the plan's racks", "[cli][cables][pull-list]") {
  TempDir cwd;
  plan(lab_spec_arg(), cwd);
  const Rows racks = sql_rows(cwd / "plan/blueprint.db", "SELECT name FROM racks ORDER BY hall, row, position");
  REQUIRE(racks.size() == 14);
  REQUIRE(racks.front()[0] == "H0-R00-00");
  REQUIRE(racks.back()[0] == "H0-R04-01");
  for (const std::string command : {"cables", "devices"}) {
    INFO(command);
    RunResult r = run_hpnctl(command + " --blueprint plan --rack H0-R00-3", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "hpnctl: --rack H0-R00-3: no such rack (did you mean 'H0-R00-03'?); the plan has 14 racks, "
                   "H0-R00-00 to H0-R04-01\n");
    r = run_hpnctl(command + " --blueprint plan --rack nowhere --format json", cwd.path());
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "hpnctl: --rack nowhere: no such rack; the plan has 14 racks, H0-R00-00 to H0-R04-01\n");
  }
}

TEST_CASE("cli/cables: --kind, --state, --pod and --segment select cables by an end's device", "[cli][cables]") {
  TempDir cwd;
  plan(lab_spec_arg(), cwd);
  const fs::path db = cwd / "plan/blueprint.db";
  auto ids = [](const nlohmann::json& list) {
    std::set<std::string> out;
    for (const auto& e : list) out.insert(e["cable_id"].get<std::string>());
    return out;
  };
  auto sql_ids = [&](const std::string& where) {
    std::set<std::string> out;
    for (const auto& r : sql_rows(db, "SELECT c.cable_id FROM cables c JOIN devices da ON da.name = c.a_device "
                                   "JOIN devices dz ON dz.name = c.z_device WHERE " + where)) {
      out.insert(r[0]);
    }
    return out;
  };
  auto all = json_of(run_hpnctl("cables --blueprint plan --format json", cwd.path()));
  CHECK(all.size() == 112);
  for (const auto& e : all) CHECK(e["end"] == "a");  // no rack: seen from the a-end
  auto uplinks = json_of(run_hpnctl("cables --blueprint plan --kind tor-agg --segment 1 --format json", cwd.path()));
  const auto expected = sql_ids("c.kind = 'tor-agg' AND (da.segment = 1 OR dz.segment = 1)");
  REQUIRE_FALSE(expected.empty());
  CHECK(ids(uplinks) == expected);
  auto pod = json_of(run_hpnctl("cables --blueprint plan --pod 0 --state active --format json", cwd.path()));
  CHECK(ids(pod) == sql_ids("c.state = 'active' AND (da.pod = 0 OR dz.pod = 0)"));

  RunResult r = run_hpnctl("cables --blueprint plan --kind spine", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --kind 'spine': one of host-tor, tor-agg, agg-core, frontend\n");
  r = run_hpnctl("cables --blueprint plan --segment 2", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: --segment 2: the plan has 0 to 1\n");
  r = run_hpnctl("cables --blueprint plan --format xml", cwd.path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
}

TEST_CASE("cli/cable: the stocked cord beside the estimated length, in every format", "[cli][cable][pull-list]") {
  TempDir cwd;
  plan(lab_spec_arg(), cwd);
  std::map<std::string, std::map<std::string, std::string>> cable;
  for (const auto& c : records(read_file(cwd / "plan/cabling.csv"))) cable[c.at("cable_id")] = c;
  // C0H00001 runs 8 m and is pulled as the 10 m cord (the default bins).
  REQUIRE(cable.at("C0H00001").at("length_m") == "8");
  REQUIRE(cable.at("C0H00001").at("stock_length_m") == "10");
  auto list = json_of(run_hpnctl("cable C0H00001 --blueprint plan --format json", cwd.path()));
  REQUIRE(list.size() == 1);
  CHECK(list[0]["length_m"] == 8);
  CHECK(list[0]["stock_length_m"] == 10);
  RunResult csv = run_hpnctl("cable C0H00001 --blueprint plan --format csv", cwd.path());
  REQUIRE(csv.exit_code == 0);
  auto rows = records(csv.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("length_m") == "8");
  CHECK(rows[0].at("stock_length_m") == "10");
  RunResult table = run_hpnctl("cable C0H00001 --blueprint plan", cwd.path());
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("length_m  stock_length_m") != std::string::npos);
  CHECK(table.out.find("  8              10  mmf") != std::string::npos);
}

TEST_CASE("cli/cable: a run through patch panels shows its cords from the near end, never a 0 m cord", "[cli][cable][pull-list]") {
  TempDir cwd;
  plan("", cwd);  // the default pod: its ToR-aggregation runs go through the row panels
  // legs.csv: the cords of C0A00001 from its a-end, and its trunk.
  std::vector<int> cords;
  std::string trunk;
  for (const auto& l : records(read_file(cwd / "plan/legs.csv"))) {
    if (l.at("cable_id") != "C0A00001") continue;
    if (l.at("kind") == "cord") cords.push_back(std::stoi(l.at("stock_length_m")));
    else trunk = l.at("trunk_id") + " lane " + l.at("lane");
  }
  REQUIRE(cords.size() == 2);
  REQUIRE_FALSE(trunk.empty());
  const std::string a_first = std::to_string(cords[0]) + "+" + std::to_string(cords[1]);
  const std::string z_first = std::to_string(cords[1]) + "+" + std::to_string(cords[0]);
  REQUIRE(a_first != z_first);  // the ends tell apart

  auto a = json_of(run_hpnctl("cable C0A00001 --blueprint plan --format json", cwd.path()));
  REQUIRE(a.size() == 1);
  CHECK(a[0]["stock_length_m"].is_null());
  CHECK(a[0]["patch_cords_m"] == nlohmann::json(cords));
  CHECK(a[0]["via"] == trunk);
  // From the aggregation switch: its own cord first.
  const std::string agg = a[0]["far_device"].get<std::string>() + ":" + a[0]["far_port"].get<std::string>();
  auto z = json_of(run_hpnctl("cable " + agg + " --blueprint plan --format json", cwd.path()));
  REQUIRE(z.size() == 1);
  CHECK(z[0]["patch_cords_m"] == nlohmann::json({cords[1], cords[0]}));
  RunResult csv = run_hpnctl("cable C0A00001 --blueprint plan --format csv", cwd.path());
  CHECK(records(csv.out).at(0).at("stock_length_m") == a_first);
  RunResult zcsv = run_hpnctl("cable " + agg + " --blueprint plan --format csv", cwd.path());
  CHECK(records(zcsv.out).at(0).at("stock_length_m") == z_first);
  // The pull list of the ToR's rack: no cable asks for a 0 m cord, and this
  // one gives the ToR-end cord first.
  const std::string rack = a[0]["a_rack"];
  RunResult pull = run_hpnctl("cables --blueprint plan --rack " + rack + " --format csv", cwd.path());
  REQUIRE(pull.exit_code == 0);
  bool found = false;
  for (const auto& r : records(pull.out)) {
    INFO(r.at("cable_id"));
    CHECK(r.at("stock_length_m") != "0");
    if (r.at("cable_id") == "C0A00001") found = r.at("stock_length_m") == a_first;
  }
  CHECK(found);
  auto pulled = json_of(run_hpnctl("cables --blueprint plan --rack " + rack + " --format json", cwd.path()));
  for (const auto& e : pulled) {
    if (e["stock_length_m"].is_null()) CHECK(e["patch_cords_m"].size() == 2);
    else CHECK(e["patch_cords_m"].empty());
  }
}
