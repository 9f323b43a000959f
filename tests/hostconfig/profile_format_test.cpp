// The one description of a host profile (blueprint/host_profile_format.h)
// against the writer (profile_json), the shape check the reader runs first,
// and schemas/host-profile.schema.json (check_profile_format.py, an
// independent walk of the schema). A key retyped, added or dropped in the
// description alone must be caught by all three.
#include <nlohmann/json.hpp>

#include "blueprint/host_profile_format.h"
#include "hostconfig/profile_json.h"
#include "profile_fixture.h"
#include "test_util.h"

namespace {

using namespace hpn;
using namespace hpn::test;

// The writer's output in each bond mode (802.3ad on the single-ToR pod: the
// only mode with lacp_rate, and MII monitoring).
std::vector<nlohmann::json> written_profiles() {
  std::vector<nlohmann::json> out;
  for (BondMode mode : {BondMode::balance_xor, BondMode::active_backup, BondMode::lacp}) {
    const Blueprint& bp = (mode == BondMode::lacp ? single_tor_pod() : default_pod()).blueprint;
    const char* host = mode == BondMode::lacp ? "host-p0-s09-h060" : "host-p0-s00-h000";
    auto profile = builder_for(bp, {mode, std::nullopt, nullptr}).build(device_index(bp, host));
    out.push_back(nlohmann::json::parse(profile_json(profile).dump()));
  }
  return out;
}

ProfileObject& object_of(ProfileFormat& format, std::string_view name) {
  for (auto& o : format.objects) {
    if (o.name == name) return o;
  }
  FAIL("no object " << name);
  throw;
}

ProfileKey& key_of(ProfileFormat& format, std::string_view object, std::string_view key) {
  for (auto& k : object_of(format, object).keys) {
    if (k.name == key) return k;
  }
  FAIL("no key " << key << " in " << object);
  throw;
}

// check_profile_format.py's verdict on `format`: its exit code, then its lines.
std::string schema_check(const ProfileFormat& format) {
  TempDir dir;
  write_file(dir / "format.json", format_json(format).dump(2));
  auto r = run_command(std::string(HPN_SCHEMA_PYTHON) + " " +
                       q(source_path("tests/hostconfig/check_profile_format.py")) + " " + q(dir / "format.json") +
                       " " + q(source_path("schemas/host-profile.schema.json")));
  return std::to_string(r.exit_code) + "\n" + r.out;
}

std::string shape_error(const nlohmann::json& doc, const ProfileFormat& format) {
  auto problem = check_profile_shape(doc, format);
  return problem ? problem->pointer + ": " + problem->message : "";
}

TEST_CASE("profile/format: the writer writes every key the description has, in its type, and no other") {
  for (const auto& doc : written_profiles()) CHECK(shape_error(doc, host_profile_format()).empty());
  // Each optional key is written by one of the modes: none is dead in the description.
  auto all = written_profiles();
  CHECK(all[2]["bonds"][1].contains("lacp_rate"));
  CHECK(all[2]["bonds"][1]["monitor"]["kind"] == "mii");
  CHECK(all[0]["bonds"][1]["monitor"]["kind"] == "arp");
}

TEST_CASE("profile/format: the writer's keys come in the description's order") {
  const ProfileFormat& format = host_profile_format();
  auto order = [](const nlohmann::ordered_json& j) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    return keys;
  };
  // The description's keys that `j` has (optional ones may be left out), in its order.
  auto described = [&](std::string_view object, const nlohmann::ordered_json& j) {
    std::vector<std::string> keys;
    for (const auto& k : format.find(object)->keys) {
      if (j.contains(std::string(k.name))) keys.emplace_back(k.name);
    }
    return keys;
  };
  const Blueprint& bp = default_pod().blueprint;
  auto j = profile_json(builder_for(bp).build(device_index(bp, "host-p0-s00-h000")));
  CHECK(order(j) == described("profile", j));
  CHECK(order(j["location"]) == described("location", j["location"]));
  CHECK(order(j["bonds"][1]) == described("bond", j["bonds"][1]));
  CHECK(order(j["bonds"][1]["members"][0]) == described("member", j["bonds"][1]["members"][0]));
  CHECK(order(j["bonds"][1]["monitor"]) == described("monitor_arp", j["bonds"][1]["monitor"]));
  CHECK(order(j["bonds"][1]["routes"][0]) == described("route", j["bonds"][1]["routes"][0]));
  CHECK(order(j["path_classes"][0]) == described("path_class", j["path_classes"][0]));
  CHECK(order(j["path_classes"][0]["dqplb"]) == described("dqplb", j["path_classes"][0]["dqplb"]));
  CHECK(order(j["disjoint_source_ports"]) == described("disjoint_source_ports", j["disjoint_source_ports"]));
}

TEST_CASE("profile/format: the schema has the description's keys, types and required keys") {
  CHECK(schema_check(host_profile_format()) == "0\n");
}

TEST_CASE("profile/format: a key retyped in the description alone is caught by writer, reader and schema checks") {
  ProfileFormat retyped = host_profile_format();
  key_of(retyped, "bond", "mtu").type = JsonType::string;
  nlohmann::json doc = written_profiles().front();
  // The writer's integer no longer fits.
  CHECK(shape_error(doc, retyped) == "/bonds/0/mtu: expected a string, found a number");
  // The reader's first check follows: a string MTU passes it, an integer does not.
  for (auto& bond : doc["bonds"]) bond["mtu"] = "9000";
  CHECK(shape_error(doc, retyped).empty());
  CHECK(shape_error(doc, host_profile_format()) == "/bonds/0/mtu: expected an integer, found a string");
  // The schema test names the key.
  CHECK(schema_check(retyped) == "1\nbond.mtu: ['string'] in the description, ['integer'] in the schema\n");

  ProfileFormat nullable = host_profile_format();
  key_of(nullable, "member", "cable").nullable = false;
  CHECK(schema_check(nullable) == "1\nmember.cable: ['string'] in the description, ['null', 'string'] in the schema\n");
}

TEST_CASE("profile/format: a key added to or dropped from the description alone fails") {
  ProfileFormat added = host_profile_format();
  added.objects[0].keys.push_back({"owner", JsonType::string});
  CHECK(schema_check(added) == "1\nprofile.owner: in the description, not in the schema\n");
  CHECK(shape_error(written_profiles().front(), added) == "/: missing key 'owner'");

  ProfileFormat dropped = host_profile_format();
  object_of(dropped, "rule").keys.pop_back();  // priority
  CHECK(schema_check(dropped) == "1\nrule.priority: in the schema, not in the description\n");
  CHECK(shape_error(written_profiles().front(), dropped) ==
        "/bonds/1/rules/0/priority: unknown key 'priority'");

  ProfileFormat optional = host_profile_format();
  key_of(optional, "location", "rack").required = false;
  CHECK(schema_check(optional) == "1\nlocation.rack: optional in the description, required in the schema\n");
}

TEST_CASE("profile/format: shape problems are located by JSON pointer, unknown keys with a guess") {
  nlohmann::json doc = written_profiles().front();
  const ProfileFormat& f = host_profile_format();
  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = doc;
    edit(j);
    return shape_error(j, f);
  };
  CHECK(edited([](auto& j) { j["bonds"][1]["members"][0]["gatway_ipv4"] = "10.0.0.1"; }) ==
        "/bonds/1/members/0/gatway_ipv4: unknown key 'gatway_ipv4'; did you mean 'gateway_ipv4'?");
  CHECK(edited([](auto& j) { j["bonds"][1]["monitor"]["kind"] = "lacp"; }) ==
        "/bonds/1/monitor/kind: 'lacp' is not arp or mii");
  CHECK(edited([](auto& j) { j["bonds"][1]["monitor"]["miimon_ms"] = 100; }) ==
        "/bonds/1/monitor/miimon_ms: unknown key 'miimon_ms'");
  CHECK(edited([](auto& j) { j["bonds"][1]["routes"][0]["via"][1] = 7; }) ==
        "/bonds/1/routes/0/via/1: expected a string, found a number");
  CHECK(edited([](auto& j) { j["env"]["NCCL_DEBUG"] = 1; }) == "/env/NCCL_DEBUG: expected a string, found a number");
  CHECK(edited([](auto& j) { j["env"]["NCCL_DEBUG"] = "INFO"; }).empty());  // the environment is open
  CHECK(edited([](auto& j) { j["bonds"][1]["members"][0]["cable"] = nullptr; }).empty());
  CHECK(edited([](auto& j) { j["bonds"][1]["mac"] = nullptr; }) == "/bonds/1/mac: expected a string, found null");
}

}  // namespace
