// Reading pod specs: located errors, asserted whole, and defaults underneath.
#include <catch2/catch.hpp>

#include "planner/spec_loader.h"
#include "test_util.h"

namespace {

std::string error_of(const std::string& yaml) {
  auto spec = hpn::load_spec(yaml, "pod.yaml");
  REQUIRE_FALSE(spec.ok());
  return spec.error().message;
}

}  // namespace

TEST_CASE("planner/spec: the built-in default is examples/hpn-pod.yaml byte for byte") {
  CHECK(std::string(hpn::default_spec_text()) == hpn::test::read_file(hpn::test::source_path("examples/hpn-pod.yaml")));
  auto spec = hpn::default_spec();
  REQUIRE(spec.ok());
  CHECK(spec->host.gpus == 8);
  CHECK(spec->segment.active_hosts == 128);
  CHECK(spec->segment.backup_hosts == 8);
  CHECK(spec->tor.uplinks == 60);
  CHECK(spec->pod.segments == 15);
  CHECK(spec->aggregation.switches_per_plane == 60);
  CHECK(spec->core.pods_planned == 8);
  CHECK(spec->node_ids.host.first == 0x100000);  // hex literals are integers
  CHECK(spec->media.rules.size() == 3);
  CHECK_FALSE(spec->media.rules[2].max_length_m.has_value());
}

TEST_CASE("planner/spec: keys left out keep their defaults and lists are replaced whole") {
  auto spec = hpn::load_spec("version: 1\nfabric:\n  pods: 2\nmedia:\n  rules:\n    - {media: smf}\n", "pod.yaml");
  REQUIRE(spec.ok());
  CHECK(spec->pods == 2);
  CHECK(spec->tor.uplinks == 60);
  REQUIRE(spec->media.rules.size() == 1);
  CHECK(spec->media.rules[0].media == "smf");
  CHECK(spec->media.length_bins_m.size() == 22);
  CHECK(spec->locations.at("fabric.pods").line == 3);
  CHECK(spec->locations.count("tor.uplinks") == 0);
}

TEST_CASE("planner/spec: an unknown key points at itself and suggests the near one") {
  CHECK(error_of("version: 1\ntor:\n  uplink: 60\n") ==
        "pod.yaml:3:3: unknown key 'uplink'; did you mean 'uplinks'?\n"
        "  uplink: 60\n"
        "  ^\n");
  CHECK(error_of("version: 1\nsegmnet: {tors: 16}\n") ==
        "pod.yaml:2:1: unknown key 'segmnet'; did you mean 'segment'?\n"
        "segmnet: {tors: 16}\n"
        "^\n");
  CHECK(error_of("version: 1\nhost:\n  colour: blue\n") ==
        "pod.yaml:3:3: unknown key 'colour'\n"
        "  colour: blue\n"
        "  ^\n");
}

TEST_CASE("planner/spec: type and range errors point at the value") {
  CHECK(error_of("version: 1\ntor:\n  uplinks: sixty\n") ==
        "pod.yaml:3:12: tor.uplinks: expected an integer, got 'sixty'\n"
        "  uplinks: sixty\n"
        "           ^\n");
  CHECK(error_of("version: 1\ntor:\n  uplinks: \"60\"\n") ==
        "pod.yaml:3:12: tor.uplinks: expected an integer, got '60'\n"
        "  uplinks: \"60\"\n"
        "           ^\n");
  CHECK(error_of("version: 1\ntor:\n  uplinks: 0\n") ==
        "pod.yaml:3:12: tor.uplinks: 0 is out of range; must be between 1 and 4095\n"
        "  uplinks: 0\n"
        "           ^\n");
  CHECK(error_of("version: 1\npod: {planes: 3}\n") ==
        "pod.yaml:2:15: pod.planes: 3 is out of range; must be between 1 and 2\n"
        "pod: {planes: 3}\n"
        "              ^\n");
  CHECK(error_of("version: 1\nsegment: {dual_tor: yes}\n") ==
        "pod.yaml:2:21: segment.dual_tor: expected true or false, got 'yes'\n"
        "segment: {dual_tor: yes}\n"
        "                    ^\n");
  CHECK(error_of("version: 1\nhost: 3\n") ==
        "pod.yaml:2:7: host: expected a mapping, got a scalar\n"
        "host: 3\n"
        "      ^\n");
  CHECK(error_of("version: 1\ntor: {port_speed_gbps: 300}\n") ==
        "pod.yaml:2:24: tor.port_speed_gbps: 300 Gb/s is not an Ethernet port speed\n"
        "tor: {port_speed_gbps: 300}\n"
        "                       ^\n");
  CHECK(error_of("version: 1\nmedia:\n  rules:\n    - {media: copper}\n") ==
        "pod.yaml:4:15: media.rules[0].media: unknown media 'copper'; one of dac, aoc, mmf, smf\n"
        "    - {media: copper}\n"
        "              ^\n");
  CHECK(error_of("version: 1\nmedia: {length_bins_m: [1, 3, 2]}\n") ==
        "pod.yaml:2:31: media.length_bins_m[2]: length bins must increase\n"
        "media: {length_bins_m: [1, 3, 2]}\n"
        "                              ^\n");
}

TEST_CASE("planner/spec: the version is required and must be 1") {
  CHECK(error_of("name: x\n") ==
        "pod.yaml:1:1: missing key 'version' (this hpnctl reads pod specs of version 1)\n"
        "name: x\n"
        "^\n");
  CHECK(error_of("version: 2\n") ==
        "pod.yaml:1:10: version: 2 is out of range; must be between 1 and 1\n"
        "version: 2\n"
        "         ^\n");
}

TEST_CASE("planner/spec: duplicate keys are refused, naming the first") {
  CHECK(error_of("version: 1\ntor:\n  uplinks: 60\n  uplinks: 61\n") ==
        "pod.yaml:4:3: duplicate key 'uplinks' (first at line 3)\n"
        "  uplinks: 61\n"
        "  ^\n");
}

TEST_CASE("planner/spec: YAML syntax errors, bad bytes and huge files are located errors") {
  CHECK(error_of("version: 1\ntor: {uplinks: 60\n").rfind("pod.yaml:3:1: YAML syntax error: ", 0) == 0);
  CHECK(error_of("version: 1\nname: \"\xff\"\n") ==
        "pod.yaml:2:8: invalid UTF-8 byte 0xff\n"
        "name: \"\xff\"\n"
        "       ^\n");
  const char with_nul[] = "version: 1\nname: a\0b\n";
  const char expected[] = "pod.yaml:2:8: NUL byte in spec\nname: a\0b\n       ^\n";
  CHECK(error_of(std::string(with_nul, sizeof with_nul - 1)) == std::string(expected, sizeof expected - 1));
  CHECK(error_of(std::string(hpn::kMaxSpecBytes + 1, '#')) ==
        "pod.yaml: spec is 1048577 bytes; a pod spec is at most 1048576 bytes\n");
  CHECK(error_of("- 1\n- 2\n") ==
        "pod.yaml:1:1: a pod spec is a mapping of sections, got a list\n"
        "- 1\n"
        "^\n");
}

TEST_CASE("planner/spec: deep nesting and alias bombs end in an error, not a crash or a hang") {
  std::string deep = "version: 1\nname: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  CHECK_FALSE(hpn::load_spec(deep, "pod.yaml").ok());
  // Aliases are shared nodes in yaml-cpp, so the bomb is small in memory;
  // walking it would visit 9^10 values, and the value budget stops it first
  // (more in spec_limits_test.cpp).
  std::string bomb = "version: 1\na: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) bomb += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  CHECK(error_of(bomb).find("more than 100000 YAML values") != std::string::npos);
}

TEST_CASE("planner/spec: a missing file is an error naming it") {
  auto spec = hpn::load_spec_file("/nonexistent/pod.yaml");
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.error().message == "/nonexistent/pod.yaml: no such file");
}

TEST_CASE("planner/spec: a quote left open does not swallow the lines after it", "[planner][robust]") {
  // yaml-cpp reads an unclosed quote to the end of the file: the sections
  // after it became part of the name, and the pod planned was the default.
  CHECK(error_of("version: 1\nname: \"lab\nhost:\n  gpus: 2\n") ==
        "pod.yaml:2:7: a quoted value that does not end on its line: the lines after it were read into it (a "
        "closing quote missing?)\n"
        "name: \"lab\n"
        "      ^\n");
  CHECK(error_of("version: 1\nname: 'lab\nhost:\n  gpus: 2\n") ==
        "pod.yaml:2:7: a quoted value that does not end on its line: the lines after it were read into it (a "
        "closing quote missing?)\n"
        "name: 'lab\n"
        "      ^\n");
  // A plain value continued on a line indented under it.
  CHECK(error_of("version: 1\nname: lab\n  two\n") ==
        "pod.yaml:2:7: a value that goes on over the next line: that line was read into it (a line indented too "
        "far, or a ':' missing?)\n"
        "name: lab\n"
        "      ^\n");
  // Quotes closed on their line, escaped quotes, comments and flow lists are
  // no spill; a value on the line after its key is its own line.
  CHECK(hpn::load_spec("version: 1\nname: \"l\\\"a'b\" # c\nlayout:\n  racks_per_row: 6\n", "pod.yaml").ok());
  CHECK(hpn::load_spec("version: 1\nname: 'it''s'\n", "pod.yaml").ok());
  CHECK(hpn::load_spec("version: 1\nname:\n  lab\n", "pod.yaml").ok());
}
