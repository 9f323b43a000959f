// Bonds against the blueprint: the expectations are found by the test's own
// walk of the cables and interfaces, never read back from the profile.
#include <map>
#include <set>

#include "blueprint/mac.h"
#include "hostconfig/profile.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::test;

// Where the blueprint cables host:port, found by scanning every cable.
struct Wiring {
  std::map<std::pair<int, std::string>, int> far;  // (host, port) -> far device
  std::map<int, const Interface*> gateway;          // device -> its gateway interface
  std::map<std::pair<int, int>, const Interface*> host_row;  // (host, nic) -> bond row
  explicit Wiring(const Blueprint& bp) {
    for (const auto& c : bp.cables) far[{c.a_device, c.a_port}] = c.z_device;
    for (const auto& i : bp.interfaces) {
      if (i.purpose == InterfacePurpose::gateway) gateway[i.device] = &i;
      if (i.purpose == InterfacePurpose::host) host_row[{i.device, i.nic}] = &i;
    }
  }
};

TEST_CASE("profile/bonds: every host of the default pod has 8 back-end bonds on two ToRs of its rail, one per plane") {
  const Blueprint& bp = default_pod().blueprint;
  Wiring w(bp);
  ProfileBuilder b = builder_for(bp);
  REQUIRE(b.hosts().size() == 2040);
  std::set<Mac> macs;
  for (int h : b.hosts()) {
    HostProfile p = b.build(h);
    const Device& host = bp.devices[h];
    REQUIRE(p.bonds.size() == 9);  // bond0 (front end) + bond1..bond8
    for (const Bond& bond : p.bonds) {
      INFO(host.name << " " << bond.name);
      REQUIRE(macs.insert(bond.mac).second);  // unique in the fabric
      const Interface* row = w.host_row.at({h, bond.nic});
      CHECK(bond.name == row->name);
      REQUIRE(bond.ipv4);
      CHECK(bond.ipv4->text() == row->ipv4 + "/" + std::to_string(row->ipv4_len));
      REQUIRE(bond.ipv6);
      CHECK(bond.ipv6->text() == row->ipv6 + "/" + std::to_string(row->ipv6_len));
      REQUIRE(bond.members.size() == 2);
      std::set<int> planes;
      std::vector<std::string> gateways4, gateways6;
      for (int port = 1; port <= 2; ++port) {
        std::string name = "nic" + std::to_string(bond.nic) + "p" + std::to_string(port);
        CHECK(bond.members[port - 1].port == name);
        const Device& peer = bp.devices[w.far.at({h, name})];
        CHECK(bond.members[port - 1].peer == peer.name);
        if (bond.backend) {
          CHECK(peer.role == Role::tor);
          CHECK(peer.rail == bond.nic);
          CHECK(peer.pod == host.pod);
          CHECK(peer.segment == host.segment);
          planes.insert(peer.plane);
        } else {
          CHECK(peer.role == Role::frontend);
        }
        const Interface* gw = w.gateway.at(w.far.at({h, name}));
        gateways4.push_back(gw->ipv4);
        gateways6.push_back(gw->ipv6);
      }
      if (bond.backend) {
        CHECK(planes == std::set<int>{1, 2});
        CHECK(bond.mtu == 4200);
        CHECK(bond.table == 1000 + bond.nic);
      }
      // ARP toward exactly the two switches the blueprint wires the NIC to.
      CHECK(bond.arp_monitor);
      CHECK(bond.arp_targets == gateways4);
      // A back-end bond routes the back-end prefix and the switches'
      // loopbacks (which switch probes address); the front end, defaults.
      REQUIRE(bond.routes.size() == (bond.backend ? 4u : 2u));
      const size_t v6 = bond.backend ? 2 : 1;
      for (size_t i = 0; i < bond.routes.size(); ++i) CHECK(bond.routes[i].via == (i < v6 ? gateways4 : gateways6));
      CHECK(bond.routes[0].to.text() == (bond.backend ? "10.0.0.0/12" : "0.0.0.0/0"));
      CHECK(bond.routes[v6].to.text() == (bond.backend ? "fd48:504e::/40" : "::/0"));
      if (bond.backend) {
        CHECK(bond.routes[1].to.text() == "10.255.0.0/16");
        CHECK(bond.routes[3].to.text() == "fd48:5050::/64");
      }
    }
  }
}

TEST_CASE("profile/bonds: the MAC is locally administered unicast from node ID and NIC") {
  CHECK(to_string(bond_mac(0x123456, 7)) == "02:4e:12:34:56:07");
  CHECK(to_string(bond_mac(0xFFFFFE, 8)) == "02:4e:ff:ff:fe:08");
  // Decoded by the same scheme: node and NIC back, and nothing from a MAC
  // of another scheme (a lab port's, a NIC's own).
  std::uint32_t node = 0;
  int nic = 0;
  REQUIRE(decode_bond_mac(bond_mac(0x123456, 7), node, nic));
  CHECK(node == 0x123456);
  CHECK(nic == 7);
  CHECK_FALSE(decode_bond_mac(port_mac(0x100001, 3), node, nic));
  Mac own;
  REQUIRE(parse_mac("3c:fd:fe:12:34:56", own));
  CHECK_FALSE(decode_bond_mac(own, node, nic));
  const Blueprint& bp = default_pod().blueprint;
  ProfileBuilder b = builder_for(bp);
  int h = device_index(bp, "host-p0-s14-h135");
  HostProfile p = b.build(h);
  for (const Bond& bond : p.bonds) {
    CHECK((bond.mac[0] & 0x02) != 0);  // U/L: locally administered
    CHECK((bond.mac[0] & 0x01) == 0);  // I/G: unicast
    CHECK(bond.mac == bond_mac(bp.devices[h].node_id, bond.nic));
  }
  // The same host profiled again gets the same MACs.
  CHECK(b.build(h).bonds[3].mac == p.bonds[3].mac);
}

TEST_CASE("profile/bonds: 802.3ad toward two independent ToRs is refused with the reason") {
  const Blueprint& bp = default_pod().blueprint;
  auto b = ProfileBuilder::create(bp, {BondMode::lacp, std::nullopt, nullptr});
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message ==
        "transport.bond_mode 802.3ad cannot aggregate toward two independent ToRs (segment.dual_tor): "
        "each port of a NIC sees a different LACP partner, so the bond runs on one port; use balance-xor, "
        "or active-backup with ARP monitoring toward both gateways");
}

TEST_CASE("profile/bonds: active-backup validates ARP on the active port only, balance-xor on both") {
  const Blueprint& bp = default_pod().blueprint;
  int h = device_index(bp, "host-p0-s00-h000");
  for (const Bond& bond : builder_for(bp).build(h).bonds) CHECK(bond.arp_validate_all);
  for (const Bond& bond : builder_for(bp, {BondMode::active_backup, std::nullopt, nullptr}).build(h).bonds) {
    CHECK_FALSE(bond.arp_validate_all);
    // Toward both gateways: the active port may be on either ToR.
    REQUIRE(bond.members.size() == 2);
    CHECK(bond.arp_targets == std::vector<std::string>{bond.members[0].gateway_ipv4, bond.members[1].gateway_ipv4});
    CHECK(bond.members[0].gateway_ipv4 != bond.members[1].gateway_ipv4);
  }
}

TEST_CASE("profile/bonds: 802.3ad (single ToR) refuses ARP monitoring and gets MII, active-backup halves the bandwidth") {
  HostProfile lacp = builder_for(single_tor_pod().blueprint, {BondMode::lacp, std::nullopt, nullptr})
                         .build(device_index(single_tor_pod().blueprint, "host-p0-s00-h000"));
  const Blueprint& bp = default_pod().blueprint;
  int h = device_index(bp, "host-p0-s00-h000");
  HostProfile xor_ = builder_for(bp).build(h);
  HostProfile ab = builder_for(bp, {BondMode::active_backup, std::nullopt, nullptr}).build(h);
  for (const Bond& bond : lacp.bonds) {
    CHECK(bond.mode == BondMode::lacp);
    CHECK_FALSE(bond.arp_monitor);
    CHECK(bond.arp_targets.empty());
    CHECK(bond.miimon_ms == 100);
    CHECK(bond.speed_gbps == 400);
  }
  for (const Bond& bond : ab.bonds) {
    CHECK(bond.arp_monitor);
    CHECK(bond.arp_targets.size() == 2);
    CHECK(bond.miimon_ms == 0);
    CHECK(bond.speed_gbps == 200);
  }
  // One port's bandwidth: the same RTT, half the BDP.
  REQUIRE(ab.classes.size() == xor_.classes.size());
  CHECK(ab.classes[0].path.rtt_ns == xor_.classes[0].path.rtt_ns);
  CHECK(ab.classes[0].path.bdp_bytes * 2 == xor_.classes[0].path.bdp_bytes);
}

TEST_CASE("profile/bonds: --mtu changes the back-end bonds only") {
  const Blueprint& bp = default_pod().blueprint;
  HostProfile p = builder_for(bp, {std::nullopt, 9000, nullptr}).build(device_index(bp, "host-p0-s00-h000"));
  for (const Bond& bond : p.bonds) CHECK(bond.mtu == (bond.backend ? 9000 : 1500));
}

TEST_CASE("profile/bonds: each back-end bond's source address picks its own table") {
  const Blueprint& bp = default_pod().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p0-s03-h017"));
  std::set<int> tables;
  for (const Bond& bond : p.bonds) {
    if (!bond.backend) {
      CHECK(bond.rules.empty());
      CHECK(bond.table == kMainTable);
      continue;
    }
    REQUIRE(bond.rules.size() == 2);
    CHECK(bond.rules[0].from == IpPrefix{4, bond.ipv4->address, 32});
    CHECK(bond.rules[1].from == IpPrefix{6, bond.ipv6->address, 128});
    CHECK(bond.rules[0].table == bond.table);
    CHECK(bond.routes[0].table == bond.table);
    tables.insert(bond.table);
  }
  CHECK(tables.size() == 8);
}

TEST_CASE("profile/bonds: the ARP and neighbour sysctls are set on every bond") {
  const Blueprint& bp = default_pod().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p0-s00-h000"));
  std::map<std::string, std::string> s;
  for (const auto& x : p.sysctls) REQUIRE(s.emplace(x.key, x.value).second);
  for (const Bond& bond : p.bonds) {
    INFO(bond.name);
    CHECK(s["net.ipv4.conf." + bond.name + ".arp_announce"] == "2");
    CHECK(s["net.ipv4.conf." + bond.name + ".arp_ignore"] == "1");
    CHECK(s["net.ipv4.conf." + bond.name + ".arp_notify"] == "1");
    CHECK(s["net.ipv6.conf." + bond.name + ".ndisc_notify"] == "1");
  }
  CHECK(s["net.ipv4.fib_multipath_hash_policy"] == "1");
}

TEST_CASE("profile/bonds: a host without a front-end NIC has back-end bonds only") {
  const Blueprint& bp = halls_fabric().blueprint;  // the lab pod has no front end
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p2-s01-h007"));
  REQUIRE(p.bonds.size() == 2);
  CHECK(p.bonds[0].name == "bond1");
  CHECK(p.state == State::backup);
  for (const auto& e : p.env) CHECK(e.name != "NCCL_SOCKET_IFNAME");
}

}  // namespace
