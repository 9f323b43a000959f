// The designs HPN replaced, planned from the example specs, and the lab pod.
#include <catch2/catch.hpp>

#include "plan_fixture.h"

using namespace hpn;
using hpn::test::Ends;

TEST_CASE("planner/baseline: single-ToR puts both ports of a NIC on one ToR, one plane") {
  Plan plan = test::plan_of_file("examples/baseline-single-tor.yaml");
  const Blueprint& bp = plan.blueprint;
  Ends ends(bp);
  int tors = 0;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& d = bp.devices[i];
    if (d.role == Role::tor) {
      ++tors;
      CHECK(d.plane == 1);
    }
    if (d.role != Role::host) continue;
    std::map<int, std::set<size_t>> tors_of_nic;
    for (const auto& e : ends.at[i]) {
      if (e.cable->kind != CableKind::host_tor) continue;
      tors_of_nic[bp.panels[d.panel].ports[bp.panels[d.panel].find(e.port)].nic].insert(e.far);
    }
    REQUIRE(tors_of_nic.size() == 8);
    for (const auto& [nic, set] : tors_of_nic) CHECK(set.size() == 1);
  }
  CHECK(tors == 15 * 8);
  CHECK(plan.summary.per_segment.active == 512);
  CHECK(plan.summary.tor_oversubscription == Approx(64.0 * 400 / (60 * 400)));
}

TEST_CASE("planner/baseline: single-plane wires both ToRs of a pair to every aggregation switch") {
  Plan plan = test::plan_of_file("examples/baseline-single-plane.yaml");
  const Blueprint& bp = plan.blueprint;
  Ends ends(bp);
  int aggs = 0;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& d = bp.devices[i];
    if (d.role != Role::agg) continue;
    ++aggs;
    int down = 0;
    for (const auto& e : ends.at[i]) down += e.cable->kind == CableKind::tor_agg;
    CHECK(down == 7 * 16);  // every ToR of the pod, both sides of each pair
  }
  CHECK(aggs == 60);
  for (const auto& d : bp.devices) {
    if (d.role == Role::tor) CHECK(d.plane == 1);
  }
}

TEST_CASE("planner/lab pod: small enough to check cable by cable") {
  Plan plan = test::plan_of_file("examples/lab-pod.yaml");
  const Blueprint& bp = plan.blueprint;
  CHECK(bp.cables.size() == 64 + 32 + 16);
  CHECK(plan.summary.cores_per_plane == 2);
  // Backup hosts take the ToRs' backup ports, after the active ones.
  const Cable& c = *std::find_if(bp.cables.begin(), bp.cables.end(), [&](const Cable& x) {
    return bp.devices[x.a_device].name == "host-p0-s01-h007" && x.a_port == "nic2p2";
  });
  CHECK(bp.devices[c.z_device].name == "tor-p0-s01-r2b");
  CHECK(c.z_port == "etp4b");
  CHECK(c.state == State::backup);
}
