// hpnctl impact's model (planner/impact.h) and the plan's expected failures
// (planner/reliability.h) on the default pod and the single-ToR baseline,
// each figure against the arithmetic of the design written out here.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "plan_fixture.h"
#include "planner/impact.h"
#include "planner/reliability.h"

namespace hpn::test {
namespace {

int device(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

int cable_at(const Blueprint& bp, const std::string& dev, const std::string& port) {
  const int d = device(bp, dev);
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    if (bp.cables[i].a_device == d && bp.cables[i].a_port == port) return static_cast<int>(i);
  }
  FAIL("no cable at " << dev << ":" << port);
  return -1;
}

const CapacityLoss* row(const ImpactReport& r, CapacityScope scope, int segment, int plane, CableKind tier) {
  for (const auto& c : r.capacity) {
    if (c.scope == scope && c.pod == 0 && c.segment == segment && c.plane == plane && c.tier == tier) return &c;
  }
  return nullptr;
}

Failure dev(const Blueprint& bp, const std::string& name) { return {Failure::Kind::device, device(bp, name)}; }

}  // namespace

TEST_CASE("impact: the default pod, one host cable, one ToR, one aggregation and one core switch", "[impact]") {
  const Plan plan = plan_of("");
  const Blueprint& bp = plan.blueprint;
  // A host: 8 back-end NICs x 2 ports x 200G = 3,200 Gb/s.
  SECTION("one host cable costs its host 200 of 3,200 Gb/s, 6.25%, and rail 1 runs on plane 2") {
    const auto r = assess_impact(bp, {{Failure::Kind::cable, cable_at(bp, "host-p0-s00-h000", "nic1p1")}});
    REQUIRE(r.hosts.size() == 1);
    CHECK(bp.devices[r.hosts[0].host].name == "host-p0-s00-h000");
    CHECK(r.hosts[0].lost_gbps == 200);
    CHECK(r.hosts[0].total_gbps == 8 * 2 * 200);
    CHECK(200.0 / 3200 == 0.0625);
    REQUIRE(r.hosts[0].rails.size() == 1);
    CHECK(r.hosts[0].rails[0].rail == 1);
    REQUIRE(r.hosts[0].rails[0].left.size() == 1);
    CHECK(r.hosts[0].rails[0].left[0].port == "nic1p2");
    CHECK(r.hosts[0].rails[0].left[0].tor == "tor-p0-s00-r1b");
    CHECK(r.hosts[0].rails[0].left[0].plane == 2);
    CHECK(r.hosts[0].rails[0].left[0].reach == Reach::fabric);
    CHECK(r.outages.empty());
    // Segment 0's plane-1 host links: 8 ToRs x 136 hosts x 200G = 217,600 Gb/s.
    const auto* seg = row(r, CapacityScope::segment, 0, 1, CableKind::host_tor);
    REQUIRE(seg);
    CHECK(seg->lost_gbps == 200);
    CHECK(seg->total_gbps == 8 * 136 * 200);
    CHECK(r.capacity.size() == 2);  // the segment's and the plane's host links, nothing else
  }
  SECTION("one ToR: its 136 hosts each lose 6.25% and keep rail 1 on the other ToR; 1/8 of the segment's plane") {
    const auto r = assess_impact(bp, {dev(bp, "tor-p0-s00-r1a")});
    CHECK(r.hosts.size() == 136);  // 128 active + 8 backup
    for (const auto& h : r.hosts) {
      CHECK(h.lost_gbps == 200);
      REQUIRE(h.rails.size() == 1);
      REQUIRE(h.rails[0].left.size() == 1);
      CHECK(h.rails[0].left[0].tor == "tor-p0-s00-r1b");
    }
    CHECK(r.outages.empty());
    CHECK(r.hosts_dark_on_a_rail() == 0);
    // Its 60 uplinks of 400G of the segment's 8 plane-1 ToRs: 24,000 of 192,000 = 12.5%.
    const auto* up = row(r, CapacityScope::segment, 0, 1, CableKind::tor_agg);
    REQUIRE(up);
    CHECK(up->lost_gbps == 60 * 400);
    CHECK(up->total_gbps == 8 * 60 * 400);
    // Of the plane's 15 x 8 = 120 ToRs: 1/120.
    const auto* plane = row(r, CapacityScope::plane, kNone, 1, CableKind::tor_agg);
    REQUIRE(plane);
    CHECK(plane->total_gbps == 120 * 60 * 400);
    CHECK(plane->lost_gbps * 120 == plane->total_gbps);
    CHECK(row(r, CapacityScope::plane, kNone, 2, CableKind::tor_agg) == nullptr);
  }
  SECTION("one aggregation switch is 1 of the plane's 60: 1.67% of its ToR uplinks, no host touched") {
    const auto r = assess_impact(bp, {dev(bp, "agg-p0-1-00")});
    CHECK(r.hosts.empty());
    const auto* plane = row(r, CapacityScope::plane, kNone, 1, CableKind::tor_agg);
    REQUIRE(plane);
    CHECK(plane->lost_gbps == 120 * 400);         // one downlink per plane-1 ToR
    CHECK(plane->total_gbps == 120 * 60 * 400);   // 2,880,000 Gb/s
    CHECK(plane->lost_gbps * 60 == plane->total_gbps);  // 1/60 = 1.67%
    // Its 8 of the plane's 60 x 8 = 480 core uplinks: 1/60 too.
    const auto* core = row(r, CapacityScope::plane, kNone, 1, CableKind::agg_core);
    REQUIRE(core);
    CHECK(core->lost_gbps == 8 * 400);
    CHECK(core->total_gbps == 480 * 400);
    // Every segment's plane-1 ToRs lose 1 of their 60 uplinks each.
    for (int s = 0; s < 15; ++s) {
      const auto* seg = row(r, CapacityScope::segment, s, 1, CableKind::tor_agg);
      REQUIRE(seg);
      CHECK(seg->lost_gbps == 8 * 400);
      CHECK(seg->total_gbps == 8 * 60 * 400);
    }
  }
  SECTION("one core switch: its 128/8 = 16 ports to this pod of the plane's 480 core uplinks, 3.33%") {
    const auto r = assess_impact(bp, {dev(bp, "core-1-00")});
    CHECK(r.hosts.empty());
    REQUIRE(r.capacity.size() == 1);
    CHECK(r.capacity[0].tier == CableKind::agg_core);
    CHECK(r.capacity[0].plane == 1);
    CHECK(r.capacity[0].lost_gbps == 16 * 400);
    CHECK(r.capacity[0].total_gbps == 480 * 400);
  }
  SECTION("both ToRs of a rail: the pair is called out and its 136 hosts go dark on rail 1") {
    const auto r = assess_impact(bp, {dev(bp, "tor-p0-s00-r1a"), dev(bp, "tor-p0-s00-r1b")});
    REQUIRE(r.outages.size() == 1);
    CHECK(r.outages[0].kind == OutageKind::tor_pair);
    CHECK(r.outages[0].rail == 1);
    CHECK(r.outages[0].hosts.size() == 136);
    CHECK(r.outages[0].causes == std::vector<std::string>{"tor-p0-s00-r1a", "tor-p0-s00-r1b"});
    CHECK_FALSE(r.outages[0].single_point());
    for (const auto& h : r.hosts) CHECK(h.lost_gbps == 400);  // 12.5% each
  }
  SECTION("both cables of one NIC: that host alone goes dark on its rail; a failure named twice counts once") {
    const int c1 = cable_at(bp, "host-p0-s00-h000", "nic3p1"), c2 = cable_at(bp, "host-p0-s00-h000", "nic3p2");
    const auto r = assess_impact(bp, {{Failure::Kind::cable, c1}, {Failure::Kind::cable, c2}, {Failure::Kind::cable, c1}});
    CHECK(r.failures.size() == 2);
    REQUIRE(r.outages.size() == 1);
    CHECK(r.outages[0].kind == OutageKind::cables);
    CHECK(r.outages[0].rail == 3);
    CHECK(r.hosts_dark_on_a_rail() == 1);
  }
  SECTION("a host that fails is failed, not cut off a rail; a front-end leaf costs the back end nothing") {
    const auto host = assess_impact(bp, {dev(bp, "host-p0-s00-h005")});
    REQUIRE(host.hosts.size() == 1);
    CHECK(host.hosts[0].failed);
    CHECK(host.hosts[0].lost_gbps == 3200);
    CHECK(host.outages.empty());
    const auto leaf = assess_impact(bp, {dev(bp, "fe-p0-s00-l0a")});
    CHECK(leaf.frontend_failures == 1);
    CHECK(leaf.hosts.empty());
    CHECK(leaf.capacity.empty());
  }
  SECTION("every aggregation switch of plane 1: the plane-1 ports reach only their segment") {
    std::vector<Failure> all;
    for (int j = 0; j < 60; ++j) all.push_back(dev(bp, fmt::format("agg-p0-1-{:02}", j)));
    const auto r = assess_impact(bp, all);
    CHECK(r.hosts.size() == 2040);
    CHECK(r.outages.empty());
    CHECK(r.hosts[0].lost_gbps == 0);
    CHECK(r.hosts[0].rails.size() == 8);
    CHECK(r.hosts[0].rails[0].left[0].reach == Reach::segment);
    CHECK(r.hosts[0].rails[0].left[1].reach == Reach::fabric);
  }
}

TEST_CASE("impact: the single-ToR baseline, where one ToR takes its hosts off the rail", "[impact]") {
  const Plan plan = plan_of_file("examples/baseline-single-tor.yaml");
  const Blueprint& bp = plan.blueprint;
  SECTION("one host cable: 6.25%, the rail left on the same ToR") {
    const auto r = assess_impact(bp, {{Failure::Kind::cable, cable_at(bp, "host-p0-s00-h000", "nic1p1")}});
    REQUIRE(r.hosts.size() == 1);
    CHECK(r.hosts[0].lost_gbps * 16 == r.hosts[0].total_gbps);
    REQUIRE(r.hosts[0].rails[0].left.size() == 1);
    CHECK(r.hosts[0].rails[0].left[0].tor == "tor-p0-s00-r1");
    CHECK(r.outages.empty());
  }
  SECTION("one ToR: its 64 + 4 hosts go dark on rail 1, a single point of failure") {
    const auto r = assess_impact(bp, {dev(bp, "tor-p0-s00-r1")});
    CHECK(r.hosts.size() == 68);
    for (const auto& h : r.hosts) {
      CHECK(h.lost_gbps == 2 * 200);  // both ports of NIC 1: 12.5%
      REQUIRE(h.rails.size() == 1);
      CHECK(h.rails[0].dark());
    }
    REQUIRE(r.outages.size() == 1);
    CHECK(r.outages[0].kind == OutageKind::single_tor);
    CHECK(r.outages[0].single_point());
    CHECK(r.outages[0].hosts.size() == 68);
    // The segment's one plane: 8 ToRs x 68 hosts x 2 ports x 200G; one ToR is 1/8.
    const auto* seg = row(r, CapacityScope::segment, 0, 1, CableKind::host_tor);
    REQUIRE(seg);
    CHECK(seg->total_gbps == 8 * 68 * 2 * 200);
    CHECK(seg->lost_gbps == 68 * 2 * 200);
  }
  SECTION("one aggregation switch: 1 of 60, as in HPN") {
    const auto r = assess_impact(bp, {dev(bp, "agg-p0-1-00")});
    const auto* plane = row(r, CapacityScope::plane, kNone, 1, CableKind::tor_agg);
    REQUIRE(plane);
    CHECK(plane->lost_gbps * 60 == plane->total_gbps);
    CHECK(r.hosts.empty());
  }
  SECTION("one core switch: 16 of 480 core uplinks") {
    const auto r = assess_impact(bp, {dev(bp, "core-1-00")});
    REQUIRE(r.capacity.size() == 1);
    CHECK(r.capacity[0].lost_gbps == 16 * 400);
    CHECK(r.capacity[0].total_gbps == 480 * 400);
  }
}

TEST_CASE("reliability: the plan's expected failures a month, by hand", "[impact][reliability]") {
  SECTION("default pod: 32,640 links x 0.057% and 240 ToRs x 0.051%; no single failure cuts a host off") {
    const Plan plan = plan_of("");
    const auto& e = plan.summary.failures;
    CHECK(e.nic_tor_links == 2040 * 16);
    CHECK(e.tors == 240);
    CHECK(e.links_a_month() == Approx(18.6048));          // 32,640 x 0.00057
    CHECK(e.per_segment(e.links_a_month()) == Approx(1.24032));  // / 15 segments
    CHECK(e.tors_a_month() == Approx(0.1224));            // 240 x 0.00051
    CHECK(e.per_segment(e.tors_a_month()) == Approx(0.00816));
    CHECK(e.backup_hosts_per_segment == 8);
    CHECK(e.hosts_cut_off_by_link == 0);
    CHECK(e.hosts_cut_off_by_tor == 0);
    CHECK(e.hosts_cut_off_a_month_per_segment() == 0);
  }
  SECTION("single-ToR: a ToR failure cuts off 68 hosts; 8 ToRs x 0.051% x 68 = 0.27744 hosts a month per segment") {
    const Plan plan = plan_of_file("examples/baseline-single-tor.yaml");
    const auto& e = plan.summary.failures;
    CHECK(e.nic_tor_links == 15 * 68 * 16);
    CHECK(e.tors == 15 * 8);
    CHECK(e.hosts_cut_off_by_link == 0);
    CHECK(e.hosts_cut_off_by_tor == 68);
    CHECK(e.backup_hosts_per_segment == 4);
    CHECK(e.hosts_cut_off_a_month_per_segment() == Approx(8 * 0.00051 * 68));
    std::ostringstream text;
    render_expected_failures(e, text);
    CHECK(text.str().find("one ToR failure cuts off 68 hosts, more than the segment's 4 backup hosts") !=
          std::string::npos);
  }
  SECTION("the rates are the spec's") {
    const Plan plan = plan_of("version: 1\nreliability: {nic_tor_link_monthly_pct: 1, tor_monthly_pct: 0.5}\n");
    CHECK(plan.summary.failures.links_a_month() == Approx(326.4));  // 32,640 x 1%
    CHECK(plan.summary.failures.tors_a_month() == Approx(1.2));     // 240 x 0.5%
  }
  SECTION("flaps: min above max is refused where it stands") {
    auto spec = load_spec("version: 1\nreliability:\n  link_flaps_per_day: {min: 9, max: 1}\n", "pod.yaml");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().message ==
          "pod.yaml:3:24: reliability.link_flaps_per_day: min (9) is above max (1)\n"
          "  link_flaps_per_day: {min: 9, max: 1}\n"
          "                       ^\n");
  }
}

}  // namespace hpn::test
