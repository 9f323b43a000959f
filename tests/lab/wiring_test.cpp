// Wiring files: the plan's own sheet reads back as the plan, columns go by
// header name, and every bad row is reported at its line.
#include <catch2/catch.hpp>

#include "lab/wiring.h"
#include "lab_fixture.h"

using namespace hpn;
using namespace hpn::lab;
using hpn::test::lab_pod;

TEST_CASE("dataplane/wiring: the plan's cabling.csv reads back as the planned wiring", "[dataplane][wiring]") {
  const Blueprint& bp = lab_pod();
  auto parsed = parse_wiring(test::cabling_csv(bp), "cabling.csv", bp);
  REQUIRE(parsed);
  const Wiring planned = planned_wiring(bp);
  REQUIRE(planned.cables.size() == 112);  // 64 host-ToR (16 backup), 32 ToR-agg, 16 agg-core
  REQUIRE(parsed->cables.size() == planned.cables.size());
  for (size_t i = 0; i < planned.cables.size(); ++i) {
    const auto& p = planned.cables[i];
    const auto& w = parsed->cables[i];
    CHECK(w.cable_id == p.cable_id);
    CHECK(w.a_device == p.a_device);
    CHECK(w.a_port == p.a_port);
    CHECK(w.z_device == p.z_device);
    CHECK(w.z_port == p.z_port);
    CHECK(w.fault == Fault{});
    CHECK(w.line == static_cast<int>(i) + 2);  // after the header
  }
}

TEST_CASE("dataplane/wiring: columns are found by name, in any order, and faults parse",
          "[dataplane][wiring]") {
  const Blueprint& bp = lab_pod();
  const std::string text =
      "z_port,fault,z_device,a_port,a_device\r\n"
      "etp1a,down,tor-p0-s00-r1a,nic1p1,host-p0-s00-h000\r\n"
      "\r\n"
      "etp1,loss-z-a:5,agg-p0-1-01,etp5,tor-p0-s00-r1a\r\n"
      "etp1,drop-a-z,agg-p0-1-00,etp6,tor-p0-s00-r1a\r\n";
  auto w = parse_wiring(text, "w.csv", bp);
  REQUIRE(w);
  REQUIRE(w->cables.size() == 3);
  CHECK(bp.devices[w->cables[0].a_device].name == "host-p0-s00-h000");
  CHECK(w->cables[0].z_port == "etp1a");
  CHECK(w->cables[0].cable_id.empty());
  CHECK(w->cables[0].fault.kind == FaultKind::down);
  CHECK(w->cables[1].line == 4);
  CHECK(w->cables[1].fault == Fault{FaultKind::loss, Direction::z_to_a, 5});
  CHECK(w->cables[2].fault == Fault{FaultKind::drop, Direction::a_to_z, 0});
}

TEST_CASE("dataplane/wiring: fault texts round-trip and bad ones are refused", "[dataplane][wiring]") {
  for (const char* text : {"", "down", "drop-a-z", "drop-z-a", "loss-a-z:1", "loss-z-a:100", "ioam-off-a", "ioam-off-z",
                           "icmp-off-a", "icmp-off-z"}) {
    Fault f;
    REQUIRE(parse_fault(text, f));
    CHECK(f.to_string() == text);
  }
  for (const char* text : {"drop", "drop-x-y", "loss-a-z", "loss-a-z:", "loss-a-z:0", "loss-a-z:101",
                           "loss-a-z:5%", "Down", "up", "ioam-off", "ioam-off-x", "ioam-off-az", "icmp-off-"}) {
    Fault f;
    CHECK_FALSE(parse_fault(text, f));
  }
}

TEST_CASE("dataplane/wiring: every bad row is reported at its line", "[dataplane][wiring]") {
  const Blueprint& bp = lab_pod();
  const std::string text =
      "cable_id,a_device,a_port,z_device,z_port,fault\n"
      "C1,host-p0-s00-h000,nic1p1,tor-p0-s00-r1a,etp1a,\n"
      "C2,tor-p0-s00-r9a,etp5,agg-p0-1-00,etp1,\n"
      "C3,tor-p0-s00-r1a,etp99,agg-p0-1-00,etp1,\n"
      "C4,host-p0-s00-h001,nic1p1,tor-p0-s00-r1a,etp1a,\n"
      "C5,tor-p0-s00-r1a,etp5,agg-p0-1-00,etp1,drop\n"
      "C6,tor-p0-s00-r1a,etp1,agg-p0-1-01,etp1,\n"
      "C7,tor-p0-s00-r1a,etp6\n"
      "C8,tor-p0-s00-r1a,etp7,tor-p0-s00-r1a,etp7,\n"
      "C9,tor-p0-s00-r1a,etp8,agg-p0-1-03,etp1,loss-a-z:101\n"
      "C10,tor-p0-s00-r1a,etp9,,etp1,\n"
      "\"C11,tor-p0-s00-r1a\n";
  auto w = parse_wiring(text, "wiring.csv", bp);
  REQUIRE_FALSE(w);
  CHECK(w.error().message ==
        "wiring.csv:3: unknown device 'tor-p0-s00-r9a'; did you mean 'tor-p0-s00-r1a'?\n"
        "wiring.csv:4: device 'tor-p0-s00-r1a' has no port 'etp99'; did you mean 'etp9'?\n"
        "wiring.csv:5: tor-p0-s00-r1a:etp1a is already cabled on line 2\n"
        "wiring.csv:6: fault 'drop': expected down, drop-a-z, drop-z-a, loss-a-z:N, loss-z-a:N (N in 1..100), "
        "ioam-off-a, ioam-off-z, icmp-off-a or icmp-off-z\n"
        "wiring.csv:7: port 'etp1' of 'tor-p0-s00-r1a' is broken out into etp1a, etp1b; cable one of those\n"
        "wiring.csv:8: 3 fields, but the header has 6\n"
        "wiring.csv:9: both ends are tor-p0-s00-r1a:etp7\n"
        "wiring.csv:10: fault 'loss-a-z:101': expected down, drop-a-z, drop-z-a, loss-a-z:N, loss-z-a:N (N in 1..100), "
        "ioam-off-a, ioam-off-z, icmp-off-a or icmp-off-z\n"
        "wiring.csv:11: empty z_device or z_port\n"
        "wiring.csv:12: unterminated quoted field");
}

TEST_CASE("dataplane/wiring: a bad header stops before the rows", "[dataplane][wiring]") {
  const Blueprint& bp = lab_pod();
  auto w = parse_wiring("cable_id,a_devise,a_port,z_device,z_port,faults\nC1,x,y,z,w,\n", "w.csv", bp);
  REQUIRE_FALSE(w);
  CHECK(w.error().message ==
        "w.csv:1: unknown column 'a_devise'; did you mean 'a_device'?\n"
        "w.csv:1: unknown column 'faults'; did you mean 'fault'?\n"
        "w.csv:1: missing column 'a_device'");
  auto empty = parse_wiring("\n\n", "w.csv", bp);
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message == "w.csv:1: empty file; expected a header line of cabling.csv's columns");
  auto missing = read_wiring_file("/nonexistent/wiring.csv", bp);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "/nonexistent/wiring.csv: no such file");
}

TEST_CASE("dataplane/wiring: IOAM and ICMPv6 faults are a switch port's, never a host's", "[dataplane][wiring]") {
  const Blueprint& bp = lab_pod();
  const std::string text =
      "a_device,a_port,z_device,z_port,fault\n"
      "host-p0-s00-h000,nic1p1,tor-p0-s00-r1a,etp1a,ioam-off-z\n"
      "host-p0-s00-h001,nic1p1,tor-p0-s00-r1a,etp1b,ioam-off-a\n"
      "tor-p0-s00-r1a,etp5,agg-p0-1-00,etp1,icmp-off-a\n";
  auto w = parse_wiring(text, "w.csv", bp);
  REQUIRE_FALSE(w);
  CHECK(w.error().message == "w.csv:3: fault 'ioam-off-a': host-p0-s00-h001 is a host; IOAM and ICMPv6 faults are a "
                             "switch port's");
  auto good = parse_wiring(text.substr(0, text.find("host-p0-s00-h001")) + "tor-p0-s00-r1a,etp5,agg-p0-1-00,etp1,icmp-off-a\n",
                           "w.csv", bp);
  REQUIRE(good);
  CHECK(good->cables[0].fault.kind == FaultKind::ioam_off);
  CHECK(good->cables[0].fault.at_z);
  CHECK(good->cables[1].fault.kind == FaultKind::icmp_off);
  CHECK_FALSE(good->cables[1].fault.at_z);
}
