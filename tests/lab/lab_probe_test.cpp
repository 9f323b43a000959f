// The lab as root: the lab-sized pod in network namespaces, IOAM probes
// between hosts of different segments decoded at the receiver and checked
// hop by hop against the wiring and by tshark; a swapped pair of ToR
// uplinks visible in the traces. Skips with a warning without root, IPv6
// IOAM or network namespaces.
#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "running_lab.h"
#include "test_util.h"

using namespace hpn;
using namespace hpn::lab;
using namespace hpn::test;
using hpn::test::lab_pod;

TEST_CASE("dataplane/lab (root): probes between segments follow the planned cables, spread by source port",
          "[dataplane][lab][root]") {
  require_lab();
  RunningLab lab(planned_wiring(lab_pod()));
  const auto wires = wires_of(cabling_csv(lab_pod()));
  const std::vector<Flow> flows = {{"host-p0-s00-h000", "host-p0-s01-h001", 1},
                                   {"host-p0-s01-h002", "host-p0-s00-h003", 2}};
  const auto captured = probe_flows(lab, wires, flows, ports_from(40000, 32));

  std::vector<CapturedProbe> all;
  std::vector<std::vector<probe::IoamHopRecord>> all_hops;
  for (const auto& flow : captured) {
    std::map<std::string, std::set<std::string>> aggs_behind;  // first ToR -> aggregation switches
    for (const auto& p : flow) {
      aggs_behind[p.path.at(0)].insert(p.path.at(1));
      all.push_back(p.captured);
      all_hops.push_back(p.hops);
    }
    // The host's bond hashes over both ports, i.e. both ToRs and planes;
    // each ToR hashes the source ports over several aggregation switches.
    CHECK(aggs_behind.size() == 2);
    for (const auto& [tor, aggs] : aggs_behind) {
      INFO(tor << " sent to " << aggs.size() << " aggregation switches");
      CHECK(aggs.size() >= 2);
    }
  }

  SECTION("tshark decodes the same hops from the captured packets") {
    if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
      hpn::test::skip("tshark not installed");
    }
    TempDir dir;
    const std::string pcap = (dir / "lab-probes.pcap").string();
    write_pcap(pcap, all);
    const auto out = run("tshark -r '" + pcap +
                         "' -T fields -e ipv6.opt.ioam.trace.node.id -e ipv6.opt.ioam.trace.node.iif"
                         " -e ipv6.opt.ioam.trace.node.eif 2>/dev/null");
    std::istringstream lines(out);
    std::string line;
    size_t packet = 0;
    while (std::getline(lines, line)) {
      REQUIRE(packet < all.size());
      // tshark prints records as on the wire, newest first, in hex; one
      // tab-separated column per field, a record's values joined by ','.
      std::vector<std::vector<unsigned long>> printed(1), expected(3);
      std::string value;
      for (char c : line + "\t") {
        if (c != ',' && c != '\t') {
          value += c;
          continue;
        }
        if (!value.empty()) printed.back().push_back(std::stoul(value, nullptr, 0));
        value.clear();
        if (c == '\t') printed.emplace_back();
      }
      printed.pop_back();
      const auto& hops = all_hops[packet];
      for (auto h = hops.rbegin(); h != hops.rend(); ++h) {
        expected[0].push_back(h->node_id->value);
        expected[1].push_back(h->ingress_if->value);
        expected[2].push_back(h->egress_if->value);
      }
      INFO("packet " << packet);
      CHECK(printed == expected);
      ++packet;
    }
    CHECK(packet == all.size());
  }

  SECTION("lab status validates against schemas/lab-status.schema.json") {
    auto status = lab_status(lab.state_path, lab.ops);
    REQUIRE(status);
    REQUIRE(status->has_value());
    const auto json = status_json(**status);
    for (const auto& d : json["devices"]) {
      CHECK(d["present"] == true);
      for (const auto& p : d["ports"]) CHECK(p["state"] == "up");
      if (d["name"] == "host-p0-s00-h000") {
        const auto& p = d["ports"][0];
        CHECK(p["port"] == "nic1p1");
        // The bond's MAC and addresses, which host apply --no-bond gave the
        // port, beside the lab's link-local address.
        CHECK(p["mac"] == "02:4e:10:00:00:01");
        std::set<std::string> addresses;
        for (const auto& a : p["addresses"]) addresses.insert(a.get<std::string>());
        // (lab status lists the IPv6 addresses, which IOAM probes use)
        CHECK(addresses == std::set<std::string>{bond_address(lab_pod(), "host-p0-s00-h000", 1) + "/64",
                                                 "fe80::10:0:11/64"});
      }
    }
    TempDir dir;
    write_file(dir / "status.json", json.dump(2));
    // Debian's python3 has python3-jsonschema (tests/schema/CMakeLists.txt).
    const std::string check = fmt::format(
        "/usr/bin/python3 -c 'import json, sys, jsonschema; s = json.load(open(sys.argv[1])); "
        "jsonschema.Draft202012Validator.check_schema(s); "
        "jsonschema.Draft202012Validator(s).validate(json.load(open(sys.argv[2])))' '{}' '{}' 2>&1",
        source_path("schemas/lab-status.schema.json").string(), (dir / "status.json").string());
    if (std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
      hpn::test::skip("/usr/bin/python3 has no jsonschema (Debian python3-jsonschema)");
    }
    CHECK(run(check + "; echo exit=$?") == "exit=0\n");
  }
}

TEST_CASE("dataplane/lab (root): a swapped pair of ToR uplinks shows in the decoded paths",
          "[dataplane][lab][root]") {
  require_lab();
  const std::string csv = swap_z_ends(cabling_csv(lab_pod()), "tor-p0-s00-r1a", "etp5", "etp6");
  auto wiring = parse_wiring(csv, "swapped.csv", lab_pod());
  REQUIRE(wiring);
  RunningLab lab(wiring.value());
  const auto actual = wires_of(csv);
  const auto planned = wires_of(cabling_csv(lab_pod()));
  // Both directions through tor-p0-s00-r1a, pinned to plane 1 by the port.
  const auto captured =
      probe_flows(lab, actual,
                  {{"host-p0-s00-h000", "host-p0-s01-h000", 1}, {"host-p0-s01-h000", "host-p0-s00-h000", 1}},
                  ports_from(41000, 32), "nic1p1");
  const std::uint16_t etp5 = port_id(lab_pod(), "tor-p0-s00-r1a", "etp5");
  const std::uint16_t etp6 = port_id(lab_pod(), "tor-p0-s00-r1a", "etp6");
  int up_swapped = 0, down_swapped = 0;
  for (size_t f = 0; f < captured.size(); ++f) {
    const std::string src = f == 0 ? "host-p0-s00-h000" : "host-p0-s01-h000";
    const std::string dst = f == 0 ? "host-p0-s01-h000" : "host-p0-s00-h000";
    for (const auto& p : captured[f]) {
      std::vector<std::string> ignored;
      const std::string vs_plan = check_path(lab_pod(), planned, src, dst, p.captured.ifname, p.hops, ignored);
      // Up: the ToR reaches agg-p0-1-01 out of etp5 (planned: etp6).
      if (f == 0 && p.path[1] == "agg-p0-1-01") {
        CHECK(p.hops[0].egress_if->value == etp5);
        CHECK(vs_plan != "");
        ++up_swapped;
      }
      // Down: agg-p0-1-00's probes enter the ToR at etp6 (planned: etp5).
      if (f == 1 && p.path[1] == "agg-p0-1-00") {
        CHECK(p.hops[2].ingress_if->value == etp6);
        CHECK(vs_plan != "");
        ++down_swapped;
      }
      // The other two uplinks are as planned.
      if (p.path[1] == "agg-p0-1-02" || p.path[1] == "agg-p0-1-03") CHECK(vs_plan == "");
    }
  }
  CHECK(up_swapped > 0);
  CHECK(down_swapped > 0);
}
