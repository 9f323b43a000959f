// The core-rule check: a trace through a core must leave by the port its
// core-rules.csv row names for the in-port and the destination pod. The
// paths are walked here through the two-pod lab's blueprint, cable by
// cable; the rule is looked up in the blueprint, never in the checker.
#include <catch2/catch.hpp>

#include "golden_messages.h"
#include "support/findings.h"

#include <set>

#include "planner/plan_fixture.h"
#include "validator/diff.h"
#include "validator/witness.h"

using namespace hpn;
using hpn::probe::ProbeDirection;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::findings_of_kind;

namespace {

struct TwoPods {
  Plan plan = test::plan_of_file("examples/lab-2pod.yaml");
  FabricIndex fabric{plan.blueprint};
  const Blueprint& bp() const { return plan.blueprint; }

  PortRef port(const std::string& device, const std::string& name) const {
    const int d = fabric.device_by_name(device);
    REQUIRE(d >= 0);
    return {d, fabric.port_by_name(d, name)};
  }
  // The first port of `device` whose planned cable is of `kind` and leads to a device of `role`.
  PortRef toward(int device, CableKind kind, Role role, int skip = 0) const {
    const auto& ports = bp().panels[bp().devices[device].panel].ports;
    for (size_t i = 0; i < ports.size(); ++i) {
      const PortRef p{device, static_cast<int>(i)};
      const CableEnd e = fabric.cable_at(p);
      if (e.cable < 0 || bp().cables[e.cable].kind != kind) continue;
      if (bp().devices[fabric.far_end(p).device].role != role) continue;
      if (skip-- == 0) return p;
    }
    FAIL("no such port");
    return {};
  }
  probe::ObservedHop hop(PortRef in, PortRef out) const {
    return {static_cast<int64_t>(bp().devices[in.device].node_id), fabric.port(in).port_id, fabric.port(out).port_id, 60};
  }
  std::string address(int host, int nic) const {
    for (const auto& i : bp().interfaces) {
      if (i.device == host && i.nic == nic) return i.ipv6;
    }
    return "";
  }

  // A received probe from host-p0-s00-h000:nic1p1 to host-p1-s01-h002's NIC 1,
  // through the core on the sender's first path; `rule_index_shift` moves
  // the core's out-port that many ports along pod 1's group.
  probe::ObservationRecord cross_pod(int rule_index_shift, int* left_cable = nullptr, int* rule_cable = nullptr) const {
    const PortRef sender = port("host-p0-s00-h000", "nic1p1");
    const int dst = fabric.device_by_name("host-p1-s01-h002");
    const PortRef tor_in = fabric.far_end(sender);
    const PortRef tor_up = toward(tor_in.device, CableKind::tor_agg, Role::agg);
    const PortRef agg_in = fabric.far_end(tor_up);
    const PortRef agg_up = toward(agg_in.device, CableKind::agg_core, Role::core);
    const PortRef core_in = fabric.far_end(agg_up);
    // What core-rules.csv says for this in-port and pod 1.
    std::string rule_out;
    for (const auto& r : bp().core_rules) {
      if (r.core == core_in.device && r.in_port == fabric.port(core_in).name && r.dst_pod == 1) rule_out = r.out_port;
    }
    REQUIRE_FALSE(rule_out.empty());
    const int planned = bp().panels[bp().devices[core_in.device].panel].find(rule_out);
    if (rule_cable) *rule_cable = fabric.cable_at({core_in.device, planned}).cable;
    const PortRef core_out{core_in.device, planned + rule_index_shift};
    REQUIRE(fabric.cable_at(core_out).cable >= 0);
    if (left_cable) *left_cable = fabric.cable_at(core_out).cable;
    const PortRef agg2_in = fabric.far_end(core_out);
    // Down to the destination's plane-1 ToR, and to its NIC 1 port 1.
    const PortRef dst_port = port("host-p1-s01-h002", "nic1p1");
    const PortRef tor2_down = fabric.far_end(dst_port);
    PortRef agg2_down;
    const auto& ports = bp().panels[bp().devices[agg2_in.device].panel].ports;
    for (size_t i = 0; i < ports.size(); ++i) {
      const PortRef p{agg2_in.device, static_cast<int>(i)};
      if (fabric.far_end(p).device == tor2_down.device) agg2_down = p;
    }
    REQUIRE(agg2_down.valid());
    const PortRef tor2_in = fabric.far_end(agg2_down);
    probe::ObservationRecord o;
    o.run = "0123456789abcdef";
    o.probe = 1;
    o.direction = ProbeDirection::forward;
    o.src_device = "host-p0-s00-h000";
    o.src_port = "nic1p1";
    o.src_address = address(sender.device, 1);
    o.src_udp_port = 49152;
    o.dst_device = "host-p1-s01-h002";
    o.dst_address = address(dst, 1);
    o.dst_udp_port = 33434;
    o.received = true;
    o.rx_port = "nic1p1";
    o.hops = {hop(tor_in, tor_up), hop(agg_in, agg_up), hop(core_in, core_out), hop(agg2_in, agg2_down),
              hop(tor2_in, tor2_down)};
    return o;
  }
};

}  // namespace

TEST_CASE("validator/core rules: a trace that leaves the core by its rule's port is no finding", "[validator][core]") {
  TwoPods pods;
  auto w = validator::collect_witnesses(pods.fabric, {pods.cross_pod(0)});
  REQUIRE(w.core_hops.size() == 1);
  auto r = validator::diff(pods.fabric, w);
  CHECK(findings_of_kind(r, FindingKind::core_rule_violation).empty());
  for (const auto& f : r.findings) CHECK(f.severity == Severity::info);  // one probe: too little to call anything else
}

TEST_CASE("validator/core rules: a trace that leaves by another port is a core-rule-violation naming both cables",
          "[validator][core]") {
  TwoPods pods;
  int left = -1, rule = -1;
  const auto o = pods.cross_pod(1, &left, &rule);
  auto r = validator::diff(pods.fabric, validator::collect_witnesses(pods.fabric, {o, o}));
  const auto found = findings_of_kind(r, FindingKind::core_rule_violation);
  REQUIRE(found.size() == 1);
  const auto& f = *found[0];
  CHECK(f.severity == Severity::critical);
  hpn::test::check_golden_message(pods.bp(), f);
  CHECK(std::set<int>(f.cables.begin(), f.cables.end()) == std::set<int>{left, rule});
  const auto& bp = pods.bp();
  const Cable& gone = bp.cables[left];
  const Cable& planned = bp.cables[rule];
  const std::string core = bp.devices[gone.z_device].name;
  CHECK(f.message.starts_with(core + " forwarded traffic for pod 1 that arrived on "));
  CHECK(f.message.find(" out of " + gone.z_port + " (cable " + gone.id + " to " + bp.devices[gone.a_device].name + ":" +
                       gone.a_port + ")") != std::string::npos);
  CHECK(f.message.find(" sends it out of " + planned.z_port + " (cable " + planned.id + " to ") != std::string::npos);
  CHECK(f.message.ends_with("load the core's rules (hpnctl config " + core + ")"));
  CHECK(f.observed.find("(2 traces)") != std::string::npos);
  CHECK_FALSE(r.clean());
}

TEST_CASE("validator/core rules: with the rule's own cable at fault, the hash fallback is no violation", "[validator][core]") {
  TwoPods pods;
  int left = -1, rule = -1;
  auto o = pods.cross_pod(1, &left, &rule);
  // Many probes everywhere else would be needed to call the rule's cable
  // missing; its fault is given here as a one-way break seen by LLDP-like
  // evidence: both directions sent, nothing received.
  auto w = validator::collect_witnesses(pods.fabric, {o});
  for (auto& d : w.cables[rule].dir) {
    d.lldp = true;
    d.sent = 1;
  }
  w.lldp_devices.insert(pods.bp().cables[rule].a_device);
  w.lldp_devices.insert(pods.bp().cables[rule].z_device);
  for (int device : {pods.bp().cables[rule].a_device, pods.bp().cables[rule].z_device}) {
    w.device_seen[device] = true;
    w.device_answered[device] = true;  // their agents hear their other neighbours
  }
  auto r = validator::diff(pods.fabric, w);
  CHECK(findings_of_kind(r, FindingKind::missing).size() == 1);
  CHECK(findings_of_kind(r, FindingKind::core_rule_violation).empty());
}
