// The lab's shape before anything is made: names, addresses, the size
// limit, and what each namespace is told (sysctls, IOAM, addresses, faults).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lab/faults.h"
#include "host/host_apply.h"
#include "lab/lab_topology.h"
#include "lab/namespace_config.h"
#include "lab_fixture.h"

using namespace hpn;
using namespace hpn::lab;
using hpn::test::lab_pod;

namespace {

bool has_sysctl(const NamespaceConfig& c, const std::string& key, const std::string& value) {
  return std::any_of(c.sysctls.begin(), c.sysctls.end(),
                     [&](const lab::Sysctl& s) { return s.key == key && s.value == value; });
}

const NamespaceConfig& config_of(const std::vector<NamespaceConfig>& configs, const LabTopology& t,
                                 const std::string& device) {
  return configs.at(t.node_of(test::device_index(lab_pod(), device)));
}

// What lab up tells each namespace before routing starts: the switches'
// settings come from their switch configurations.
std::vector<NamespaceConfig> lab_configs(const Blueprint& bp, LabTopology& t) {
  auto switches = switch_configs(bp, t);
  REQUIRE(switches);
  return namespace_configs(bp, t, config_pointers(*switches));
}

// The faults in force on a node once the fabric has converged.
std::string late_faults(const LabTopology& t, const std::string& device) {
  return fault_script(t, t.node_of(test::device_index(lab_pod(), device)), FaultPhase::converged);
}

}  // namespace

TEST_CASE("dataplane/topology: one namespace per device, one veth pair per cable", "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  auto t = build_topology(bp, planned_wiring(bp), "3fa2");
  REQUIRE(t);
  CHECK(t->prefix == "hpn-3fa2-");
  REQUIRE(t->nodes.size() == 36);  // 16 hosts, 8 ToRs, 8 aggs, 4 cores
  for (const auto& n : t->nodes) CHECK(n.netns == "hpn-3fa2-" + bp.devices[n.device].name);
  REQUIRE(t->links.size() == 112);
  const LabLink& first = t->links.front();  // C0H00001 host-p0-s00-h000:nic1p1 -> tor-p0-s00-r1a:etp1a
  CHECK(first.cable_id == "C0H00001");
  CHECK(first.a.ifname == "nic1p1");
  CHECK(first.z.ifname == "etp1a");
  CHECK(first.z.port_id == 17);
  CHECK(to_string(first.z.mac) == "02:01:00:00:00:11");  // node 65536, port 17
  // A switch port's link-local is the kernel's EUI-64 one of its MAC; a
  // host's the lab's own.
  CHECK(first.z.link_local == "fe80::1:ff:fe00:11");
  CHECK(first.a.link_local == "fe80::10:0:11");  // node 1048576
  CHECK(port_link_local(1, 16) == "fe80::1:10");
  Mac burnt_in{};
  REQUIRE(parse_mac("00:1b:21:aa:bb:cc", burnt_in));
  CHECK(eui64_link_local(burnt_in) == "fe80::21b:21ff:feaa:bbcc");  // RFC 4291 appendix A: U/L bit flipped
}

TEST_CASE("dataplane/topology: interface names fit IFNAMSIZ", "[dataplane][topology]") {
  PanelPort p;
  p.name = "etp17b";
  p.port_id = 273;
  CHECK(interface_name(p) == "etp17b");
  p.name = "Ethernet1/17/2-long";
  CHECK(interface_name(p) == "p273");
  p.name = "eth0:1";
  CHECK(interface_name(p) == "p273");
  p.name = "fifteen-chars15";
  CHECK(interface_name(p) == "fifteen-chars15");
}

TEST_CASE("dataplane/topology: a blueprint too large for one machine is refused with the limit",
          "[dataplane][topology]") {
  const Blueprint bp = test::plan_of("").blueprint;  // the default pod
  auto size = check_lab_size(bp, planned_wiring(bp));
  REQUIRE_FALSE(size);
  CHECK(size.error().message ==
        "blueprint 'hpn-default' has 2460 hosts and back-end switches; the lab makes one network namespace "
        "each and runs at most 512 on one machine: plan a smaller pod (e.g. examples/lab-pod.yaml)");
}

TEST_CASE("dataplane/topology: a switch's namespace gets only what the lab alone sets, hosts carry their bonds",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  auto t = build_topology(bp, planned_wiring(bp), "0000");
  REQUIRE(t);
  const auto configs = lab_configs(bp, *t);

  // Forwarding, ECMP, IOAM IDs and the ToR's neighbour behaviour are its
  // set's, applied by switch apply (lab_fake_test.cpp): the lab adds only
  // the ICMPv6 rate limit (hpnctl-lab(1)).
  const auto& tor = config_of(configs, *t, "tor-p0-s00-r1a");
  REQUIRE(tor.sysctls.size() == 1);
  CHECK(has_sysctl(tor, "net/ipv6/icmp/ratelimit", "1"));
  CHECK(tor.addresses.empty());
  CHECK(tor.links_up.empty());
  CHECK(tor.links_down.empty());
  // FRR routes the switches: lab up installs no route or neighbour there.
  CHECK(tor.routes.empty());
  CHECK(tor.neighbours.empty());
  CHECK(tor.nft_script.empty());

  // A host gets its ports' link-local addresses and nothing else: the
  // rest is its profile's.
  const auto& host = config_of(configs, *t, "host-p0-s00-h000");
  CHECK_FALSE(has_sysctl(host, "net/ipv6/conf/all/forwarding", "1"));
  CHECK(host.links_up == std::vector<std::string>{"lo"});
  for (const auto& a : host.addresses) CHECK(a.address.starts_with("fe80::"));
  CHECK(host.addresses.size() == 4);
  CHECK(host.routes.empty());
  CHECK(host.rules.empty());
  CHECK(host.neighbours.empty());
}

// A lab host's namespace as lab up leaves it before host apply: its ports,
// down, with their lab MACs and link-local addresses.
host::HostState fresh_lab_host(const LabTopology& t, int device) {
  host::HostState s;
  s.links.push_back({"lo", 1, "", "00:00:00:00:00:00", 65536, true, ""});
  for (const auto& link : t.links) {
    for (const LabPort* end : {&link.a, &link.z}) {
      if (end->device != device) continue;
      s.links.push_back({end->ifname, static_cast<int>(s.links.size()) + 1, "veth", to_string(end->mac), 1500, false, ""});
      s.addresses.push_back({end->ifname, {6, end->link_local, 64}, true, false});
    }
  }
  return s;
}

TEST_CASE("dataplane/topology: a lab host is configured by its own profile, as host apply --no-bond does it",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  auto t = build_topology(bp, planned_wiring(bp), "0000");
  REQUIRE(t);
  auto profiles = host_profiles(bp, *t);
  REQUIRE(profiles);
  CHECK(profiles->size() == 16);
  const int device = test::device_index(bp, "host-p0-s00-h000");
  const HostNetwork& profile = profiles->at(t->node_of(device));
  CHECK(profile.host == "host-p0-s00-h000");
  auto plan = host::plan_changes(profile, fresh_lab_host(*t, device), {.no_bond = true});
  REQUIRE(plan);
  CHECK(plan->conflicts.empty());  // the lab leaves nothing in the profile's way
  std::set<std::string> lines;
  for (const auto& c : plan->changes) lines.insert(c.text());
  const std::string bond1 = test::bond_address(bp, "host-p0-s00-h000", 1);
  INFO(fmt::format("{}", fmt::join(lines, "\n")));
  // The production design: the bond's address, MAC and source rule on both
  // member ports, the back-end prefix via both ToRs' gateways (tables
  // 1000 + NIC), the gateways' neighbours pinned to the shared gateway MAC.
  REQUIRE(profile.bonds.size() == 2);
  REQUIRE(profile.bonds[0].ipv6);
  CHECK(profile.bonds[0].ipv6->address == bond1);
  const Mac mac = bond_mac(bp.devices[device].node_id, 1);
  for (const LabPort* end : {&t->links[0].a, &t->links[1].a}) {
    const std::string& port = end->ifname;
    CHECK(lines.count(fmt::format("+ addr {} dev {} noprefixroute", profile.bonds[0].ipv6->text(), port)) == 1);
    CHECK(lines.count(fmt::format("~ mac {} {} -> {}", port, to_string(end->mac), to_string(mac))) == 1);
    CHECK(lines.count(fmt::format("+ sysctl net.ipv6.conf.{}.ignore_routes_with_linkdown = 1", port)) == 1);
    CHECK(lines.count(fmt::format("~ up {}", port)) == 1);
  }
  CHECK(lines.count(fmt::format("+ rule from {}/128 table 1001 priority 1001", bond1)) == 1);
  bool routed = false;
  for (const auto& c : plan->changes) {
    if (c.kind != host::ChangeKind::set_route || c.prefix.family != 6 || c.table != 1001) continue;
    routed = true;
    REQUIRE(c.nexthops.size() == 2);
    CHECK(c.nexthops[0].onlink);
    std::set<std::string> ports{c.nexthops[0].ifname, c.nexthops[1].ifname};
    CHECK(ports == std::set<std::string>{"nic1p1", "nic1p2"});
    CHECK(c.nexthops[0].gateway != c.nexthops[1].gateway);  // each ToR's own gateway address
  }
  CHECK(routed);
  size_t pinned = 0;
  for (const auto& c : plan->changes) {
    if (c.kind == host::ChangeKind::set_neighbour) {
      CHECK(c.mac == "02:48:50:4e:00:01");  // addressing.gateway_mac: what the ToRs' host ports answer with
      ++pinned;
    }
  }
  CHECK(pinned == 8);  // IPv4 and IPv6 gateway of each of the 4 member ports
}

TEST_CASE("dataplane/topology: faults become link state and nftables on the sending end",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  Wiring w = planned_wiring(bp);
  w.cables[0].fault = {FaultKind::drop, Direction::a_to_z, 0};  // host-p0-s00-h000 -> tor-p0-s00-r1a
  w.cables[1].fault = {FaultKind::loss, Direction::z_to_a, 5};  // tor-p0-s00-r1b -> host-p0-s00-h000
  w.cables[2].fault = {FaultKind::down, Direction::a_to_z, 0};  // host-p0-s00-h000 -- tor-p0-s00-r2a
  auto t = build_topology(bp, w, "0000");
  REQUIRE(t);
  const auto configs = lab_configs(bp, *t);
  const auto& host = config_of(configs, *t, "host-p0-s00-h000");
  // Faults on host cables strike the converged fabric (faults.h).
  CHECK(host.nft_script.empty());
  CHECK(late_faults(*t, "host-p0-s00-h000") ==
        "table netdev hpnctl_lab_faults {\n"
        "  chain out_nic1p1 {\n"
        "    type filter hook egress device \"nic1p1\" priority 0; policy accept;\n"
        "    counter comment \"sent\"\n"
        "    counter drop comment \"cable C0H00001 drop-a-z\"\n"
        "  }\n"
        "}\n");
  CHECK(late_faults(*t, "tor-p0-s00-r1b") ==
        "table netdev hpnctl_lab_faults {\n"
        "  chain out_etp1a {\n"
        "    type filter hook egress device \"etp1a\" priority 0; policy accept;\n"
        "    counter comment \"sent\"\n"
        "    numgen random mod 100 < 5 counter drop comment \"cable C0H00002 loss-z-a:5\"\n"
        "  }\n"
        "}\n");
  CHECK(late_faults(*t, "tor-p0-s00-r1a").empty());  // it only receives the broken direction
  // A down cable: the switch end is taken down again after switch apply
  // (the host's end is its profile's, up and without carrier).
  const auto& tor_down = config_of(configs, *t, "tor-p0-s00-r2a").links_down;
  CHECK(tor_down == std::vector<std::string>{"etp1a"});
}

TEST_CASE("dataplane/topology: --loss drops at random on both ends of every cable that is up, after its fault",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  Wiring w = planned_wiring(bp);
  w.loss_percent = 7;
  w.cables[0].fault = {FaultKind::drop, Direction::a_to_z, 0};  // host-p0-s00-h000 -> tor-p0-s00-r1a
  w.cables[2].fault = {FaultKind::down, Direction::a_to_z, 0};  // host-p0-s00-h000 -- tor-p0-s00-r2a
  auto t = build_topology(bp, w, "0000");
  REQUIRE(t);
  const auto configs = lab_configs(bp, *t);
  const std::string host = late_faults(*t, "host-p0-s00-h000");
  // The faulted end: its drop first, then the background loss.
  CHECK(host.find("  chain out_nic1p1 {\n"
                 "    type filter hook egress device \"nic1p1\" priority 0; policy accept;\n"
                 "    counter comment \"sent\"\n"
                 "    counter drop comment \"cable C0H00001 drop-a-z\"\n"
                 "    numgen random mod 100 < 7 counter drop comment \"cable C0H00001 loss 7%\"\n"
                 "  }\n") != std::string::npos);
  // Every sending interface of every node that is up has a loss rule;
  // the dark cable's ends have none.
  size_t ends = 0;
  for (size_t n = 0; n < t->nodes.size(); ++n) {
    const std::string script = fault_script(*t, static_cast<int>(n), FaultPhase::converged);
    CHECK(configs[n].nft_script.empty());  // the background loss comes once BGP has converged
    for (const auto& link : t->links) {
      for (const LabPort* end : {&link.a, &link.z}) {
        if (t->node_of(end->device) != static_cast<int>(n)) continue;
        const std::string rule = "device \"" + end->ifname + "\" priority 0; policy accept;\n"
                                 "    counter comment \"sent\"\n";
        INFO(bp.devices[end->device].name << ":" << end->ifname);
        if (link.fault.kind == FaultKind::down) {
          CHECK(script.find(rule) == std::string::npos);
        } else {
          CHECK(script.find(rule) != std::string::npos);
          CHECK(script.find("< 7 counter drop comment \"cable " + link.cable_id + " loss 7%\"") != std::string::npos);
          ++ends;
        }
      }
    }
  }
  CHECK(ends == 2 * (t->links.size() - 1));
}

TEST_CASE("dataplane/topology: a one-way break between switches is there before BGP starts, and stays",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  Wiring w = planned_wiring(bp);
  w.loss_percent = 3;
  size_t uplink = 0;
  while (bp.cables[uplink].kind != CableKind::tor_agg) ++uplink;
  w.cables[uplink].fault = {FaultKind::drop, Direction::z_to_a, 0};  // the aggregation switch's end sends nothing
  auto t = build_topology(bp, w, "0000");
  REQUIRE(t);
  const auto configs = lab_configs(bp, *t);
  const std::string agg = bp.devices[bp.cables[uplink].z_device].name;
  const std::string port = bp.cables[uplink].z_port;
  const std::string early = config_of(configs, *t, agg).nft_script;
  CHECK(early ==
        "table netdev hpnctl_lab_faults {\n"
        "  chain out_" + port + " {\n"
        "    type filter hook egress device \"" + port + "\" priority 0; policy accept;\n"
        "    counter comment \"sent\"\n"
        "    counter drop comment \"cable " + bp.cables[uplink].id + " drop-z-a\"\n"
        "  }\n"
        "}\n");
  // Once converged, the whole table is replaced in one transaction: the
  // drop is never lifted, the background loss joins it.
  const std::string late = late_faults(*t, agg);
  CHECK(late.starts_with("table netdev hpnctl_lab_faults\ndelete table netdev hpnctl_lab_faults\ntable netdev"));
  CHECK(late.find("counter drop comment \"cable " + bp.cables[uplink].id + " drop-z-a\"") != std::string::npos);
  CHECK(late.find("loss 3%") != std::string::npos);
}

TEST_CASE("dataplane/topology: IOAM off at a switch port is its sysctl, ICMPv6 errors off an egress drop from the start",
          "[dataplane][topology]") {
  const Blueprint& bp = lab_pod();
  Wiring w = planned_wiring(bp);
  w.cables[0].fault.kind = FaultKind::ioam_off;  // host-p0-s00-h000:nic1p1 -- tor-p0-s00-r1a:etp1a, at the ToR
  w.cables[0].fault.at_z = true;
  size_t uplink = 0;
  while (bp.cables[uplink].kind != CableKind::tor_agg) ++uplink;
  w.cables[uplink].fault.kind = FaultKind::icmp_off;  // tor-p0-s00-r1a:etp5 -- agg-p0-1-00:etp1, at the switch above
  w.cables[uplink].fault.at_z = true;
  auto t = build_topology(bp, w, "0000");
  REQUIRE(t);
  const auto configs = lab_configs(bp, *t);
  // The set enables IOAM on every port (switch apply); the fault's 0 is
  // set after it, and wins. No other port is touched.
  const auto& sysctls = config_of(configs, *t, "tor-p0-s00-r1a").sysctls;
  std::vector<std::string> ioam;
  for (const auto& s : sysctls) {
    if (s.key.ends_with("/ioam6_enabled")) ioam.push_back(s.key + "=" + s.value);
  }
  CHECK(ioam == std::vector<std::string>{"net/ipv6/conf/etp1a/ioam6_enabled=0"});
  const std::string agg = bp.devices[bp.cables[uplink].z_device].name, port = bp.cables[uplink].z_port;
  const std::string drop = "icmpv6 type { destination-unreachable, packet-too-big, time-exceeded, parameter-problem } "
                           "counter drop comment \"cable " + bp.cables[uplink].id + " icmp-off-z\"\n";
  const std::string early = config_of(configs, *t, agg).nft_script;
  CHECK(early == "table netdev hpnctl_lab_faults {\n"
                 "  chain out_" + port + " {\n"
                 "    type filter hook egress device \"" + port + "\" priority 0; policy accept;\n"
                 "    counter comment \"sent\"\n"
                 "    " + drop +
                 "  }\n"
                 "}\n");
  CHECK(late_faults(*t, agg).find(drop) != std::string::npos);  // and it stays
  CHECK(config_of(configs, *t, "tor-p0-s00-r1a").nft_script.empty());
}
