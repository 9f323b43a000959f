// The profile's network part written and read back: what `hpnctl profile`
// builds (the HostNetwork of a HostProfile, blueprint/host_network.h) is, as
// profile.json, what `hpnctl host apply` reads (host/host_profile.h), field
// for field. The lab applies the built value without JSON in between
// (lab/namespace_config.h), so this is where writer and reader drifting
// apart shows: a field one writes and the other drops or reads otherwise.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "host/host_profile.h"
#include "hostconfig/nic_map.h"
#include "hostconfig/profile_json.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::test;

// Built, written as `hpnctl profile` writes it, read as `host apply` reads
// it: equal, checked part by part first so that a failure names the bond
// and member.
void check_round_trip(const HostProfile& profile) {
  INFO(profile.host);
  auto parsed = host::parse_apply_profile(profile_json(profile).dump(2), "profile.json");
  REQUIRE(parsed.ok());
  const HostNetwork& read = parsed.value();
  HostNetwork built = profile;
  built.source = "profile.json";
  CHECK(read.sysctls == built.sysctls);
  REQUIRE(read.bonds.size() == built.bonds.size());
  for (size_t i = 0; i < built.bonds.size(); ++i) {
    const Bond &r = read.bonds[i], &b = built.bonds[i];
    INFO(b.name);
    REQUIRE(r.members.size() == b.members.size());
    for (size_t m = 0; m < b.members.size(); ++m) {
      INFO(b.members[m].port);
      CHECK(r.members[m] == b.members[m]);
    }
    CHECK(r.routes == b.routes);
    CHECK(r.rules == b.rules);
    CHECK(r == b);
  }
  CHECK(read == built);
}

TEST_CASE("profile/round trip: host apply reads back the network every host of a fabric was built with") {
  const Blueprint& bp = halls_fabric().blueprint;
  for (BondMode mode : {BondMode::balance_xor, BondMode::active_backup}) {
    ProfileBuilder builder = builder_for(bp, {.mode = mode});
    for (int h : builder.hosts()) check_round_trip(builder.build(h));
  }
  // 802.3ad (MII monitoring, lacp_rate) where it has one LACP partner.
  ProfileBuilder lacp = builder_for(single_tor_pod().blueprint, {.mode = BondMode::lacp});
  const HostProfile first = lacp.build(lacp.hosts().front());
  CHECK(first.bonds.back().lacp_fast);
  check_round_trip(first);
}

TEST_CASE("profile/round trip: the default pod's front end, default routes and gateway MACs read back") {
  ProfileBuilder builder = builder_for(default_pod().blueprint);
  const HostProfile first = builder.build(builder.hosts().front());
  REQUIRE_FALSE(first.bonds.front().backend);  // NIC 0, the front end: the default routes
  CHECK(first.bonds.front().routes.front().to.text() == "0.0.0.0/0");
  CHECK(first.bonds.back().members.front().gateway_mac);
  for (size_t i = 0; i < builder.hosts().size(); i += 97) check_round_trip(builder.build(builder.hosts()[i]));
}

TEST_CASE("profile/round trip: a NIC map's matches read back") {
  const Blueprint& bp = halls_fabric().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p0-s00-h000"));
  // One port by PCI order (a real device), the others by a mapping: by name, by MAC, with an RDMA device.
  nlohmann::json links = nlohmann::json::array(
      {{{"ifname", "enp59s0f0np0"}, {"link_type", "ether"}, {"address", "b8:ce:f6:00:00:01"},
        {"parentbus", "pci"}, {"parentdev", "0000:3b:00.0"}}});
  auto map = parse_nic_map({{"ip.json", links.dump()},
                            {"map.yaml", "nic1p2: eth1\nnic2p1: {mac: 02:AA:00:00:00:03}\n"
                                         "nic2p2: {ifname: eth3, rdma: mlx5_bond_1}\n"}},
                           planned_ports(p));
  REQUIRE(map.ok());
  apply_nic_map(p, map.value());
  REQUIRE(p.bonds[1].members[0].match);
  CHECK(p.bonds[1].members[0].match->mac == Mac{0x02, 0xaa, 0, 0, 0, 0x03});
  check_round_trip(p);
}

}  // namespace
