// The host profile reader: a real profile from `hpnctl plan` + `hpnctl
// profile` is read whole; bad input gets a located message, compared whole.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "blueprint/host_profile_format.h"
#include "host/host_profile.h"
#include "host/host_state.h"
#include "host_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::host;
using hpn::test::TempDir;

using hpn::test::lab_profile_text;
std::string edited(const std::function<void(nlohmann::json&)>& edit) { return hpn::test::edited_profile(edit); }

std::string error_of(const std::string& text) {
  auto r = parse_apply_profile(text, "h0.json");
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("host profile: the lab pod's profile is read with every bond, member, route and rule", "[host]") {
  auto r = parse_apply_profile(lab_profile_text(), "h0.json");
  REQUIRE(r.ok());
  const auto& p = r.value();
  CHECK(p.host == "host-p0-s00-h000");
  CHECK(p.node_id == 1048576);
  REQUIRE(p.bonds.size() == 2);
  const auto& b = p.bonds[0];
  CHECK(b.name == "bond1");
  REQUIRE(b.members.size() == 2);
  CHECK(b.members[0].port == "nic1p1");
  CHECK(b.members[1].gateway_ipv4 == "10.0.0.2");
  CHECK(b.members[1].gateway_ipv6 == "fd48:504e::2");
  CHECK(hpn::to_string(b.mac) == "02:4e:10:00:00:01");
  CHECK(b.mtu == 4200);
  REQUIRE(b.ipv4);
  CHECK(b.ipv4->text() == "10.0.0.16/27");
  CHECK(b.ipv6->text() == "fd48:504e::10/64");
  CHECK(b.mode == BondMode::balance_xor);
  CHECK(b.layer34);
  CHECK(b.arp_monitor);
  CHECK(b.arp_targets == std::vector<std::string>{"10.0.0.1", "10.0.0.2"});
  REQUIRE(b.routes.size() == 4);
  CHECK(b.routes[2].to.text() == "fd48:504e::/40");
  CHECK(b.routes[2].via == std::vector<std::string>{"fd48:504e::1", "fd48:504e::2"});
  CHECK(b.routes[2].table == 1001);
  CHECK(b.routes[3].to.text() == "fd48:5050::/64");  // the switches' loopbacks
  REQUIRE(b.rules.size() == 2);
  CHECK(b.rules[0].from.text() == "10.0.0.16/32");
  CHECK(b.rules[0].priority == 1001);
  CHECK(p.sysctls.front().key == "net.ipv4.fib_multipath_hash_policy");
}

TEST_CASE("host profile: a syntax error names file, line and column with the line and a caret", "[host]") {
  CHECK(error_of("{\n  \"format\": \"hpnctl-host-profile\",\n  \"version\": 1,,\n}\n") ==
        "h0.json:3:16: syntax error while parsing object key - unexpected ','; expected string literal\n"
        "    \"version\": 1,,\n"
        "                 ^");
}

TEST_CASE("host profile: bytes that are not UTF-8 are refused at their place", "[host]") {
  const std::string message = error_of("{\"host\": \"h\xff\xfe\"}");
  CHECK(message.rfind("h0.json:1:12: syntax error while parsing value - invalid string: ill-formed UTF-8 byte", 0) == 0);
}

// Found by hand: nlohmann reports a number past double as out_of_range, not
// as a parse error, and the reader once let it escape and abort.
TEST_CASE("host profile: a number too large for a double is an error, not an abort", "[host]") {
  CHECK(error_of("{\"format\": \"hpnctl-host-profile\", \"version\": 1e400}") ==
        "h0.json: number overflow parsing '1e400'");
}

TEST_CASE("host profile: nesting deeper than 32 levels is refused before parsing", "[host]") {
  CHECK(error_of(std::string(100000, '[')).rfind("h0.json:1:33: nested deeper than 32 levels", 0) == 0);
}

TEST_CASE("host profile: wrong values are named by their JSON pointer", "[host]") {
  CHECK(error_of("[]") == "h0.json: /: expected an object, found an array");
  CHECK(error_of(edited([](auto& j) { j["format"] = "hpnctl-plan"; })) ==
        "h0.json: /format: not an hpnctl host profile (expected \"hpnctl-host-profile\"; see hpnctl-profile(1))");
  CHECK(error_of(edited([](auto& j) { j["bonds"][1]["mtu"] = 100000; })) == "h0.json: /bonds/1/mtu: 100000 is outside 1280..9216");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["mac"] = "03:00:00:00:00:01"; })) ==
        "h0.json: /bonds/0/mac: '03:00:00:00:00:01' is not a unicast MAC address");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["members"][1]["port"] = "../etc"; })) ==
        "h0.json: /bonds/0/members/1/port: '../etc' is not an interface name (1 to 15 characters, no '/', ':' or space)");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["routes"][0]["via"][0] = "fd48::1"; })) ==
        "h0.json: /bonds/0/routes/0/via/0: expected an IPv4 address");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["routes"][0]["table"] = 255; })) ==
        "h0.json: /bonds/0/routes/0/table: table 255 is the kernel's local table");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["mtuu"] = 9000; })) ==
        "h0.json: /bonds/0/mtuu: unknown key 'mtuu'; did you mean 'mtu'?");
  CHECK(error_of(edited([](auto& j) { j["bonds"][1]["members"][0]["port"] = "nic1p1"; })) ==
        "h0.json: /bonds/1/members/0/port: port nic1p1 is in two places");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0].erase("monitor"); })) == "h0.json: /bonds/0: missing key 'monitor'");
  CHECK(error_of(edited([](auto& j) { j["node_id"] = -1; })) == "h0.json: /node_id: -1 is outside 0..16777214");
  CHECK(error_of(edited([](auto& j) { j["node_id"] = 1.5; })) == "h0.json: /node_id: expected an integer, found a number");
}

// Read back as written, so that the value equals the planner's
// (tests/hostconfig/profile_round_trip_test.cpp); host apply acts on none of it.
TEST_CASE("host profile: what the plan says of a bond and its ports is read back, and range-checked", "[host]") {
  auto r = parse_apply_profile(lab_profile_text(), "h0.json");
  REQUIRE(r.ok());
  const Bond& b = r.value().bonds[0];
  CHECK(b.backend);
  CHECK(b.speed_gbps == 400);
  CHECK(b.table == 1001);
  CHECK(b.rdma_device == "bond1");
  const BondMember& m = b.members[0];
  CHECK(m.speed_gbps == 200);
  CHECK(m.cable == "C0H00001");
  CHECK(m.peer == "tor-p0-s00-r1a");
  CHECK(m.peer_port == "etp1a");
  CHECK(m.plane == 1);
  CHECK(m.gateway_mac == Mac{0x02, 0x48, 0x50, 0x4e, 0x00, 0x01});
  CHECK_FALSE(m.match);

  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["network"] = "storage"; })) ==
        "h0.json: /bonds/0/network: only \"backend\" or \"frontend\"");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["members"][1]["plane"] = 256; })) ==
        "h0.json: /bonds/0/members/1/plane: 256 is outside 0..255");
  CHECK(error_of(edited([](auto& j) { j["bonds"][0]["speed_gbps"] = -1; })) ==
        "h0.json: /bonds/0/speed_gbps: -1 is outside 0..1000000");
  CHECK(error_of(edited([](auto& j) { j["bonds"][1]["table"] = 255; })) ==
        "h0.json: /bonds/1/table: table 255 is the kernel's local table");
  auto unplanned = parse_apply_profile(edited([](auto& j) { j["bonds"][0]["members"][1]["plane"] = nullptr; }), "h0.json");
  REQUIRE(unplanned.ok());
  CHECK(unplanned.value().bonds[0].members[1].plane == hpn::kNone);
}

TEST_CASE("host profile: a sysctl key cannot reach outside /proc/sys/net", "[host]") {
  for (const char* key : {"kernel.core_pattern", "net.ipv4.conf/../../../../etc/passwd", "net.ipv4..conf", "net.ipv4.conf.*.x"}) {
    INFO(key);
    const std::string message = error_of(edited([&](auto& j) { j["sysctls"][0]["key"] = key; }));
    CHECK(message == fmt::format("h0.json: /sysctls/0/key: '{}' is not a net.ipv4 or net.ipv6 sysctl", key));
  }
  CHECK(error_of(edited([](auto& j) { j["sysctls"][0]["value"] = "1; reboot"; })) ==
        "h0.json: /sysctls/0/value: '1; reboot' is not a decimal number");
  CHECK(hpn::sysctl_path("net.ipv4.conf.bond1.arp_announce") == "/proc/sys/net/ipv4/conf/bond1/arp_announce");
}

TEST_CASE("host profile: a missing file and a directory are errors, not crashes", "[host]") {
  TempDir dir;
  auto missing = read_apply_profile((dir / "none.json").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == (dir / "none.json").string() + ": no such file");
  auto directory = read_apply_profile(dir.path().string());
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().message == dir.path().string() + ": is a directory, not a host profile");
}

namespace {

const char* article(hpn::JsonType type) {
  switch (type) {
    case hpn::JsonType::string: return "a string";
    case hpn::JsonType::integer: return "an integer";
    case hpn::JsonType::boolean: return "a boolean";
    case hpn::JsonType::array: return "an array";
    case hpn::JsonType::object: return "an object";
  }
  return "?";
}

}  // namespace

// Driven by the one description (blueprint/host_profile_format.h): every key
// it names is type-checked and required as it says, so retyping a key there
// changes what the reader accepts.
TEST_CASE("host profile: every key of the description is required and typed as it says", "[host]") {
  const std::pair<const char*, const char*> objects[] = {
      {"profile", ""},
      {"location", "/location"},
      {"blueprint", "/blueprint"},
      {"bond", "/bonds/1"},
      {"member", "/bonds/1/members/0"},
      {"monitor_arp", "/bonds/1/monitor"},
      {"route", "/bonds/1/routes/0"},
      {"rule", "/bonds/1/rules/0"},
      {"sysctl", "/sysctls/0"},
      {"path_class", "/path_classes/0"},
      {"leg", "/path_classes/0/longest_path/0"},
      {"dqplb", "/path_classes/0/dqplb"},
      {"ncclx_topology", "/ncclx_topology"},
      {"disjoint_source_ports", "/disjoint_source_ports"},
  };
  const hpn::ProfileFormat& format = hpn::host_profile_format();
  int keys = 0;
  for (const auto& entry : objects) {
    // Not a structured binding: clang 14 (the sanitized build's) refuses
    // one captured by a lambda.
    const auto& object = entry.first;
    const auto& at = entry.second;
    const hpn::ProfileObject* o = format.find(object);
    REQUIRE(o != nullptr);
    for (const auto& key : o->keys) {
      const std::string here = std::string(at) + "/" + std::string(key.name);
      INFO(here);
      const bool is_string = key.type == hpn::JsonType::string;
      CHECK(error_of(edited([&](auto& j) { j[nlohmann::json::json_pointer(here)] = is_string ? nlohmann::json(5) : nlohmann::json("x"); })) ==
            fmt::format("h0.json: {}: expected {}, found {}", here, article(key.type), is_string ? "a number" : "a string"));
      if (key.required) {
        CHECK(error_of(edited([&](auto& j) { j[nlohmann::json::json_pointer(at)].erase(std::string(key.name)); })) ==
              fmt::format("h0.json: {}: missing key '{}'", *at ? at : "/", key.name));
      }
      ++keys;
    }
  }
  CHECK(keys > 80);
}
