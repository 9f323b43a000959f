// BGP sessions as evidence: FRR's `show bgp neighbors json` read, matched to
// the cables of the lab pod by what the switches report (the port, the
// peer's router ID, the link-locals of the connection, EUI-64 ones as on
// real switches), and judged by the same diff as probes. The
// dumps here are written in FRR 8.4's shape (field names as bgpd prints
// them; tests/dataplane/lab_routing_test.cpp and tests/verify_lab read
// real ones from the lab's bgpd).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "blueprint/mac.h"
#include "golden_messages.h"
#include "lab_fixture.h"
#include "support/findings.h"
#include "validator/bgp.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::test::LabFixture;
using hpn::test::finding_cable_ids;
using nlohmann::json;
using validator::BgpDump;
using validator::BgpSession;

namespace {

struct Port {
  std::string device, port;
};

// A port's link-local address as a real switch has it: the kernel's EUI-64
// one of a burnt-in MAC (a vendor's OUI, then a serial), which says nothing
// of the device or port to anyone without the switch's own word.
std::string ll(const LabFixture& lab, const Port& p) {
  const int d = lab.fabric->device_by_name(p.device);
  REQUIRE(d >= 0);
  const int at = lab.fabric->port_by_name(d, p.port);
  REQUIRE(at >= 0);
  return eui64_link_local({0x0c, 0x42, 0xa1, static_cast<std::uint8_t>(d), static_cast<std::uint8_t>(at >> 8),
                           static_cast<std::uint8_t>(at)});
}

// A switch's router ID: its IPv4 loopback, as switchconfig configures bgpd.
std::string router_id(const LabFixture& lab, const std::string& device) {
  const int d = lab.fabric->device_by_name(device);
  for (const auto& i : lab.plan.blueprint.interfaces) {
    if (i.device == d && i.purpose == InterfacePurpose::loopback) return i.ipv4;
  }
  FAIL("no loopback on " << device);
  return "";
}

std::int64_t asn(const LabFixture& lab, const std::string& device) {
  return lab.plan.blueprint.devices[lab.fabric->device_by_name(device)].asn;
}

// One session in bgpd's words.
json established(const LabFixture& lab, const Port& here, const Port& peer) {
  return {{"bgpNeighborAddr", ll(lab, peer)}, {"remoteAs", asn(lab, peer.device)}, {"hostname", peer.device},
          {"remoteRouterId", router_id(lab, peer.device)}, {"bgpState", "Established"}, {"hostLocal", ll(lab, here)},
          {"portLocal", 179}, {"hostForeign", ll(lab, peer)}, {"portForeign", 40000},
          {"messageStats", {{"totalSent", 12}, {"totalRecv", 14}}},
          {"addressFamilyInfo", {{"ipv6Unicast", {{"acceptedPrefixCounter", 30}}}, {"ipv4Unicast", {{"acceptedPrefixCounter", 20}}}}}};
}
json heard(const LabFixture& lab, const Port& peer) {
  return {{"bgpNeighborAddr", ll(lab, peer)}, {"remoteAs", 0}, {"remoteRouterId", "0.0.0.0"}, {"bgpState", "Connect"},
          {"lastResetDueTo", "Waiting for peer OPEN"}, {"messageStats", {{"totalSent", 0}, {"totalRecv", 0}}}};
}
json deaf() {
  return {{"bgpNeighborAddr", "none"}, {"remoteAs", 0}, {"remoteRouterId", "0.0.0.0"}, {"bgpState", "Idle"},
          {"hostLocal", "Unknown"}, {"hostForeign", "Unknown"}, {"lastResetDueTo", "Waiting for Peer IPv6 LLA"},
          {"messageStats", {{"totalSent", 0}, {"totalRecv", 0}}}};
}

BgpDump dump(const std::string& device, const json& sessions) {
  auto parsed = validator::parse_bgp_neighbors(sessions.dump(), device + ".json");
  INFO((parsed.ok() ? "" : parsed.error().message));
  REQUIRE(parsed.ok());
  return {device, false, device + ".json", std::move(parsed.value())};
}

// Every switch of the lab pod with every session up to its planned peer,
// but for the changes `edit` makes.
std::vector<BgpDump> planned(const LabFixture& lab, const std::function<void(std::map<std::string, json>&)>& edit = {}) {
  std::map<std::string, json> by_device;
  const Blueprint& bp = lab.plan.blueprint;
  for (const auto& c : bp.cables) {
    if (c.kind != CableKind::tor_agg && c.kind != CableKind::agg_core) continue;
    const Port a{bp.devices[c.a_device].name, c.a_port}, z{bp.devices[c.z_device].name, c.z_port};
    by_device[a.device][a.port] = established(lab, a, z);
    by_device[z.device][z.port] = established(lab, z, a);
  }
  if (edit) edit(by_device);
  std::vector<BgpDump> out;
  for (const auto& [device, sessions] : by_device) out.push_back(dump(device, sessions));
  return out;
}

validator::Report diff_bgp(const LabFixture& lab, const std::vector<BgpDump>& dumps) {
  auto w = validator::collect_witnesses(*lab.fabric, {});
  auto added = validator::add_bgp_witnesses(*lab.fabric, dumps, w);
  INFO((added.ok() ? "" : added.error().message));
  REQUIRE(added.ok());
  return validator::diff(*lab.fabric, w);
}

std::string cable_id(const LabFixture& lab, const std::string& device, const std::string& port) {
  const Blueprint& bp = lab.plan.blueprint;
  for (const auto& c : bp.cables) {
    if ((bp.devices[c.a_device].name == device && c.a_port == port) ||
        (bp.devices[c.z_device].name == device && c.z_port == port)) {
      return c.id;
    }
  }
  FAIL("no cable at " << device << ":" << port);
  return "";
}

}  // namespace

TEST_CASE("validator/bgp: FRR's neighbour dump is read, its words for 'unknown' taken as such", "[validator][bgp]") {
  LabFixture lab;
  const json j = {{"etp5", established(lab, {"tor-p0-s00-r1a", "etp5"}, {"agg-p0-1-00", "etp1"})}, {"etp9", deaf()}};
  auto sessions = validator::parse_bgp_neighbors(j.dump(2), "tor.json");
  REQUIRE(sessions);
  REQUIRE(sessions->size() == 2);
  const BgpSession& up = (*sessions)[0];
  CHECK(up.neighbor == "etp5");
  CHECK(up.established());
  CHECK(up.hostname == "agg-p0-1-00");
  CHECK(up.remote_as == 4200000100);
  CHECK(up.prefixes_received == 50);
  CHECK(up.messages_received == 14);
  CHECK(up.local_address == ll(lab, {"tor-p0-s00-r1a", "etp5"}));
  const BgpSession& idle = (*sessions)[1];
  CHECK(idle.state == "Idle");
  CHECK(idle.peer_address.empty());
  CHECK(idle.local_address.empty());
  CHECK(idle.last_reset == "Waiting for Peer IPv6 LLA");
}

TEST_CASE("validator/bgp: bad dumps are refused at their spot", "[validator][bgp]") {
  auto check = [](const std::string& bytes, const std::string& message) {
    auto r = validator::parse_bgp_neighbors(bytes, "r1.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == message);
  };
  check("{\"etp5\": {\"bgpState\": 3}}", "r1.json: /etp5/bgpState: expected a string");
  check("{\"etp5\": {\"remoteAs\": \"65000\", \"bgpState\": \"Idle\"}}", "r1.json: /etp5/remoteAs: expected an integer");
  check("{\"etp5\": {\"bgpNeighborAddr\": \"none\"}}", "r1.json: /etp5/bgpState: missing");
  check("{\"etp5\": {\"bgpState\": \"Idle\", \"messageStats\": []}}", "r1.json: /etp5/messageStats: expected an object");
  check("[]", "r1.json: expected an object of sessions (`vtysh -c 'show bgp neighbors json'`)");
  check("{\"etp5\": ", "r1.json:1:10: not JSON: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
}

TEST_CASE("validator/bgp: a dump deeper, longer or larger than any switch writes is refused before it is parsed",
          "[validator][bgp][robust]") {
  // Each of these once became a DOM of gigabytes (nested brackets: 40
  // bytes of DOM for each byte of input).
  auto error = [](const std::string& bytes) {
    auto r = validator::parse_bgp_neighbors(bytes, "r1.json");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(error("{\"etp5\":\n " + std::string(1000, '[')) ==
        "r1.json:2:33: JSON nested deeper than 32 levels; a BGP neighbour dump nests far less");
  // Brackets inside a string are text, not nesting.
  CHECK(error("{\"etp5\": \"" + std::string(100, '[') + "\"}") == "r1.json: /etp5: expected an object");
  std::string flat = "[";
  for (int i = 0; i < 1'000'001; ++i) flat += i ? ",0" : "0";
  CHECK(error(flat + "]") == "r1.json:1:1999999: more than 1000000 JSON values; too many for a BGP neighbour dump");
  CHECK(error(std::string((16 << 20) + 1, ' ')) ==
        "r1.json: too large for a BGP neighbour dump (more than 16777216 bytes)");
}

TEST_CASE("validator/bgp: every session up to its planned peer verifies every switch cable", "[validator][bgp]") {
  LabFixture lab;
  const auto r = diff_bgp(lab, planned(lab));
  CHECK(r.findings.empty());
  CHECK(r.summary.cables_verified == 48);  // 32 ToR-aggregation, 16 aggregation-core
  CHECK(r.summary.cables_in_scope == 48);  // host cables: BGP does not see them
}

TEST_CASE("validator/bgp: a cable broken one way is unidirectional: one end hears the other, no session forms",
          "[validator][bgp]") {
  LabFixture lab;
  const Port tor{"tor-p0-s00-r1a", "etp6"}, agg{"agg-p0-1-01", "etp1"};
  // tor -> agg is dead: the ToR hears the aggregation switch's router
  // advertisements, the aggregation switch hears nothing.
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[tor.device][tor.port] = heard(lab, agg);
    d[agg.device][agg.port] = deaf();
  }));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::unidirectional);
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{cable_id(lab, tor.device, tor.port)});
  CHECK(f.observed == "agg-p0-1-01:etp1 -> tor-p0-s00-r1a:etp6 only");
  CHECK(f.message.find("; tor-p0-s00-r1a:etp6 hears agg-p0-1-01:etp1, agg-p0-1-01:etp1 hears nothing from "
                       "tor-p0-s00-r1a:etp6, so their BGP session cannot form") != std::string::npos);
}

TEST_CASE("validator/bgp: neither end hearing the other is missing, and the sessions up elsewhere are not", "[validator][bgp]") {
  LabFixture lab;
  const Port core{"core-2-01", "etp4"};
  const int c = lab.fabric->device_by_name(core.device);
  const PortRef far = lab.fabric->far_end({c, lab.fabric->port_by_name(c, core.port)});
  const Port agg{lab.plan.blueprint.devices[far.device].name, lab.fabric->port(far).name};
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[core.device][core.port] = deaf();
    d[agg.device][agg.port] = deaf();
  }));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::missing);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{cable_id(lab, core.device, core.port)});
  CHECK(r.findings[0].message.find("BGP runs at both ends and neither hears the other") != std::string::npos);
}

// What bgpd shows of a session whose link went dark after it was up (read
// from the lab's bgpd): Idle, the last connection's addresses kept.
json gone_dark(const LabFixture& lab, const Port& here, const Port& peer) {
  json s = established(lab, here, peer);
  s["bgpState"] = "Idle";
  s["lastResetDueTo"] = "Waiting for NHT";
  s["connectionsEstablished"] = 1;
  s["connectionsDropped"] = 1;
  return s;
}

TEST_CASE("validator/bgp: a link gone dark after its session was up is missing, though bgpd keeps its addresses",
          "[validator][bgp]") {
  LabFixture lab;
  const Port tor{"tor-p0-s01-r2b", "etp5"};
  const int t = lab.fabric->device_by_name(tor.device);
  const PortRef far = lab.fabric->far_end({t, lab.fabric->port_by_name(t, tor.port)});
  const Port agg{lab.plan.blueprint.devices[far.device].name, lab.fabric->port(far).name};
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[tor.device][tor.port] = gone_dark(lab, tor, agg);
    d[agg.device][agg.port] = gone_dark(lab, agg, tor);
  }));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::missing);
  CHECK(finding_cable_ids(lab.bp(), r.findings[0]) == std::vector<std::string>{cable_id(lab, tor.device, tor.port)});
}

TEST_CASE("validator/bgp: two uplinks exchanged are one swapped finding, found from the sessions' addresses",
          "[validator][bgp]") {
  LabFixture lab;
  const Port t5{"tor-p0-s00-r1a", "etp5"}, t6{"tor-p0-s00-r1a", "etp6"};
  const Port a0{"agg-p0-1-00", "etp1"}, a1{"agg-p0-1-01", "etp1"};
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[t5.device][t5.port] = established(lab, t5, a1);
    d[a1.device][a1.port] = established(lab, a1, t5);
    d[t6.device][t6.port] = established(lab, t6, a0);
    d[a0.device][a0.port] = established(lab, a0, t6);
  }));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].kind == FindingKind::swapped);
  auto got = finding_cable_ids(lab.bp(), r.findings[0]);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{cable_id(lab, t5.device, t5.port), cable_id(lab, t6.device, t6.port)});
}

TEST_CASE("validator/bgp: a peer that speaks another AS than the plan gives it is wrong-asn", "[validator][bgp]") {
  LabFixture lab;
  const Port tor{"tor-p0-s01-r2b", "etp7"};
  const int t = lab.fabric->device_by_name(tor.device);
  const PortRef far = lab.fabric->far_end({t, lab.fabric->port_by_name(t, tor.port)});
  const Port agg{lab.plan.blueprint.devices[far.device].name, lab.fabric->port(far).name};
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[tor.device][tor.port]["remoteAs"] = 64999;
  }));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::wrong_asn);
  hpn::test::check_golden_message(lab.plan.blueprint, f);
  CHECK(f.expected == agg.device + " in AS " + std::to_string(asn(lab, agg.device)));
  CHECK(f.observed == agg.device + " in AS 64999");
  CHECK(f.message == "the BGP session on tor-p0-s01-r2b:etp7 reaches " + agg.device + " in AS 64999, but the plan gives " +
                         agg.device + " AS " + std::to_string(asn(lab, agg.device)) + ": load " + agg.device +
                         "'s configuration from the plan (hpnctl config " + agg.device + ")");
}

TEST_CASE("validator/bgp: a dump of a device the plan lacks, or two of one device, is an input error", "[validator][bgp]") {
  LabFixture lab;
  auto w = validator::collect_witnesses(*lab.fabric, {});
  auto unknown = validator::add_bgp_witnesses(*lab.fabric, {dump("spine-9", json::object())}, w);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message == "spine-9.json: device 'spine-9' is not in the blueprint");
  auto twice = validator::add_bgp_witnesses(*lab.fabric, {dump("core-1-00", json::object()), dump("core-1-00", json::object())}, w);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message == "core-1-00.json: a second BGP dump of core-1-00 (the first is core-1-00.json)");
}

TEST_CASE("validator/bgp: an aggregation uplink moved to the other plane's core is a plane-violation",
          "[validator][bgp]") {
  LabFixture lab;
  const Port agg{"agg-p0-1-00", "etp7"}, core{"core-2-00", "etp5"};  // a free port of pod 1's group, plane 2
  const int a = lab.fabric->device_by_name(agg.device);
  const PortRef home = lab.fabric->far_end({a, lab.fabric->port_by_name(a, agg.port)});
  const Port was{lab.plan.blueprint.devices[home.device].name, lab.fabric->port(home).name};
  const auto r = diff_bgp(lab, planned(lab, [&](std::map<std::string, json>& d) {
    d[agg.device][agg.port] = established(lab, agg, core);
    d[core.device][core.port] = established(lab, core, agg);
    d[was.device][was.port] = deaf();
  }));
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.kind == FindingKind::plane_violation);
  CHECK(finding_cable_ids(lab.bp(), f) == std::vector<std::string>{cable_id(lab, agg.device, agg.port)});
  CHECK(f.message == "cable " + cable_id(lab, agg.device, agg.port) +
                     " from agg-p0-1-00:etp7 (plane 1) lands on core-2-00:etp5 in plane 2: the core keeps the planes "
                     "apart, an aggregation switch's uplinks stay in its own plane; move it to " + was.device + ":" +
                     was.port);
}

namespace {

std::vector<BgpDump> only(std::vector<BgpDump> dumps, const std::string& device) {
  std::erase_if(dumps, [&](const BgpDump& d) { return d.device != device; });
  REQUIRE(dumps.size() == 1);
  return dumps;
}

}  // namespace

TEST_CASE("validator/bgp: a dump from one end alone names its cables by the peers' router IDs", "[validator][bgp]") {
  LabFixture lab;
  const std::string tor = "tor-p0-s00-r1a";
  auto w = validator::collect_witnesses(*lab.fabric, {});
  REQUIRE(validator::add_bgp_witnesses(*lab.fabric, only(planned(lab), tor), w));
  CHECK(w.unreadable_hops == 0);
  CHECK(w.unplanned.empty());
  for (const char* port : {"etp5", "etp6", "etp7", "etp8"}) {
    const int t = lab.fabric->device_by_name(tor);
    const CableEnd e = lab.fabric->cable_at({t, lab.fabric->port_by_name(t, port)});
    REQUIRE(e.cable >= 0);
    // Established: seen both ways, though the far end's dump was not read.
    CHECK(w.cables[e.cable].dir[0].received == 1);
    CHECK(w.cables[e.cable].dir[1].received == 1);
  }
  const auto r = validator::diff(*lab.fabric, w);
  CHECK(r.summary.cables_verified == 4);
  CHECK(r.findings.empty());
}

TEST_CASE("validator/bgp: uplinks exchanged are found from one end's dump, by router ID and interface",
          "[validator][bgp]") {
  LabFixture lab;
  const Port t5{"tor-p0-s00-r1a", "etp5"}, t6{"tor-p0-s00-r1a", "etp6"};
  const Port a0{"agg-p0-1-00", "etp1"}, a1{"agg-p0-1-01", "etp1"};
  // The ToR's etp5 reaches the router ID of agg-p0-1-01, its etp6 that of
  // agg-p0-1-00: the interface names the near port, the router ID the far
  // device, and the plan the one port of that device cabled to this ToR.
  const auto r = diff_bgp(lab, only(planned(lab, [&](std::map<std::string, json>& d) {
                                      d[t5.device][t5.port] = established(lab, t5, a1);
                                      d[t6.device][t6.port] = established(lab, t6, a0);
                                    }),
                                    t5.device));
  std::vector<const validator::Finding*> swapped;
  for (const auto& f : r.findings) {
    if (f.kind == FindingKind::swapped) swapped.push_back(&f);
  }
  REQUIRE(swapped.size() == 1);
  auto got = finding_cable_ids(lab.bp(), *swapped[0]);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{cable_id(lab, t5.device, t5.port), cable_id(lab, t6.device, t6.port)});
}

TEST_CASE("validator/bgp: a peer's address in the lab's old scheme names nothing, only what the dumps show does",
          "[validator][bgp]") {
  LabFixture lab;
  const Port tor{"tor-p0-s00-r1a", "etp6"}, agg{"agg-p0-1-01", "etp1"};
  const int a = lab.fabric->device_by_name(agg.device);
  const int t = lab.fabric->device_by_name(tor.device);
  const CableEnd e = lab.fabric->cable_at({t, lab.fabric->port_by_name(t, tor.port)});
  REQUIRE(e.cable >= 0);
  // No OPEN yet, so no router ID or host name: the address is all there
  // is, and it once decoded to agg-p0-1-01:etp1.
  json s = heard(lab, agg);
  s["bgpNeighborAddr"] = port_link_local(lab.plan.blueprint.devices[a].node_id,
                                         lab.fabric->port({a, lab.fabric->port_by_name(a, agg.port)}).port_id);
  {
    auto w = validator::collect_witnesses(*lab.fabric, {});
    REQUIRE(validator::add_bgp_witnesses(*lab.fabric, {dump(tor.device, {{tor.port, s}})}, w));
    CHECK(w.unreadable_hops == 1);
    CHECK(w.cables[e.cable].dir[1 - e.end].received == 0);
  }
  // The same address, held by the aggregation switch's session on another
  // port of the same device, names the device; the plan, the port.
  json other = established(lab, {agg.device, "etp2"}, {"tor-p0-s00-r2a", "etp6"});
  other["hostLocal"] = s["bgpNeighborAddr"];
  auto w = validator::collect_witnesses(*lab.fabric, {});
  REQUIRE(validator::add_bgp_witnesses(
      *lab.fabric, {dump(tor.device, {{tor.port, s}}), dump(agg.device, {{"etp2", other}})}, w));
  CHECK(w.cables[e.cable].dir[1 - e.end].received == 1);  // agg -> tor, heard at the ToR
  CHECK(w.cables[e.cable].dir[e.end].received == 0);
}
