// --paths: the verify step's disjoint source ports, read and checked.
#include "hostconfig/profile_paths.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::test;

std::string paths_doc(const std::string& hosts) {
  return R"({"format": "hpnctl-paths", "version": 1, "hosts": )" + hosts + "}";
}

TEST_CASE("profile/paths: a paths file is read, sorted and copied into its host's profile") {
  auto paths = parse_paths(paths_doc(R"({"host-p0-s00-h000": [
      {"bond": "bond2", "destination": "host-p0-s01-h000", "udp_source_ports": [49160, 49152]},
      {"bond": "bond1", "destination": "host-p0-s01-h000", "udp_source_ports": [49153], "evidence": "x"}]})"),
                           "paths.json");
  REQUIRE(paths.ok());
  const Blueprint& bp = halls_fabric().blueprint;
  ProfileBuilder b = builder_for(bp, {std::nullopt, std::nullopt, &paths.value()});
  HostProfile p = b.build(device_index(bp, "host-p0-s00-h000"));
  CHECK(p.paths_source == "paths.json");
  REQUIRE(p.source_ports.size() == 2);
  CHECK(p.source_ports[0].bond == "bond1");
  CHECK(p.source_ports[1].udp_source_ports == std::vector<int>{49152, 49160});
  // Another host of the same run: the file, but nothing measured for it.
  HostProfile other = b.build(device_index(bp, "host-p0-s00-h001"));
  CHECK(other.paths_source == "paths.json");
  CHECK(other.source_ports.empty());
  // Without a file there is no source at all.
  CHECK_FALSE(builder_for(bp).build(device_index(bp, "host-p0-s00-h000")).paths_source);
}

TEST_CASE("profile/paths: errors name the file and the entry") {
  auto error = [](const std::string& hosts) {
    auto r = parse_paths(paths_doc(hosts), "p.json");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(error(R"({"h": [{"bond": "bond1", "destination": "d", "udp_source_ports": [1, 70000]}]})") ==
        "p.json: hosts.h[0].udp_source_ports[1]: 70000 is not a UDP port (1 to 65535)");
  CHECK(error(R"({"h": [{"bond": "bond1", "destination": "d", "udp_source_ports": [5, 5]}]})") ==
        "p.json: hosts.h[0].udp_source_ports[1]: port 5 listed twice");
  CHECK(error(R"({"h": [{"bond": "bond1", "udp_source_ports": [5]}]})") ==
        "p.json: hosts.h[0]: missing key 'destination'");
  CHECK(error(R"({"h": [{"bond": "bond1", "destination": "d", "udp_source_ports": ["5"]}]})") ==
        "p.json: hosts.h[0].udp_source_ports[0]: expected an integer");
  CHECK(error(R"({"h": [{"bond": "b", "destination": "d", "udp_source_ports": [1]},
                        {"bond": "b", "destination": "d", "udp_source_ports": [2]}]})") ==
        "p.json: hosts.h[1]: b to d listed twice");
  CHECK(parse_paths(R"({"format": "hpnctl-paths", "version": 2, "hosts": {}})", "p.json").error().message ==
        "p.json: this hpnctl reads version 1 of hpnctl-paths");
  CHECK(parse_paths("{", "p.json").error().message.rfind("p.json: not JSON: ", 0) == 0);
  // Found by fuzz_paths (tests/fuzz/regressions/fuzz_paths): a format that is
  // not a string threw out of the reader.
  auto odd = parse_paths(R"({"format": {}})", "p.json");
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().message == "p.json: format is not 'hpnctl-paths'");
  // Found by fuzz_paths: a number past a double's range is nlohmann's
  // out_of_range, not a parse_error, and escaped the reader.
  auto huge = parse_paths(R"({"format": "hpnctl-paths", "version": 1, "hosts": {}, "x": 111.11e1111})", "p.json");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.rfind("p.json: not JSON: ", 0) == 0);
  CHECK_THAT(huge.error().message, Catch::Contains("number overflow"));
}

TEST_CASE("profile/paths: hosts, destinations and bonds must be the blueprint's") {
  const Blueprint& bp = halls_fabric().blueprint;
  auto check = [&](const std::string& hosts, const std::string& message) {
    auto paths = parse_paths(paths_doc(hosts), "p.json");
    REQUIRE(paths.ok());
    auto b = ProfileBuilder::create(bp, {std::nullopt, std::nullopt, &paths.value()});
    REQUIRE_FALSE(b.ok());
    CHECK(b.error().message == message);
  };
  check(R"({"host-p9": []})", "p.json: hosts.host-p9: no such host in the blueprint");
  check(R"({"host-p0-s00-h000": [{"bond": "bond1", "destination": "tor-p0-s00-r1a", "udp_source_ports": [1]}]})",
        "p.json: hosts.host-p0-s00-h000: destination tor-p0-s00-r1a is not a host of the blueprint");
  check(R"({"host-p0-s00-h000": [{"bond": "bond7", "destination": "host-p0-s00-h001", "udp_source_ports": [1]}]})",
        "p.json: hosts.host-p0-s00-h000: bond7 is not a back-end bond of that host");
}

}  // namespace
