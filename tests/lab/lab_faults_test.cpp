// Faults in a real lab (root): a dark cable, a one-way break as in the
// HPN paper's incident, and a lossy cable nftables must accept.
#include <sstream>

#include <catch2/catch.hpp>

#include "running_lab.h"

using namespace hpn;
using namespace hpn::lab;
using namespace hpn::test;
using hpn::test::lab_pod;

TEST_CASE("dataplane/lab (root): faults are realised: a dark cable, a one-way break, a lossy cable",
          "[dataplane][lab][root]") {
  require_lab();
  // The plan's sheet with a fault column: tor-p0-s00-r1a's uplink to
  // agg-p0-1-00 dark, host-p0-s00-h000:nic1p1 broken host-to-ToR (the
  // paper's incident), and a lossy uplink elsewhere (nft must accept it).
  std::string csv;
  {
    std::istringstream in(cabling_csv(lab_pod()));
    std::string line;
    for (bool header = true; std::getline(in, line); header = false) {
      std::string fault;
      if (line.find(",tor-p0-s00-r1a,etp5,") != std::string::npos) fault = "down";
      if (line.find(",host-p0-s00-h000,nic1p1,") != std::string::npos) fault = "drop-a-z";
      if (line.find(",tor-p0-s01-r2b,etp8,") != std::string::npos) fault = "loss-z-a:30";
      csv += line + (header ? ",fault" : "," + fault) + "\n";
    }
  }
  auto wiring = parse_wiring(csv, "faults.csv", lab_pod());
  REQUIRE(wiring);
  RunningLab lab(wiring.value());
  const auto wires = wires_of(csv);

  auto status = lab_status(lab.state_path, lab.ops);
  REQUIRE(status);
  int dark = 0;
  for (const auto& d : (*status)->devices) {
    for (const auto& p : d.ports) {
      const bool is_dark = (d.recorded.name == "tor-p0-s00-r1a" && p.recorded.port == "etp5") ||
                           (d.recorded.name == "agg-p0-1-00" && p.recorded.port == "etp1");
      CHECK(p.state == (is_dark ? "down" : "up"));
      dark += is_dark ? 1 : 0;
    }
  }
  CHECK(dark == 2);

  // Past the dark uplink: the ToR spreads over the other three.
  const auto sports = ports_from(42000, 32);
  auto seen = probe_flows(lab, wires, {{"host-p0-s00-h001", "host-p0-s01-h001", 1}}, sports, "nic1p1");
  for (const auto& p : seen[0]) CHECK(p.path[1] != "agg-p0-1-00");

  // Into the one-way break: the host still sends (its bond sees link), the
  // ToR never receives; the other member port works.
  const std::string h000 = "host-p0-s00-h000";
  {
    Receiver rx(lab.netns("host-p0-s01-h001"));
    send_probes(lab.netns(h000), bond_address(lab_pod(), h000, 1),
                      bond_address(lab_pod(), "host-p0-s01-h001", 1), sports, lab.state.ioam_namespace,
                      "nic1p1");
    CHECK(rx.collect(sports.size(), std::chrono::milliseconds(500)).empty());
  }
  probe_flows(lab, wires, {{h000, "host-p0-s01-h001", 1}}, sports, "nic1p2");
  // Toward the host the break's other direction works, and the fabric,
  // which converged before the fault (HPN §10), still routes to it: probes
  // in plane 1 arrive on the port whose sending direction is dead.
  {
    Receiver rx(lab.netns(h000));
    send_probes(lab.netns("host-p0-s01-h001"), bond_address(lab_pod(), "host-p0-s01-h001", 1),
                      bond_address(lab_pod(), h000, 1), sports, lab.state.ioam_namespace, "nic1p1");
    CHECK(rx.collect(sports.size(), std::chrono::milliseconds(2000)).size() == sports.size());
  }
  auto back = probe_flows(lab, wires, {{"host-p0-s01-h001", h000, 1}}, sports, "nic1p2");
  for (const auto& p : back[0]) CHECK(p.captured.ifname == "nic1p2");
}
