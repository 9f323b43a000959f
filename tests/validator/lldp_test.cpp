// LLDP neighbour dumps as observations: the json0 reader on dumps captured
// from real lldpd in the lab pod's namespaces (tests/data/lldp/capture.sh),
// and the same diff as the probes on them. Files under tests/data/lldp/:
//   planned/   all 36 devices, wired as planned (port ID a MAC, description the ifname)
//   swap/      h000 and h001 nic1p1 exchanged at tor-p0-s00-r1a (cables C0H00001, C0H00005)
//   missing/   cable C0H00044 (host-p0-s01-h002:nic2p2 -- tor-p0-s01-r2b:etp2a) not laid
//   port-id/   port ID the ifname, description an alias "to-PEER:PORT" (as switches send)
//   no-neighbours.json, plain-json.json (`-f json`), domain-name.json: captured too
//   bad/       hand-edited from captured dumps
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "lab_fixture.h"
#include "support/schema.h"
#include "support/findings.h"
#include "planner/plan_output.h"
#include "validator/lldp.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::LabFixture;
using hpn::test::finding_cable_ids;
using hpn::test::findings_text;
using hpn::test::serious_findings;
using validator::LldpDump;
using validator::LldpMatch;

namespace {

namespace fs = std::filesystem;

fs::path data(const std::string& name) { return test::source_path("tests/data/lldp/" + name); }

LldpDump dump_of(const std::string& dir, const std::string& device) {
  auto source = validator::parse_lldp_argument((data(dir) / (device + ".json")).string());
  REQUIRE(source.ok());
  auto dump = validator::read_lldp_dump(source.value());
  INFO((dir + "/" + device) << ": " << (dump.ok() ? "" : dump.error().message));
  REQUIRE(dump.ok());
  return std::move(dump.value());
}

std::vector<LldpDump> dumps_in(const std::string& dir) {
  std::vector<std::string> devices;
  for (const auto& e : fs::directory_iterator(data(dir))) devices.push_back(e.path().stem());
  std::sort(devices.begin(), devices.end());
  std::vector<LldpDump> out;
  for (const auto& d : devices) out.push_back(dump_of(dir, d));
  return out;
}

validator::Report diff_lldp(const LabFixture& lab, const std::vector<LldpDump>& dumps,
                            LldpMatch match = LldpMatch::port_description,
                            const probe::ObservationSet& probes = {}) {
  auto w = validator::collect_witnesses(*lab.fabric, probes);
  auto added = validator::add_lldp_witnesses(*lab.fabric, dumps, match, w);
  INFO((added.ok() ? "" : added.error().message));
  REQUIRE(added.ok());
  return validator::diff(*lab.fabric, w);
}

// No finding above info: what a partial look may still say, without being
// clean (validator::Report::clean() needs every cable in scope verified).
bool no_fault(const validator::Report& r) {
  return std::all_of(r.findings.begin(), r.findings.end(), [](const auto& f) { return f.severity == Severity::info; });
}

// Drops the neighbour entry heard on `port` from the dump of `device`.
void forget(std::vector<LldpDump>& dumps, const std::string& device, const std::string& port) {
  for (auto& d : dumps) {
    if (d.device != device) continue;
    auto& n = d.neighbours;
    auto before = n.size();
    n.erase(std::remove_if(n.begin(), n.end(), [&](const auto& e) { return e.local_port == port; }), n.end());
    REQUIRE(n.size() + 1 == before);
    return;
  }
  FAIL("no dump of " << device);
}

std::string parse_error(const std::string& bytes) {
  auto r = validator::parse_lldp_json(bytes, "d.json");
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("validator/lldp: a captured ToR dump reads as one neighbour per port") {
  auto tor = dump_of("planned", "tor-p0-s00-r1a");
  CHECK(tor.device == "tor-p0-s00-r1a");
  CHECK(tor.device_from_file_name);
  REQUIRE(tor.neighbours.size() == 12);  // 8 host ports, 4 uplinks
  const auto& first = tor.neighbours[0];
  CHECK(first.local_port == "etp1a");
  CHECK(first.chassis_name == "host-p0-s00-h000");
  CHECK(first.port_id_type == "mac");  // Linux lldpd: the port ID is the MAC...
  CHECK(first.port_id == "02:10:00:00:00:11");  // the lab's MAC of node 0x100000, port 0x11
  CHECK(first.port_descr == "nic1p1");  // ...and the description the interface name
  CHECK(first.where == data("planned/tor-p0-s00-r1a.json").string() + ": /lldp/0/interface/0");
  CHECK(tor.neighbours[8].local_port == "etp5");
  CHECK(tor.neighbours[8].chassis_name == "agg-p0-1-00");
  CHECK(tor.neighbours[8].port_descr == "etp1");
}

TEST_CASE("validator/lldp: every captured neighbour is the planned far end of its port") {
  LabFixture lab;
  int entries = 0;
  for (const auto& dump : dumps_in("planned")) {
    int device = lab.fabric->device_by_name(dump.device);
    REQUIRE(device >= 0);
    for (const auto& n : dump.neighbours) {
      PortRef far = lab.fabric->far_end({device, lab.fabric->port_by_name(device, n.local_port)});
      REQUIRE(far.valid());
      CHECK(lab.fabric->name(far) == n.chassis_name + ":" + n.port_descr);
      ++entries;
    }
  }
  CHECK(entries == 2 * 112);  // every cable of the lab, heard from both ends
}

TEST_CASE("validator/lldp: a dump with no neighbour and one with a domain name") {
  auto none = validator::parse_lldp_json(test::read_file(data("no-neighbours.json")), "none.json");
  REQUIRE(none.ok());
  CHECK(none->empty());
  auto domain = validator::parse_lldp_json(test::read_file(data("domain-name.json")), "tor.json");
  REQUIRE(domain.ok());
  REQUIRE(domain->size() == 1);
  CHECK(domain->at(0).chassis_name == "host-p0-s00-h000.dc1.example");

  // A system name with a domain still names its device.
  LabFixture lab;
  LldpDump tor{"tor-p0-s00-r1a", false, "tor.json", domain.value()};
  auto w = validator::collect_witnesses(*lab.fabric, {});
  REQUIRE(validator::add_lldp_witnesses(*lab.fabric, {tor}, LldpMatch::port_description, w).ok());
  int c = lab.cable_from("host-p0-s00-h000", "nic1p1");
  CHECK(w.cables[c].dir[0].received == 1);  // host -> ToR
  CHECK(w.unknown_devices.empty());
  CHECK(w.unreadable_hops == 0);
}

TEST_CASE("validator/lldp: the planned wiring's dumps verify every cable both ways") {
  LabFixture lab;
  auto r = diff_lldp(lab, dumps_in("planned"));
  INFO(findings_text(r));
  CHECK(r.findings.empty());
  CHECK(r.clean());
  CHECK(r.summary.cables_in_scope == 112);  // LLDP sees the core cables too
  CHECK(r.summary.cables_verified == 112);
  CHECK(r.summary.observations == 224);
  CHECK(r.summary.unreadable_hops == 0);
  int c = lab.cable_from("host-p0-s00-h000", "nic1p1");
  CHECK(r.evidence[c].dir[0].received == 1);
  CHECK(r.evidence[c].dir[0].sent == 1);
  CHECK(r.evidence[c].dir[1].lldp);
}

TEST_CASE("validator/lldp: together with the probes, the planned wiring is still clean") {
  LabFixture lab;
  auto probes = lab.observe();
  auto r = diff_lldp(lab, dumps_in("planned"), LldpMatch::port_description, probes);
  INFO(findings_text(r));
  CHECK(r.findings.empty());
  CHECK(r.summary.cables_verified == 112);
  CHECK(r.summary.observations == static_cast<int64_t>(probes.size()) + 224);
}

TEST_CASE("validator/lldp: a device without a dump leaves its cables unobserved, never missing") {
  LabFixture lab;
  auto dumps = dumps_in("planned");
  dumps.erase(std::remove_if(dumps.begin(), dumps.end(), [](const auto& d) { return d.device == "host-p0-s00-h003"; }),
              dumps.end());
  auto r = diff_lldp(lab, dumps);
  INFO(findings_text(r));
  CHECK(no_fault(r));
  CHECK_FALSE(r.clean());  // four cables unverified: no verdict on them
  REQUIRE(r.findings.size() == 4);  // its 4 back-end ports, each heard by its ToR only
  for (const auto& f : r.findings) {
    CHECK(f.kind == FindingKind::unobserved);
    CHECK(f.observed.starts_with("host-p0-s00-h003:nic"));  // host -> ToR only
    CHECK(f.message.ends_with("probe it again or give the LLDP dump of host-p0-s00-h003"));
  }
  CHECK(r.summary.cables_verified == 108);

  // A cable whose one dumped end hears nothing at all is out of scope: no
  // evidence either way.
  forget(dumps, "tor-p0-s00-r1b", "etp2b");  // h003's nic1p2
  auto quiet = diff_lldp(lab, dumps);
  CHECK(quiet.findings.size() == 3);
  CHECK(quiet.summary.cables_out_of_scope == 1);
}

TEST_CASE("validator/lldp: one end not hearing the other is unidirectional") {
  LabFixture lab;
  auto dumps = dumps_in("planned");
  forget(dumps, "tor-p0-s00-r2a", "etp3a");  // the ToR does not hear host-p0-s00-h004:nic2p1
  auto r = diff_lldp(lab, dumps);
  INFO(findings_text(r));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::unidirectional);
  int c = lab.cable_from("host-p0-s00-h004", "nic2p1");
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{lab.bp().cables[c].id});
  CHECK(f.observed == "tor-p0-s00-r2a:etp3a -> host-p0-s00-h004:nic2p1 only");
  CHECK(f.message == "cable " + lab.bp().cables[c].id +
                         " carries tor-p0-s00-r2a:etp3a -> host-p0-s00-h004:nic2p1 but nothing "
                         "host-p0-s00-h004:nic2p1 -> tor-p0-s00-r2a:etp3a: clean or replace the fibre or optic "
                         "of that direction, or check that LLDP is sent from host-p0-s00-h004:nic2p1");
  CHECK(r.evidence[c].dir[0].sent == 1);
  CHECK(r.evidence[c].dir[0].received == 0);

  // Neither end hears the other: missing (LLDP cannot tell an absent cable from a dark one).
  forget(dumps, "host-p0-s00-h004", "nic2p1");
  auto gone = diff_lldp(lab, dumps);
  REQUIRE(gone.findings.size() == 1);
  CHECK(gone.findings[0].kind == FindingKind::missing);
  CHECK(gone.findings[0].message.find("although LLDP runs at both ends and neither hears the other") !=
        std::string::npos);
}

TEST_CASE("validator/lldp: captured dumps of a swap give the probes' swapped finding") {
  LabFixture lab;
  auto r = diff_lldp(lab, dumps_in("swap"));
  INFO(findings_text(r));
  auto bad = serious_findings(r);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0]->kind == FindingKind::swapped);
  CHECK(finding_cable_ids(lab.bp(), *bad[0]) == std::vector<std::string>{"C0H00001", "C0H00005"});
  CHECK(bad[0]->message == "cables C0H00001 and C0H00005 are swapped at tor-p0-s00-r1a: etp1a and etp1b hold "
                           "each other's cable; swap them back");
  // The rest of the three devices' cables were heard from their end only:
  // the ToR's other 10, each host's other 3.
  for (const auto& f : r.findings) {
    if (&f != bad[0]) CHECK(f.kind == FindingKind::unobserved);
  }
  CHECK(r.findings.size() == 1 + 10 + 2 * 3);
}

TEST_CASE("validator/lldp: captured dumps of a missing cable give missing") {
  LabFixture lab;
  auto r = diff_lldp(lab, dumps_in("missing"));
  INFO(findings_text(r));
  auto bad = serious_findings(r);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0]->kind == FindingKind::missing);
  CHECK(finding_cable_ids(lab.bp(), *bad[0]) == std::vector<std::string>{"C0H00044"});
}

TEST_CASE("validator/lldp: matching on the port ID or the description") {
  LabFixture lab;
  auto switches = dumps_in("port-id");
  // Port IDs are interface names, descriptions free text.
  REQUIRE(switches[2].device == "tor-p0-s00-r1a");
  CHECK(switches[2].neighbours[0].port_id_type == "ifname");
  CHECK(switches[2].neighbours[0].port_id == "nic1p1");
  CHECK(switches[2].neighbours[0].port_descr == "to-tor-p0-s00-r1a:etp1a");
  auto by_id = diff_lldp(lab, switches, LldpMatch::port_id);
  INFO(findings_text(by_id));
  CHECK(no_fault(by_id));
  CHECK_FALSE(by_id.clean());  // cables unobserved
  CHECK(by_id.summary.cables_verified == 2);  // h000 and h001 nic1p1, the ToR's other ports heard one way
  CHECK(by_id.summary.unreadable_hops == 0);

  // The descriptions name no port: nothing is decided, and nothing is missing.
  auto by_descr = diff_lldp(lab, switches, LldpMatch::port_description);
  INFO(findings_text(by_descr));
  CHECK(no_fault(by_descr));
  CHECK_FALSE(by_descr.clean());  // cables unobserved
  CHECK(by_descr.summary.cables_verified == 0);
  CHECK(by_descr.summary.unreadable_hops == 20);  // every entry of the three dumps
  int c = lab.cable_from("host-p0-s00-h000", "nic1p1");
  bool unobserved = false;
  for (const auto& f : by_descr.findings) {
    if (f.cables == std::vector<int>{c}) {
      unobserved = f.kind == FindingKind::unobserved;
      CHECK(f.message.ends_with("or check what its ports' LLDP neighbours name (--lldp-match)"));
    }
  }
  CHECK(unobserved);

  // Linux lldpd's MAC port IDs name no port either.
  auto macs = diff_lldp(lab, dumps_in("planned"), LldpMatch::port_id);
  CHECK(no_fault(macs));
  CHECK_FALSE(macs.clean());  // cables unobserved
  CHECK(macs.summary.cables_verified == 0);
  CHECK(macs.summary.unreadable_hops == 224);
}

TEST_CASE("validator/lldp: malformed dumps are located errors") {
  CHECK(parse_error("") == "d.json:1:1: not JSON: syntax error while parsing value - unexpected end of input; "
                           "expected '[', '{', or a literal");
  CHECK(parse_error("{\"lldp\": [\n  {\"interface\": [}]}") ==
        "d.json:2:18: not JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");
  CHECK(parse_error("[]") == "d.json: /: expected an object with key \"lldp\", found an array");
  CHECK(parse_error("{}") == "d.json: /: missing key \"lldp\"");
  CHECK(parse_error("{\"lldp\": [{\"interface\": {}}]}") == "d.json: /lldp/0/interface: expected an array, found an object");
  CHECK(parse_error("{\"lldp\": [{\"interface\": [{}]}]}") == "d.json: /lldp/0/interface/0: missing key \"name\"");
  CHECK(parse_error("{\"lldp\": [{\"interface\": [{\"name\": \"\"}]}]}") == "d.json: /lldp/0/interface/0/name: empty interface name");
  CHECK(parse_error("{\"lldp\": [7]}") == "d.json: /lldp/0: expected an object, found a number");
  CHECK(parse_error("{\"lldp\": [{}], \"x\": 1e999}").starts_with("d.json: not JSON: "));
  CHECK(parse_error(std::string("{\"lldp\": \"\xff\xfe\"}")).starts_with("d.json:1:11: not JSON: syntax error while "
                                                                        "parsing value - invalid string: ill-formed UTF-8 byte"));
}

TEST_CASE("validator/lldp: hand-edited captured dumps are refused at the spot") {
  auto error = [](const std::string& name) {
    auto r = validator::parse_lldp_json(test::read_file(data(name)), name);
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(error("plain-json.json") ==
        "plain-json.json: /lldp: expected an array, found an object: is this `lldpcli -f json0`? (plain -f json "
        "changes shape with the number of neighbours)");
  CHECK(error("bad/truncated.json") == "bad/truncated.json:48:1: not JSON: syntax error while parsing object key - "
                                       "unexpected end of input; expected string literal");
  CHECK(error("bad/descr-number.json") ==
        "bad/descr-number.json: /lldp/0/interface/1/port/0/descr/0/value: expected a string, found a number");
  CHECK(error("bad/two-ports.json") == "bad/two-ports.json: /lldp/0/interface/0/port: expected one element, found 2");
  CHECK(error("bad/no-port-id.json") == "bad/no-port-id.json: /lldp/0/interface/0/port/0: missing key \"id\"");
  CHECK(error("bad/chassis-object.json") ==
        "bad/chassis-object.json: /lldp/0/interface/0/chassis: expected an array, found an object");
}

TEST_CASE("validator/lldp: mangled bytes of a real dump never crash the reader") {
  const std::string real = test::read_file(data("planned/tor-p0-s00-r1a.json"));
  std::mt19937 random(20261201);
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = real;
    switch (i % 3) {
      case 0: bytes.resize(random() % bytes.size()); break;                       // truncated
      case 1: bytes[random() % bytes.size()] = static_cast<char>(random()); break;  // one byte changed
      case 2: bytes.erase(random() % bytes.size(), 1 + random() % 40); break;       // a run cut out
    }
    auto r = validator::parse_lldp_json(bytes, "m.json");
    if (!r.ok()) {
      ++refused;
      CHECK(r.error().message.starts_with("m.json"));
    }
  }
  CHECK(refused > 1000);
  // Deep nesting is refused before it is parsed, at the bracket one level
  // past the bound (its DOM took 40 bytes for each byte of input).
  CHECK(parse_error(std::string(200000, '[')) ==
        "d.json:1:33: JSON nested deeper than 32 levels; an LLDP neighbour dump nests far less");
  CHECK(parse_error("{\"lldp\": " + std::string(100000, '[') + std::string(100000, ']') + "}") ==
        "d.json:1:41: JSON nested deeper than 32 levels; an LLDP neighbour dump nests far less");
}

TEST_CASE("validator/lldp: the device of a dump: DEVICE=FILE or the file name") {
  auto arg = [](const std::string& text) {
    auto r = validator::parse_lldp_argument(text);
    REQUIRE(r.ok());
    return r->device + " " + r->path + (r->device_from_file_name ? " (file name)" : "");
  };
  CHECK(arg("tor-p0-s00-r1a=dumps/r1a.json") == "tor-p0-s00-r1a dumps/r1a.json");
  CHECK(arg("dumps/tor-p0-s00-r1a.json") == "tor-p0-s00-r1a dumps/tor-p0-s00-r1a.json (file name)");
  CHECK(arg("tor1.dc1.example.json") == "tor1.dc1.example tor1.dc1.example.json (file name)");
  CHECK(arg("./a=b.json") == "a=b ./a=b.json (file name)");
  CHECK(arg("host-p0-s00-h000") == "host-p0-s00-h000 host-p0-s00-h000 (file name)");
  CHECK_FALSE(validator::parse_lldp_argument("=x.json").ok());
  CHECK(validator::parse_lldp_argument("dumps/.json").error().message ==
        "--lldp 'dumps/.json': no device name in the file name; give it as DEVICE=FILE");

  LabFixture lab;
  auto w = validator::collect_witnesses(*lab.fabric, {});
  LldpDump stray{"tor-p0-s00-r9a", true, "dumps/tor-p0-s00-r9a.json", {}};
  CHECK(validator::add_lldp_witnesses(*lab.fabric, {stray}, LldpMatch::port_description, w).error().message ==
        "dumps/tor-p0-s00-r9a.json: device 'tor-p0-s00-r9a' (from the file name) is not in the blueprint; "
        "name it with --lldp DEVICE=FILE");
  LldpDump one{"tor-p0-s00-r1a", true, "a/tor-p0-s00-r1a.json", {}};
  LldpDump two{"tor-p0-s00-r1a", false, "b.json", {}};
  CHECK(validator::add_lldp_witnesses(*lab.fabric, {one, two}, LldpMatch::port_description, w).error().message ==
        "b.json: a second LLDP dump of tor-p0-s00-r1a (the first is a/tor-p0-s00-r1a.json)");
}

TEST_CASE("validator/verify: --lldp exit codes, JSON report and errors") {
  test::LabFixture lab;
  test::TempDir dir;
  REQUIRE(write_plan(lab.bp(), lab.plan.summary, (dir / "plan").string()).ok());
  const std::string planned = data("planned").string();
  std::string all;
  for (const auto& d : dumps_in("planned")) all += " '" + d.source + "'";
  auto clean = test::run_hpnctl("verify --blueprint plan --lldp" + all, dir.path());
  INFO(clean.err);
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.rfind("clean: 112 cables in scope, 112 verified both ways; 0 findings", 0) == 0);

  const std::string swap = data("swap").string();
  auto swapped = test::run_hpnctl("verify --blueprint plan --format json --lldp '" + swap +
                                      "/host-p0-s00-h000.json' '" + swap + "/host-p0-s00-h001.json' "
                                      "tor-p0-s00-r1a='" + swap + "/tor-p0-s00-r1a.json'",
                                  dir.path());
  CHECK(swapped.exit_code == 1);
  auto j = nlohmann::json::parse(swapped.out);
  REQUIRE(j["findings"].size() >= 1);
  CHECK(j["findings"][0]["kind"] == "swapped");
  CHECK(j["findings"][0]["cables"] == nlohmann::json::array({"C0H00001", "C0H00005"}));
  CHECK(test::schema_errors_of_text("verify-report.schema.json", swapped.out) == "");

  auto bad = test::run_hpnctl("verify --blueprint plan --lldp '" + data("bad/two-ports.json").string() + "'", dir.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: " + data("bad/two-ports.json").string() + ": /lldp/0/interface/0/port: expected one element, found 2\n");
  auto stray = test::run_hpnctl("verify --blueprint plan --lldp '" + data("no-neighbours.json").string() + "'", dir.path());
  CHECK(stray.exit_code == 2);
  CHECK(stray.err == "hpnctl: " + data("no-neighbours.json").string() +
                         ": device 'no-neighbours' (from the file name) is not in the blueprint; name it with --lldp "
                         "DEVICE=FILE\n");
  auto match = test::run_hpnctl("verify --blueprint plan --lldp-match mac --lldp" + all, dir.path());
  CHECK(match.exit_code == 2);
  CHECK(match.err == "hpnctl: --lldp-match must be description or port-id\n");
  auto nothing = test::run_hpnctl("verify --blueprint plan", dir.path());
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err == "hpnctl: verify needs observation files, --lldp or --bgp neighbour dumps, or --lab to probe "
                       "a lab built from the plan\n");
}
