// Routes on the planned and on miswired wirings: host routes at the ToR the
// host is actually cabled to, ECMP upward, one path down per plane, and
// faults that take a cable out of routing.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "lab/lab_topology.h"
#include "fabricmodel/routes.h"
#include "lab_fixture.h"

using namespace hpn;
using namespace hpn::lab;
using hpn::fabricmodel::compute_routes;
using hpn::fabricmodel::NodeRoutes;
using hpn::test::bond_address;
using hpn::test::lab_pod;

namespace {

struct Lab {
  const Blueprint& bp;
  LabTopology topology;
  std::vector<NodeRoutes> routes;

  explicit Lab(const Wiring& wiring) : bp(lab_pod()) {
    auto t = build_topology(bp, wiring, "0000");
    REQUIRE(t);
    topology = std::move(t.value());
    routes = compute_routes(bp, topology);
  }
  static Lab from_csv(const std::string& csv) {
    auto w = parse_wiring(csv, "wiring.csv", lab_pod());
    if (!w) FAIL(w.error().message);
    return Lab(w.value());
  }

  // A switch's IPv6 loopback.
  std::string loopback(const std::string& device) const {
    const int d = test::device_index(bp, device);
    for (const auto& i : bp.interfaces) {
      if (i.device == d && i.purpose == InterfacePurpose::loopback) return i.ipv6;
    }
    FAIL("no loopback for " << device);
    return "";
  }

  const NodeRoutes& at(const std::string& device) const {
    return routes.at(topology.node_of(test::device_index(bp, device)));
  }

  // Where the route to `prefix` from `device` leads: the far ends
  // ("device:port") of its next hops, empty when there is no route.
  std::set<std::string> via(const std::string& device, const std::string& prefix, int len = 128,
                            std::uint32_t table = kMainTable) const {
    const int d = test::device_index(bp, device);
    std::set<std::string> out;
    for (const auto& r : at(device).routes) {
      if (r.prefix != prefix || r.prefix_len != len || r.table != table) continue;
      for (const auto& hop : r.nexthops) {
        bool found = false;
        for (const auto& link : topology.links) {
          for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
            if (mine->device != d || mine->ifname != hop.ifname) continue;
            CHECK(hop.gateway == far->link_local);
            out.insert(bp.devices[far->device].name + ":" + far->port);
            found = true;
          }
        }
        CHECK(found);
      }
    }
    return out;
  }
};

using Set = std::set<std::string>;

}  // namespace

TEST_CASE("dataplane/routing: planned wiring converges to HPN's routes", "[dataplane][routing]") {
  Lab lab(planned_wiring(lab_pod()));
  const std::string h000 = bond_address(lab.bp, "host-p0-s00-h000", 1);
  const std::string far = bond_address(lab.bp, "host-p0-s01-h002", 1);

  // The ToR: its own hosts directly, the other segment's over every
  // aggregation switch of its plane.
  CHECK(lab.via("tor-p0-s00-r1a", h000) == Set{"host-p0-s00-h000:nic1p1"});
  CHECK(lab.via("tor-p0-s00-r1a", far) ==
        Set{"agg-p0-1-00:etp1", "agg-p0-1-01:etp1", "agg-p0-1-02:etp1", "agg-p0-1-03:etp1"});
  // Plane 2 never crosses to plane 1.
  CHECK(lab.via("tor-p0-s00-r1b", far) ==
        Set{"agg-p0-2-00:etp1", "agg-p0-2-01:etp1", "agg-p0-2-02:etp1", "agg-p0-2-03:etp1"});
  CHECK(lab.via("tor-p0-s00-r1a", "::", 0).empty());  // no default: the fabric routes hosts and loopbacks only
  // Aggregation: one path down, to the ToR that has the host; up to the core.
  CHECK(lab.via("agg-p0-1-00", far) == Set{"tor-p0-s01-r1a:etp5"});
  CHECK(lab.via("agg-p0-1-02", h000) == Set{"tor-p0-s00-r1a:etp7"});
  // Up to the core for the loopbacks beyond it.
  CHECK(lab.via("agg-p0-1-00", lab.loopback("core-1-01"), 128) == Set{"core-1-01:etp1"});
  // Core: down over every aggregation switch of the plane.
  CHECK(lab.via("core-1-00", far) ==
        Set{"agg-p0-1-00:etp7", "agg-p0-1-01:etp7", "agg-p0-1-02:etp7", "agg-p0-1-03:etp7"});

  // Hosts: a table per NIC over both ToRs of its pair, picked by source.
  const auto& host = lab.at("host-p0-s00-h000");
  REQUIRE(host.rules.size() == 2);
  CHECK(host.rules[0].from == h000);
  CHECK(host.rules[0].table == kHostTableBase + 1);
  CHECK(lab.via("host-p0-s00-h000", "::", 0, kHostTableBase + 1) ==
        Set{"tor-p0-s00-r1a:etp1a", "tor-p0-s00-r1b:etp1a"});
  CHECK(lab.via("host-p0-s00-h000", "::", 0, kHostTableBase + 2) ==
        Set{"tor-p0-s00-r2a:etp1a", "tor-p0-s00-r2b:etp1a"});
  CHECK(lab.via("host-p0-s00-h000", "::", 0) == lab.via("host-p0-s00-h000", "::", 0, kHostTableBase + 1));
}

TEST_CASE("dataplane/routing: a swapped pair of ToR uplinks is routed as wired", "[dataplane][routing]") {
  const std::string csv = test::swap_z_ends(test::cabling_csv(lab_pod()), "tor-p0-s00-r1a", "etp5", "etp6");
  Lab lab = Lab::from_csv(csv);
  const std::string h000 = bond_address(lab.bp, "host-p0-s00-h000", 1);
  // agg-00 now reaches tor-s00-r1a through its etp6, agg-01 through etp5.
  CHECK(lab.via("agg-p0-1-00", h000) == Set{"tor-p0-s00-r1a:etp6"});
  CHECK(lab.via("agg-p0-1-01", h000) == Set{"tor-p0-s00-r1a:etp5"});
  const auto& tor = lab.at("tor-p0-s00-r1a");
  const std::string far = bond_address(lab.bp, "host-p0-s01-h002", 1);
  bool checked = false;
  for (const auto& r : tor.routes) {
    if (r.prefix != far) continue;
    for (const auto& hop : r.nexthops) {
      // The EUI-64 link-locals of their MACs (02:00:10:01:00:10, 02:00:10:00:00:10).
      if (hop.ifname == "etp5") CHECK(hop.gateway == "fe80::10ff:fe01:10");  // agg-p0-1-01:etp1
      if (hop.ifname == "etp6") CHECK(hop.gateway == "fe80::10ff:fe00:10");  // agg-p0-1-00:etp1
      checked = true;
    }
  }
  CHECK(checked);
}

TEST_CASE("dataplane/routing: a host cabled to the wrong ToR is learned there", "[dataplane][routing]") {
  std::string csv = test::cabling_csv(lab_pod());
  // host-p0-s00-h000:nic1p1 goes to a spare cage of the other segment's ToR.
  const std::string planned = "tor-p0-s00-r1a,etp1a,";
  const auto at = csv.find("host-p0-s00-h000,nic1p1," + planned);
  REQUIRE(at != std::string::npos);
  csv.replace(at, std::string("host-p0-s00-h000,nic1p1," + planned).size(),
              "host-p0-s00-h000,nic1p1,tor-p0-s01-r1a,etp9,");
  Lab lab = Lab::from_csv(csv);
  const std::string h000 = bond_address(lab.bp, "host-p0-s00-h000", 1);
  CHECK(lab.via("tor-p0-s01-r1a", h000) == Set{"host-p0-s00-h000:nic1p1"});
  CHECK(lab.via("tor-p0-s00-r1a", h000).size() == 4);  // now over the aggregation switches
  CHECK(lab.via("agg-p0-1-00", h000) == Set{"tor-p0-s01-r1a:etp5"});
  CHECK(lab.via("host-p0-s00-h000", "::", 0, kHostTableBase + 1) ==
        Set{"tor-p0-s01-r1a:etp9", "tor-p0-s00-r1b:etp1a"});
}

TEST_CASE("dataplane/routing: missing and extra cables", "[dataplane][routing]") {
  std::string csv = test::cabling_csv(lab_pod());
  const std::string far = bond_address(lab_pod(), "host-p0-s01-h002", 1);
  SECTION("a missing host cable leaves that plane without the host") {
    const auto at = csv.find("host-p0-s01-h002,nic1p1,");
    REQUIRE(at != std::string::npos);
    const auto row = csv.rfind('\n', at) + 1;
    csv.erase(row, csv.find('\n', at) - row + 1);
    Lab lab = Lab::from_csv(csv);
    CHECK(lab.via("agg-p0-1-00", far).empty());
    CHECK(lab.via("tor-p0-s00-r1a", far).empty());
    CHECK(lab.via("agg-p0-2-00", far) == Set{"tor-p0-s01-r1b:etp5"});
    CHECK(lab.via("host-p0-s01-h002", "::", 0, kHostTableBase + 1) == Set{"tor-p0-s01-r1b:etp2a"});
  }
  SECTION("an extra ToR-to-ToR cable is the shorter path") {
    // cabling.csv's 20 columns: no panels, one leg.
    csv += "X1,tor-agg,tor-p0-s00-r1a,etp9,tor-p0-s01-r1a,etp9,400,active,5,mmf,,,,,,,5,1,,\n";
    Lab lab = Lab::from_csv(csv);
    CHECK(lab.via("tor-p0-s00-r1a", far) == Set{"tor-p0-s01-r1a:etp9"});
  }
}

TEST_CASE("dataplane/routing: a dark cable leaves routing, one-way faults and loss do not", "[dataplane][routing]") {
  // The plan's sheet with an empty fault column, then faults on four cables.
  std::string csv;
  {
    std::istringstream in(test::cabling_csv(lab_pod()));
    std::string line;
    for (bool header = true; std::getline(in, line); header = false) csv += line + (header ? ",fault\n" : ",\n");
  }
  auto set_fault = [&](const std::string& a_device, const std::string& a_port, const std::string& fault) {
    const auto at = csv.find("," + a_device + "," + a_port + ",");
    REQUIRE(at != std::string::npos);
    csv.insert(csv.find('\n', at), fault);
  };
  set_fault("tor-p0-s00-r1a", "etp5", "down");
  set_fault("tor-p0-s00-r1a", "etp6", "loss-a-z:5");
  set_fault("tor-p0-s00-r1a", "etp7", "drop-z-a");
  set_fault("host-p0-s00-h000", "nic1p1", "drop-a-z");
  Lab lab = Lab::from_csv(csv);
  const std::string h000 = bond_address(lab.bp, "host-p0-s00-h000", 1);
  const std::string far = bond_address(lab.bp, "host-p0-s01-h002", 1);
  CHECK(lab.via("tor-p0-s00-r1a", far) == Set{"agg-p0-1-01:etp1", "agg-p0-1-02:etp1", "agg-p0-1-03:etp1"});
  // The fault struck a converged fabric: the ToR keeps its route to the
  // host, and the host's bond, blind to a one-way fault, keeps sending.
  CHECK(lab.via("tor-p0-s00-r1a", h000) == Set{"host-p0-s00-h000:nic1p1"});
  CHECK(lab.via("agg-p0-1-03", h000) == Set{"tor-p0-s00-r1a:etp8"});
  CHECK(lab.via("host-p0-s00-h000", "::", 0, kHostTableBase + 1) ==
        Set{"tor-p0-s00-r1a:etp1a", "tor-p0-s00-r1b:etp1a"});
}
