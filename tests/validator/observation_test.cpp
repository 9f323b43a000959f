// Observation records: the JSON lines round trip, located errors, and the
// whole verify command on a real blueprint.db.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lab_fixture.h"
#include "support/schema.h"
#include "planner/plan_output.h"
#include "probe/observation.h"

using namespace hpn;
using hpn::probe::ProbeDirection;

TEST_CASE("validator/observations: JSON lines round trip") {
  probe::ObservationRecord o;
  o.run = "r1";
  o.probe = 7;
  o.direction = ProbeDirection::forward;
  o.src_device = "host-p0-s00-h000";
  o.src_port = "nic1p1";
  o.src_address = "fd48:504e::10";
  o.src_udp_port = 49152;
  o.dst_device = "host-p0-s01-h000";
  o.dst_address = "fd48:504e:0:2::10";
  o.dst_udp_port = 17768;
  o.received = true;
  o.rx_port = "nic1p1";
  o.hops = {{65536, 18, 81, 63}, {4096, 17, -1, 62}};
  o.sent_ns = 1;
  o.received_ns = 2;
  std::istringstream in(probe::to_json_line(o) + "\n\n" + probe::to_json_line(o) + "\n");
  auto back = probe::read_observations(in, "obs.jsonl");
  REQUIRE(back.ok());
  REQUIRE(back->size() == 2);
  const auto& b = back->at(1);
  CHECK(b.src_port == "nic1p1");
  CHECK(b.dst_udp_port == 17768);
  REQUIRE(b.hops.size() == 2);
  CHECK(b.hops[0].egress_if == 81);
  CHECK(b.hops[1].egress_if == -1);
  CHECK(b.rx_port == "nic1p1");
}

TEST_CASE("validator/observations: each direction is written as the schema names it and read back as itself") {
  const auto schema = nlohmann::json::parse(test::read_file(test::source_path("schemas/observation.schema.json")));
  std::vector<std::string> names;
  for (ProbeDirection d : {ProbeDirection::forward, ProbeDirection::reverse, ProbeDirection::expired}) {
    names.emplace_back(probe::to_string(d));
    probe::ObservationRecord o;
    o.run = "r";
    o.direction = d;
    const std::string line = probe::to_json_line(o);
    CHECK(nlohmann::json::parse(line)["direction"] == names.back());
    std::istringstream in(line + "\n");
    auto back = probe::read_observations(in, "obs.jsonl");
    REQUIRE(back.ok());
    CHECK(back->at(0).direction == d);
  }
  CHECK(schema["properties"]["direction"]["enum"].get<std::vector<std::string>>() == names);
}

TEST_CASE("validator/observations: bad lines are located errors") {
  auto error = [](const std::string& text) {
    std::istringstream in(text);
    auto r = probe::read_observations(in, "obs.jsonl");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(error("{}\n") == "obs.jsonl:1: missing 'run'");
  CHECK(error("\n{not json\n") == "obs.jsonl:2: not a JSON object");
  CHECK(error(R"({"run":"r","probe":1,"direction":"sideways"})") ==
        "obs.jsonl:1: 'direction' must be \"forward\", \"reverse\" or \"expired\"");
  CHECK(error(R"({"run":"r","probe":1,"direction":"forward","src":{"device":"h","port":"p","address":"a","udp_port":70000}})") ==
        "obs.jsonl:1: 'udp_port' must be an integer from 0 to 65535");
  CHECK(error(std::string("\xff\xfe\x00garbage", 10)) == "obs.jsonl: binary content, not an observation file");
}

TEST_CASE("validator/observations: a set gives back every record as added, each string held once", "[robust]") {
  probe::ObservationRecord a;
  a.run = "r1";
  a.probe = 7;
  a.direction = ProbeDirection::expired;
  a.src_device = "host-p0-s00-h000";
  a.src_port = "nic1p1";
  a.src_address = "fd48:504e::10";
  a.src_udp_port = 65535;
  a.dst_device = "tor-p0-s00-r1a";
  a.dst_address = "fd48:5050::d";
  a.dst_udp_port = 17768;
  a.received = true;
  a.hops = {{0xFFFFFF, 0xFFFF, -1, 255}};
  a.sent_ns = INT64_MAX;
  a.received_ns = 1;
  a.hop_limit = 255;
  a.reporter = "fd48:5050::d";
  a.icmp_type = 3;
  a.entry = INT64_MAX;
  a.attempt = 256;
  probe::ObservationRecord b = a;
  b.direction = ProbeDirection::forward;
  b.probe = 8;
  b.hops.clear();
  b.train = 100;
  b.arrived = -1;
  probe::ObservationSet set;
  set.add(a);
  set.add(b);
  REQUIRE(set.size() == 2);
  // Every field, through the JSON line each writes.
  CHECK(probe::to_json_line(set[0]) == probe::to_json_line(a));
  CHECK(probe::to_json_line(set[1]) == probe::to_json_line(b));
  CHECK(set[1].position == 1);
  CHECK(set[1].hops.empty());
  // One copy of a string however many records name it.
  CHECK(set[0].src_device.data() == set[1].src_device.data());
  CHECK(set[0].dst_address.data() == set[0].reporter.data());
  // A record of three hops and short names takes about 140 bytes.
  probe::ObservationSet many;
  probe::ObservationRecord r = b;
  r.hops = {{1, 2, 3, 63}, {4, 5, 6, 62}, {7, 8, 9, 61}};
  for (int i = 0; i < 100'000; ++i) {
    r.probe = static_cast<std::uint64_t>(i);
    r.src_udp_port = 49152 + i % 16384;
    many.add(r);
  }
  CHECK(many.memory_bytes() / many.size() <= 88 + 3 * 16 + 8);
}

TEST_CASE("validator/observations: a record with more hops than allowed is skipped and counted, not held",
          "[robust]") {
  auto line = [](int hops) {
    std::string list;
    for (int i = 0; i < hops; ++i) list += i ? ",{}" : "{}";
    return R"({"run":"r","probe":1,"direction":"forward","src":{"device":"h","port":"p","address":"a","udp_port":1},)"
           R"("dst":{"device":"d","address":"b","udp_port":2},"received":false,"hops":[)" + list + "]}\n";
  };
  std::istringstream in(line(5) + line(6) + line(21000) + line(0));
  probe::ObservationSet set;
  REQUIRE(probe::read_observations_into(in, "obs.jsonl", set, {100, 5}).ok());
  CHECK(set.size() == 2);
  CHECK(set[0].hops.size() == 5);
  CHECK(set.skipped_long_paths() == 2);
  CHECK(set.first_skipped_long_path() == "obs.jsonl:2");
  // Without a plan, a path is at most the IPv6 hop limit's 255 hops.
  std::istringstream again(line(256) + line(255));
  auto read = probe::read_observations(again, "obs.jsonl");
  REQUIRE(read.ok());
  CHECK(read->size() == 1);
  CHECK(read->skipped_long_paths() == 1);
}

TEST_CASE("validator/verify: the command's exit codes and JSON report") {
  test::LabFixture lab;
  test::TempDir dir;
  REQUIRE(write_plan(lab.bp(), lab.plan.summary, (dir / "plan").string()).ok());
  auto write_obs = [&](const std::string& name) {
    std::ofstream out(dir / name);
    for (const auto& o : lab.observe()) out << probe::to_json_line(o) << '\n';
  };
  write_obs("clean.jsonl");
  auto clean = test::run_hpnctl("verify --blueprint plan clean.jsonl", dir.path());
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.rfind("clean: 96 cables in scope, 96 verified both ways; 0 findings", 0) == 0);

  int a = lab.cable_from("tor-p0-s00-r1a", "etp5"), b = lab.cable_from("tor-p0-s00-r1a", "etp6");
  lab.swap_z(a, b);
  write_obs("swap.jsonl");
  auto swap = test::run_hpnctl("verify --blueprint plan --format json swap.jsonl", dir.path());
  CHECK(swap.exit_code == 1);
  auto j = nlohmann::json::parse(swap.out);
  REQUIRE(j["findings"].size() == 1);
  const auto& f = j["findings"][0];
  CHECK(f["kind"] == "swapped");
  CHECK(f["cables"] == nlohmann::json::array({lab.bp().cables[a].id, lab.bp().cables[b].id}));
  CHECK(f["labels"][0]["label_a"].get<std::string>().rfind(lab.bp().cables[a].id + " tor-p0-s00-r1a:etp5 > ", 0) == 0);
  CHECK(f["evidence"].contains(lab.bp().cables[a].id));
  CHECK(f["severity"] == "critical");
  CHECK(j["summary"]["clean"] == false);
  CHECK(j["summary"]["findings"]["swapped"] == 1);

  // An independent validator agrees with the schemas on real output.
  test::write_file(dir / "report.json", swap.out);
  CHECK(test::schema_errors("verify-report.schema.json", dir / "report.json") == "");
  CHECK(test::schema_errors("observation.schema.json", dir / "swap.jsonl", true) == "");
  test::write_file(dir / "tampered.jsonl", "{\"run\": \"r\", \"probe\": -1}\n");
  CHECK(test::schema_errors("observation.schema.json", dir / "tampered.jsonl", true) != "");

  test::write_file(dir / "bad.jsonl", "{\"run\": 1}\n");
  auto bad = test::run_hpnctl("verify --blueprint plan bad.jsonl", dir.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: bad.jsonl:1: 'run' must be a string\n");
}
