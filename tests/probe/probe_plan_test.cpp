// The probe plan on the lab pod, run against the forwarding model: the
// first round and its adaptive follow-ups cover every host cable and every
// ToR uplink, and the learned source-port sets follow disjoint paths.
#include <catch2/catch.hpp>

#include "../validator/lab_fixture.h"
#include "probe/probe_plan.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::test::LabFixture;

namespace {

probe::ObservationSet run(const LabFixture& lab, const std::vector<probe::ProbeTarget>& plan) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::ObservationSet out;
  uint64_t id = 0;
  for (const auto& t : plan) {
    int port = lab.fabric->port_by_name(t.src_host, t.src_port);
    for (int sport : t.source_ports) {
      auto obs = model.probe(t.src_host, port, t.dst_host, t.dst_nic, sport, ++id);
      out.add_all(obs);
    }
  }
  return out;
}

// Rounds until the plan says coverage is complete (or its bound is hit).
probe::ObservationSet adaptive(const LabFixture& lab, const std::vector<int>& hosts, int* rounds) {
  auto plan = probe::initial_plan(lab.bp(), hosts);
  auto seen = run(lab, plan);
  *rounds = 1;
  for (;;) {
    auto more = probe::next_round(lab.bp(), plan, seen);
    if (more.empty()) break;
    ++*rounds;
    // Only the new source ports are sent; the plan remembers them all.
    auto delta = probe::merge_round(plan, more);
    auto extra = run(lab, delta);
    seen.add_all(extra);
    REQUIRE(*rounds < 40);
  }
  return seen;
}

}  // namespace

TEST_CASE("probe/plan: scopes parse and resolve to hosts, with clear errors") {
  LabFixture lab;
  auto s = probe::parse_scope("pod=0,segment=1");
  REQUIRE(s.ok());
  auto hosts = probe::hosts_in_scope(lab.bp(), s.value());
  REQUIRE(hosts.ok());
  CHECK(hosts->size() == 8);
  for (int h : hosts.value()) CHECK(lab.bp().devices[h].segment == 1);
  auto tor = probe::hosts_in_scope(lab.bp(), probe::parse_scope("devices=tor-p0-s00-r1a").value());
  REQUIRE(tor.ok());
  CHECK(tor->size() == 8);  // every host of segment 0 has NIC 1 on it
  auto two = probe::hosts_in_scope(lab.bp(), probe::parse_scope("devices=host-p0-s00-h000,host-p0-s01-h001").value());
  REQUIRE(two.ok());
  CHECK(two->size() == 2);
  CHECK(probe::parse_scope("segment=x").error().message == "--scope: segment=x: expected a number");
  CHECK(probe::parse_scope("colour=red").error().message ==
        "--scope: 'colour=red': expected pod=N, segment=N, rack=NAME or devices=A,B,...");
  CHECK(probe::hosts_in_scope(lab.bp(), probe::parse_scope("devices=nope").value()).error().message ==
        "--scope: no device 'nope' in the blueprint");
  CHECK(probe::hosts_in_scope(lab.bp(), probe::parse_scope("rack=H9-R99-99").value()).error().message ==
        "--scope: no rack 'H9-R99-99' in the blueprint");
}

TEST_CASE("probe/plan: every host port is a sender, k probes per pair, each with its own source port") {
  LabFixture lab;
  auto plan = probe::initial_plan(lab.bp(), lab.hosts());
  std::set<std::pair<int, std::string>> senders;
  std::set<int> ports;
  for (const auto& t : plan) {
    senders.insert({t.src_host, t.src_port});
    CHECK(t.source_ports.size() == 3);
    for (int p : t.source_ports) CHECK(ports.insert(p).second);
    CHECK(lab.bp().devices[t.dst_host].role == Role::host);
    CHECK_FALSE(t.dst_address.empty());
  }
  CHECK(senders.size() == 16 * 4);
}

TEST_CASE("probe/plan: adaptive rounds cover every cable in scope both ways and the diff finds the wiring clean") {
  LabFixture lab;
  int rounds = 0;
  auto seen = adaptive(lab, lab.hosts(), &rounds);
  auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, seen));
  CHECK(r.findings.empty());
  CHECK(r.summary.cables_verified == 96);
  for (size_t i = 0; i < lab.bp().cables.size(); ++i) {
    if (lab.bp().cables[i].kind == CableKind::agg_core) continue;
    INFO(lab.bp().cables[i].id);
    CHECK(r.evidence[i].dir[0].received >= 1);
    CHECK(r.evidence[i].dir[1].received >= 1);
  }
}

TEST_CASE("probe/plan: with a ToR uplink gone, rounds stop short of the bound once its silence is past doubt, and the diff calls it missing") {
  LabFixture lab;
  int c = lab.cable_from("tor-p0-s01-r2a", "etp6");
  lab.plug_z(c, {});
  int rounds = 0;
  auto seen = adaptive(lab, lab.hosts(), &rounds);
  // The ToR's pairs hash over its uplink group enough, in the first round,
  // that a member no trace crossed is missing beyond the chance squared:
  // no more rounds to the bound (8) for it.
  CHECK(rounds >= 1);
  CHECK(rounds < 8);
  auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, seen));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::missing);
  CHECK(r.findings[0].cables == std::vector<int>{c});
}

TEST_CASE("probe/plan: learned source-port sets take paths that share no switch-to-switch link") {
  LabFixture lab;
  int rounds = 0;
  auto seen = adaptive(lab, lab.hosts(), &rounds);
  auto paths = probe::learn_disjoint_paths(lab.bp(), seen);
  REQUIRE_FALSE(paths.entries.empty());
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  size_t multi = 0;
  for (const auto& e : paths.entries) {
    int src = lab.fabric->device_by_name(e.src_device), dst = lab.fabric->device_by_name(e.dst_device);
    int port = lab.fabric->port_by_name(src, e.src_port);
    int nic = lab.fabric->nic_of_address(dst, e.dst_address);
    std::set<int> used;
    for (int sport : e.source_ports) {
      auto obs = model.probe(src, port, dst, nic, sport, 1);
      REQUIRE(obs[0].received);
      for (size_t i = 0; i + 1 < obs[0].hops.size(); ++i) {
        int d = lab.fabric->device_by_node_id(obs[0].hops[i].node_id);
        int cable = lab.fabric->cable_at({d, lab.fabric->port_by_id(d, obs[0].hops[i].egress_if)}).cable;
        INFO(e.src_device << ":" << e.src_port << " -> " << e.dst_device << " sport " << sport);
        CHECK(used.insert(cable).second);
      }
    }
    if (e.source_ports.size() > 1) ++multi;
    CHECK(e.source_ports.size() <= 4);  // a lab ToR has 4 uplinks
  }
  CHECK(multi > 0);
  CHECK(probe::to_json(paths).find("\"format\": \"hpnctl-paths\"") != std::string::npos);
}

TEST_CASE("probe/plan: merge_round keeps every port in the plan and hands back only the new ones") {
  std::vector<probe::ProbeTarget> plan{{1, "nic1p1", 2, 1, "fd00::2", {100, 101, 102}}};
  std::vector<probe::ProbeTarget> more{{1, "nic1p1", 2, 1, "fd00::2", {100, 101, 102, 103, 104}},
                                       {1, "nic1p2", 2, 1, "fd00::2", {200}}};
  auto fresh = probe::merge_round(plan, more);
  REQUIRE(fresh.size() == 2);
  CHECK(fresh[0].source_ports == std::vector<int>{103, 104});
  CHECK(fresh[1].source_ports == std::vector<int>{200});
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].source_ports.size() == 5);
  CHECK(probe::merge_round(plan, more).empty());  // nothing new the second time
}

TEST_CASE("probe/plan: switch probes go from one port behind each ToR to its aggregation switches and its plane's cores",
          "[probe][plan]") {
  LabFixture lab;
  const Blueprint& bp = lab.bp();
  std::vector<int> hosts;
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    if (bp.devices[d].role == Role::host) hosts.push_back(static_cast<int>(d));
  }
  const auto plan = probe::switch_probes(bp, hosts);
  // Expected from the cables: per ToR, its uplinks' aggregation switches,
  // and the cores those are cabled to.
  std::map<int, std::set<int>> want;  // ToR -> switches
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::tor_agg) want[c.a_device].insert(c.z_device);
  }
  for (auto& [tor, switches] : want) {
    std::set<int> cores;
    for (const auto& c : bp.cables) {
      if (c.kind == CableKind::agg_core && switches.count(c.a_device)) cores.insert(c.z_device);
    }
    switches.insert(cores.begin(), cores.end());
  }
  std::map<int, std::set<int>> got;
  std::map<int, std::vector<int>> order;  // ToR -> switches in plan order
  std::set<int> ports;
  for (const auto& t : plan) {
    CHECK(t.hop_limit == probe::kSwitchProbeHopLimit);
    const int port = lab.fabric->port_by_name(t.src_host, t.src_port);
    const int tor = lab.fabric->far_end({t.src_host, port}).device;
    got[tor].insert(t.dst_host);
    order[tor].push_back(t.dst_host);
    // The switch's loopback, one source port to an aggregation switch, k to a core.
    const Role role = bp.devices[t.dst_host].role;
    CHECK(t.source_ports.size() == (role == Role::agg ? 1u : 3u));
    bool loopback = false;
    for (const auto& i : bp.interfaces) loopback = loopback || (i.device == t.dst_host && i.purpose == InterfacePurpose::loopback && i.ipv6 == t.dst_address);
    CHECK(loopback);
    for (int sp : t.source_ports) CHECK(ports.insert(sp).second);
  }
  CHECK(got == want);
  // Each ToR's list starts elsewhere, so senders at one pace reach different switches at once.
  std::set<int> firsts;
  for (const auto& [tor, list] : order) firsts.insert(list.front());
  CHECK(firsts.size() > 1);
  // 8 ToRs x (4 aggregation switches + 2 cores x 3).
  size_t probes = 0;
  for (const auto& t : plan) probes += t.source_ports.size();
  CHECK(probes == 8 * (4 + 2 * 3));
}
