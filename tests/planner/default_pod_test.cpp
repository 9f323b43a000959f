// The default pod against FIELD.md §1 and the HPN invariants.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "plan_fixture.h"

using namespace hpn;
using hpn::test::Ends;

namespace {

std::map<Role, int> count_roles(const Blueprint& bp) {
  std::map<Role, int> n;
  for (const auto& d : bp.devices) ++n[d.role];
  return n;
}

}  // namespace

TEST_CASE("planner/default pod: the counts of FIELD.md section 1") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  auto roles = count_roles(bp);
  CHECK(roles[Role::host] == 2040);
  CHECK(roles[Role::tor] == 240);
  CHECK(roles[Role::agg] == 120);
  CHECK(roles[Role::core] == 60);  // 30 per plane, sized for 8 pods
  CHECK(roles[Role::frontend] == 60);

  std::map<std::pair<CableKind, State>, int> cables;
  for (const auto& c : bp.cables) ++cables[{c.kind, c.state}];
  CHECK(cables[{CableKind::host_tor, State::active}] == 30720);
  CHECK(cables[{CableKind::host_tor, State::backup}] == 1920);
  CHECK(cables[{CableKind::tor_agg, State::active}] == 14400);
  CHECK(cables[{CableKind::agg_core, State::active}] == 960);

  const PlanSummary& s = plan.summary;
  CHECK(s.per_segment.active == 1024);
  CHECK(s.per_segment.backup == 64);
  CHECK(s.per_pod.active == 15360);
  CHECK(s.per_pod.backup == 960);
  CHECK(s.tor_oversubscription == Approx(1.0667).epsilon(1e-3));
  CHECK(s.tor_oversubscription_backup == Approx(1.1333).epsilon(1e-3));
  CHECK(s.agg_oversubscription == Approx(15.0));
  CHECK(s.cores_per_plane == 30);
  CHECK(s.core_ports_per_pod == 16);
  CHECK(bp.warnings.empty());  // a pod stays under 100 m of fibre (HPN §10)
}

TEST_CASE("planner/default pod: no port is in two cables, and every end is a real port") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  std::set<std::pair<int, std::string>> used;
  for (const auto& c : bp.cables) {
    for (auto [device, port] : {std::pair{c.a_device, &c.a_port}, std::pair{c.z_device, &c.z_port}}) {
      INFO(c.id << " " << bp.devices[device].name << ":" << *port);
      CHECK(used.insert({device, *port}).second);
      const Panel& panel = bp.panels[bp.devices[device].panel];
      int index = panel.find(*port);
      REQUIRE(index >= 0);
      CHECK(panel.ports[index].speed_gbps == c.speed_gbps);
    }
  }
  std::set<std::string> ids;
  for (const auto& c : bp.cables) CHECK(ids.insert(c.id).second);
}

TEST_CASE("planner/default pod: both ports of a NIC go to the two ToRs of its rail, one per plane") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  Ends ends(bp);
  int hosts = 0;
  for (size_t h = 0; h < bp.devices.size(); ++h) {
    const Device& host = bp.devices[h];
    if (host.role != Role::host) continue;
    ++hosts;
    std::map<int, std::vector<const Ends::End*>> by_nic;  // back-end NICs only
    for (const auto& e : ends.at[h]) {
      if (e.cable->kind != CableKind::host_tor) continue;
      int nic = bp.panels[host.panel].ports[bp.panels[host.panel].find(e.port)].nic;
      by_nic[nic].push_back(&e);
    }
    REQUIRE(by_nic.size() == 8);
    for (const auto& [nic, nic_ends] : by_nic) {
      INFO(host.name << " nic " << nic);
      REQUIRE(nic_ends.size() == 2);
      const Device& t1 = bp.devices[nic_ends[0]->far];
      const Device& t2 = bp.devices[nic_ends[1]->far];
      CHECK(t1.name != t2.name);
      CHECK(t1.role == Role::tor);
      CHECK(t1.rail == nic);
      CHECK(t2.rail == nic);
      CHECK(t1.segment == host.segment);
      CHECK(t2.segment == host.segment);
      CHECK(t1.pod == host.pod);
      CHECK(std::set<int>{t1.plane, t2.plane} == std::set<int>{1, 2});
      CHECK(nic_ends[0]->port == fmt::format("nic{}p1", nic));
      CHECK(t1.plane == 1);  // port 1 to the plane-1 ToR
      for (const auto* e : nic_ends) CHECK(e->cable->state == host.state);
    }
  }
  CHECK(hosts == 2040);
}

TEST_CASE("planner/default pod: every ToR has 128 active and 8 backup hosts and one uplink per agg of its plane") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  Ends ends(bp);
  for (size_t t = 0; t < bp.devices.size(); ++t) {
    const Device& tor = bp.devices[t];
    if (tor.role != Role::tor) continue;
    INFO(tor.name);
    int active = 0, backup = 0;
    std::set<int> aggs;
    int uplinks = 0;
    for (const auto& e : ends.at[t]) {
      if (e.cable->kind == CableKind::host_tor) {
        (e.cable->state == State::active ? active : backup)++;
        const Device& host = bp.devices[e.far];
        CHECK(host.segment == tor.segment);
        CHECK(host.pod == tor.pod);
      } else {
        REQUIRE(e.cable->kind == CableKind::tor_agg);
        const Device& agg = bp.devices[e.far];
        ++uplinks;
        aggs.insert(static_cast<int>(e.far));
        CHECK(agg.plane == tor.plane);
        CHECK(agg.pod == tor.pod);
      }
    }
    CHECK(active == 128);
    CHECK(backup == 8);
    CHECK(uplinks == 60);
    CHECK(aggs.size() == 60);
  }
}

TEST_CASE("planner/default pod: every agg has one downlink per ToR of its plane and 8 uplinks to its plane's core") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  Ends ends(bp);
  for (size_t a = 0; a < bp.devices.size(); ++a) {
    const Device& agg = bp.devices[a];
    if (agg.role != Role::agg) continue;
    INFO(agg.name);
    std::set<size_t> tors, cores;
    for (const auto& e : ends.at[a]) {
      const Device& far = bp.devices[e.far];
      CHECK(far.plane == agg.plane);
      if (e.cable->kind == CableKind::tor_agg) {
        CHECK(far.pod == agg.pod);
        CHECK(tors.insert(e.far).second);
      } else {
        REQUIRE(e.cable->kind == CableKind::agg_core);
        CHECK(far.role == Role::core);
        CHECK(cores.insert(e.far).second);
      }
    }
    CHECK(tors.size() == 120);  // 15 segments x 8 ToRs of its plane
    CHECK(cores.size() == 8);
  }
}

TEST_CASE("planner/default pod: every core rule maps an in-port to the same index of the destination pod's group") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  const int group = 16;
  std::set<std::tuple<int, std::string, int>> keys;
  for (const auto& r : bp.core_rules) {
    int in = test::cage_of(r.in_port) - 1, out = test::cage_of(r.out_port) - 1;
    INFO(bp.devices[r.core].name << " " << r.in_port << " -> pod " << r.dst_pod << " " << r.out_port);
    CHECK(in % group == out % group);
    CHECK(out / group == r.dst_pod);
    CHECK(in / group != r.dst_pod);
    CHECK(r.status == "reserved");  // one pod built: no inter-pod traffic yet
    CHECK(r.fallback == fmt::format("hash etp{}..etp{}", r.dst_pod * group + 1, r.dst_pod * group + group));
    CHECK(keys.insert({r.core, r.in_port, r.dst_pod}).second);
  }
  CHECK(bp.core_rules.size() == size_t{60} * 128 * 7);
  // The pod's agg uplinks land in pod 0's group of each core.
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::agg_core) CHECK(test::cage_of(c.z_port) <= group);
  }
}

TEST_CASE("planner/default pod: node IDs and port IDs fit the telemetry fields and are unique") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  std::set<uint32_t> ids;
  for (const auto& d : bp.devices) {
    CHECK(d.node_id < 0xFFFFFF);
    CHECK(ids.insert(d.node_id).second);
  }
  for (const auto& panel : bp.panels) {
    std::set<uint16_t> port_ids;
    std::set<std::string> names;
    for (const auto& p : panel.ports) {
      CHECK(p.port_id < 0xFFFF);
      CHECK(port_ids.insert(p.port_id).second);
      CHECK(names.insert(p.name).second);
    }
  }
  const Panel& tor = bp.panels[bp.devices[std::find_if(bp.devices.begin(), bp.devices.end(),
      [](const Device& d) { return d.role == Role::tor; }) - bp.devices.begin()].panel];
  int index = tor.find("etp35b");
  REQUIRE(index >= 0);
  CHECK(tor.ports[index].port_id == 0x232);
  CHECK(tor.ports[index].breakout_of == "etp35");
  CHECK(tor.ports[index].speed_gbps == 200);
}

TEST_CASE("planner/default pod: every NIC bond has its own address in its ToR pair's subnet") {
  Plan plan = test::plan_of("");
  const Blueprint& bp = plan.blueprint;
  std::set<std::string> v4, v6;
  int bonds = 0;
  for (const auto& i : bp.interfaces) {
    if (i.purpose != InterfacePurpose::host) continue;
    ++bonds;
    CHECK(v4.insert(i.ipv4).second);
    CHECK(v6.insert(i.ipv6).second);
  }
  CHECK(bonds == 2040 * 9);
  // host-p0-s00-h000 bond1 sits in 10.0.0.0/24 behind gateways .1 and .2.
  auto host0 = std::find_if(bp.interfaces.begin(), bp.interfaces.end(), [&](const Interface& i) {
    return bp.devices[i.device].name == "host-p0-s00-h000" && i.name == "bond1";
  });
  REQUIRE(host0 != bp.interfaces.end());
  CHECK(host0->ipv4 == "10.0.0.16");
  CHECK(host0->ipv4_len == 24);
  CHECK(host0->ipv6 == "fd48:504e::10");
  CHECK(host0->ipv6_len == 64);
  auto gw = std::find_if(bp.interfaces.begin(), bp.interfaces.end(), [&](const Interface& i) {
    return bp.devices[i.device].name == "tor-p0-s00-r1b" && i.purpose == InterfacePurpose::gateway;
  });
  REQUIRE(gw != bp.interfaces.end());
  CHECK(gw->ipv4 == "10.0.0.2");
  // Switch-to-switch links: a /31 each, lower address at the a-end.
  REQUIRE(bp.links.size() == 14400 + 960);
  CHECK(bp.links[0].a_ipv4 == "172.16.0.0");
  CHECK(bp.links[0].z_ipv4 == "172.16.0.1");
}
