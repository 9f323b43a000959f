// Every design rule, through the real command: its exact message, exit code 2,
// and nothing written.
#include <catch2/catch.hpp>

#include "test_util.h"

namespace {

using hpn::test::TempDir;

struct Refused {
  int exit_code;
  std::string err;
  bool wrote_anything;
};

Refused plan(const std::string& yaml) {
  TempDir dir;
  hpn::test::write_file(dir / "pod.yaml", yaml);
  auto r = hpn::test::run_hpnctl("plan pod.yaml -o out", dir.path());
  bool wrote = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    wrote = wrote || entry.path().filename() != "pod.yaml";
  }
  return {r.exit_code, r.err, wrote};
}

void check_refused(const std::string& yaml, const std::string& message) {
  Refused r = plan(yaml);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: " + message);  // located, and prefixed as every error is
  CHECK_FALSE(r.wrote_anything);
}

}  // namespace

TEST_CASE("planner/design: ToR port budget") {
  check_refused("version: 1\nsegment:\n  active_hosts: 130\n",
                "pod.yaml:3:3: ToR port budget exceeded: 138 host-facing ports take 69 cages after 2x "
                "breakout, plus 60 uplinks = 129 cages; tor.radix is 128\n"
                "  active_hosts: 130\n"
                "  ^\n");
}

TEST_CASE("planner/design: rails must equal ToR pairs") {
  check_refused("version: 1\nhost:\n  backend_nics: 7\n",
                "pod.yaml:3:3: rails (host.backend_nics 7) must equal ToR pairs per segment "
                "(segment.tors 16 / 2 = 8)\n"
                "  backend_nics: 7\n"
                "  ^\n");
  check_refused("version: 1\nsegment: {tors: 15}\naggregation: {downlinks: 105}\n",
                "pod.yaml:2:11: segment.tors 15 is odd; dual-ToR needs ToR pairs\n"
                "segment: {tors: 15}\n"
                "          ^\n");
}

TEST_CASE("planner/design: ToR uplinks must equal aggregation switches per plane") {
  check_refused("version: 1\ntor:\n  uplinks: 59\n",
                "pod.yaml:3:3: tor.uplinks (59) must equal aggregation.switches_per_plane (60): "
                "each ToR has one uplink to every aggregation switch of its plane\n"
                "  uplinks: 59\n"
                "  ^\n");
}

TEST_CASE("planner/design: aggregation downlinks must equal segments x ToRs per plane") {
  check_refused("version: 1\npod:\n  segments: 14\n",
                "pod.yaml:3:3: aggregation.downlinks (120) must equal pod.segments x ToRs per plane "
                "(14 x 8 = 112)\n"
                "  segments: 14\n"
                "  ^\n");
}

TEST_CASE("planner/design: aggregation port budget") {
  check_refused("version: 1\naggregation:\n  uplinks: 9\n",
                "pod.yaml:3:3: aggregation port budget exceeded: 120 downlinks + 9 uplinks = 129 "
                "ports; aggregation.radix is 128\n"
                "  uplinks: 9\n"
                "  ^\n"
                "pod.yaml:3:3: a plane's 60 x 9 = 540 aggregation uplinks per pod do not divide into "
                "core port groups of 16 (core.radix 128 / core.pods_planned 8)\n"
                "  uplinks: 9\n"
                "  ^\n");
}

TEST_CASE("planner/design: core ports must divide among the pods") {
  check_refused("version: 1\ncore:\n  pods_planned: 6\n",
                "pod.yaml:3:3: core.radix (128) is not divisible among core.pods_planned (6) pods "
                "(128 / 6 leaves 2 ports over)\n"
                "  pods_planned: 6\n"
                "  ^\n");
  check_refused("version: 1\naggregation:\n  uplinks: 7\n",
                "pod.yaml:3:3: a plane's 60 x 7 = 420 aggregation uplinks per pod do not divide into "
                "core port groups of 16 (core.radix 128 / core.pods_planned 8)\n"
                "  uplinks: 7\n"
                "  ^\n");
  check_refused("version: 1\nfabric:\n  pods: 9\n",
                "pod.yaml:3:3: fabric.pods (9) exceeds core.pods_planned (8): the core has port groups "
                "for 8 pods\n"
                "  pods: 9\n"
                "  ^\n");
}

TEST_CASE("planner/design: dual-plane needs dual-ToR, dual-ToR needs two ports per NIC") {
  check_refused("version: 1\nsegment:\n  dual_tor: false\n  tors: 8\n  active_hosts: 64\n  backup_hosts: 4\n"
                "aggregation: {downlinks: 60}\n",
                "pod.yaml:3:3: pod.planes 2 needs segment.dual_tor: the two planes are the two ToRs "
                "of each pair\n"
                "  dual_tor: false\n"
                "  ^\n");
  check_refused("version: 1\nhost:\n  ports_per_nic: 1\n",
                "pod.yaml:3:3: segment.dual_tor puts the two ports of each NIC on two ToRs, so "
                "host.ports_per_nic must be 2, got 1\n"
                "  ports_per_nic: 1\n"
                "  ^\n");
}

TEST_CASE("planner/design: breakout speeds must add up") {
  check_refused("version: 1\nhost:\n  port_speed_gbps: 100\n",
                "pod.yaml:3:3: a ToR cage broken out into tor.breakout 2 host ports of 100G carries "
                "200G, but tor.port_speed_gbps is 400\n"
                "  port_speed_gbps: 100\n"
                "  ^\n"
                "pod.yaml:3:3: a front-end leaf cage broken out into frontend.breakout 2 host ports of "
                "100G carries 200G, but frontend.port_speed_gbps is 400\n"
                "  port_speed_gbps: 100\n"
                "  ^\n");
}

TEST_CASE("planner/design: node IDs exhausted or overlapping") {
  check_refused("version: 1\nnode_ids:\n  tor: {first: 0x010000, last: 0x0100ee}\n",
                "pod.yaml:3:26: node IDs exhausted: 240 ToRs need 240 IDs, node_ids.tor holds 239 "
                "(0x010000-0x0100ee)\n"
                "  tor: {first: 0x010000, last: 0x0100ee}\n"
                "                         ^\n");
  check_refused("version: 1\nnode_ids:\n  agg: {first: 0x000800, last: 0x00ffff}\n",
                "pod.yaml:3:9: node_ids.agg (0x000800-0x00ffff) overlaps node_ids.core "
                "(0x000001-0x000fff)\n"
                "  agg: {first: 0x000800, last: 0x00ffff}\n"
                "        ^\n");
}

TEST_CASE("planner/design: address pools exhausted or overlapping") {
  check_refused("version: 1\naddressing:\n  backend_ipv4: 10.0.0.0/20\n",
                "pod.yaml:3:3: address pool exhausted: addressing.backend_ipv4 10.0.0.0/20 holds 16 "
                "/24s, the plan needs 120 ToR-pair subnets\n"
                "  backend_ipv4: 10.0.0.0/20\n"
                "  ^\n");
  check_refused("version: 1\naddressing:\n  frontend_ipv4: 10.8.0.0/14\n",
                "pod.yaml:3:3: addressing.frontend_ipv4 10.8.0.0/14 overlaps addressing.backend_ipv4 "
                "10.0.0.0/12\n"
                "  frontend_ipv4: 10.8.0.0/14\n"
                "  ^\n");
  check_refused("version: 1\naddressing:\n  link_ipv4: 172.16.0.1/12\n",
                "pod.yaml:3:3: addressing.link_ipv4: '172.16.0.1/12' has host bits set; did you mean "
                "172.16.0.0/12?\n"
                "  link_ipv4: 172.16.0.1/12\n"
                "  ^\n");
}

TEST_CASE("planner/design: ASN range exhausted") {
  check_refused("version: 1\nfrontend: {enabled: false}\nasn:\n  last: 4200010100\n",
                "pod.yaml:4:3: ASN range exhausted: 240 ToRs numbered from asn.tor_first 4200010000 "
                "end at 4200010239, past asn.last 4200010100\n"
                "  last: 4200010100\n"
                "  ^\n");
}

TEST_CASE("planner/design: naming patterns with unknown fields or duplicate names") {
  check_refused("version: 1\nnaming:\n  tor: \"tor-{rack}\"\n",
                "pod.yaml:3:3: naming.tor: unknown field 'rack' in pattern 'tor-{rack}'; fields are "
                "pod, segment, rail, side, plane\n"
                "  tor: \"tor-{rack}\"\n"
                "  ^\n");
  check_refused("version: 1\nnaming:\n  host: \"host-p{pod}-s{segment:02}\"\n",
                "pod.yaml:3:3: naming.host: two devices are both named 'host-p0-s00' (host 0 of pod 0 "
                "segment 0 and host 1 of pod 0 segment 0); include every field that tells them apart\n"
                "  host: \"host-p{pod}-s{segment:02}\"\n"
                "  ^\n");
  check_refused("version: 1\nnaming:\n  agg: \"agg {index}\"\n",
                "pod.yaml:3:3: naming.agg: pattern 'agg {index}' gives 'agg 0': names may hold "
                "letters, digits, '-', '_' and '.' only\n"
                "  agg: \"agg {index}\"\n"
                "  ^\n");
}

// A pattern is refused for any name it can give that is not one safe name
// (blueprint/names.h), not only for the one sample it was once tried on: a
// single-ToR fabric gives {side} empty, so "{side:.>2}" named every ToR
// "..", and `config --all` then wrote their files beside its output
// directory instead of into it.
TEST_CASE("planner/design: a naming pattern that can give '.', '..' or a hidden name is refused") {
  check_refused("version: 1\nsegment: {dual_tor: false, tors: 8, active_hosts: 64, backup_hosts: 4}\n"
                "pod: {planes: 1}\naggregation: {downlinks: 120}\nnaming:\n  tor: \"{side:.>2}\"\n",
                "pod.yaml:6:3: naming.tor: pattern '{side:.>2}' gives '..': names start with a letter or a digit\n"
                "  tor: \"{side:.>2}\"\n"
                "  ^\n");
  // The same pattern in a dual-ToR fabric names no ToR '..', but '.a':
  // hidden, as hpnctl's own staging directories are.
  check_refused("version: 1\nnaming:\n  tor: \"{side:.>2}{rail}\"\n",
                "pod.yaml:3:3: naming.tor: pattern '{side:.>2}{rail}' gives '..0': names start with a letter or a "
                "digit\n"
                "  tor: \"{side:.>2}{rail}\"\n"
                "  ^\n");
  // An integer as a character: host 47 would be '/'.
  check_refused("version: 1\nnaming:\n  host: \"h{pod}-{segment}-{host:c}\"\n",
                "pod.yaml:3:3: naming.host: pattern 'h{pod}-{segment}-{host:c}': field 'host': 'c' is not a type a "
                "name can use (d, x, X, o, b, B, s)\n"
                "  host: \"h{pod}-{segment}-{host:c}\"\n"
                "  ^\n");
  // A width taken from another field, and a precision that cuts to nothing.
  check_refused("version: 1\nnaming:\n  agg: \"agg-{plane}-{index:{pod}}\"\n",
                "pod.yaml:3:3: naming.agg: pattern 'agg-{plane}-{index:{pod}}': field 'index': a format spec cannot "
                "hold another field\n"
                "  agg: \"agg-{plane}-{index:{pod}}\"\n"
                "  ^\n");
  check_refused("version: 1\nnaming:\n  switch_port: \"etp{cage}{sub:.0}\"\n",
                "pod.yaml:3:3: naming.switch_port: pattern 'etp{cage}{sub:.0}': field 'sub': no precision: it can "
                "cut a name down to nothing\n"
                "  switch_port: \"etp{cage}{sub:.0}\"\n"
                "  ^\n");
  // A host port is a Linux interface: at most 15 bytes.
  check_refused("version: 1\nnaming:\n  host_port: \"backend-nic{nic}-port{port}\"\n",
                "pod.yaml:3:3: naming.host_port: pattern 'backend-nic{nic}-port{port}' gives 'backend-nic0-port0': an "
                "interface name is at most 15 bytes long (IFNAMSIZ)\n"
                "  host_port: \"backend-nic{nic}-port{port}\"\n"
                "  ^\n");
}

TEST_CASE("planner/design: racks must hold what is put in them") {
  check_refused("version: 1\nlayout:\n  hosts_per_rack: 7\n",
                "pod.yaml:3:3: a host rack holds layout.hosts_per_rack 7 hosts of 8 RU = 56 RU; "
                "layout.rack_units is 48\n"
                "  hosts_per_rack: 7\n"
                "  ^\n");
}

TEST_CASE("planner/design: a fabric far past any building is refused up front") {
  Refused r = plan("version: 1\nfabric: {pods: 8}\npod: {segments: 250}\naggregation: {downlinks: 2000}\n");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("the fabric has 272000 hosts (fabric.pods 8 x pod.segments 250 x 136 hosts); "
                   "hpnctl plans at most 262144 hosts") != std::string::npos);
  CHECK_FALSE(r.wrote_anything);
}

TEST_CASE("planner/design: cable IDs and port names must be unique") {
  check_refused("version: 1\nnaming:\n  cable: \"C{seq:05}\"\n",
                "pod.yaml:3:3: naming.cable: pattern 'C{seq:05}' gives two cables the ID 'C00001'; "
                "include every field that tells them apart\n"
                "  cable: \"C{seq:05}\"\n"
                "  ^\n");
  check_refused("version: 1\nnaming:\n  switch_port: \"etp{cage}\"\n",
                "pod.yaml:3:3: naming.switch_port: pattern 'etp{cage}' gives two ports the name "
                "'etp1'; include every field that tells them apart\n"
                "  switch_port: \"etp{cage}\"\n"
                "  ^\n");
}

TEST_CASE("planner/design: '-o .' and a directory that is not a plan are refused before any work") {
  TempDir dir;
  auto dot = hpn::test::run_hpnctl("plan -o .", dir.path());
  CHECK(dot.exit_code == 2);
  CHECK(dot.err == "hpnctl: .: name the directory to write the plan into, not '.' or '..'\n");
  std::filesystem::create_directory(dir / "home");
  hpn::test::write_file(dir / "home" / "notes.txt", "mine");
  auto home = hpn::test::run_hpnctl("plan -o home", dir.path());
  CHECK(home.exit_code == 2);
  CHECK(home.err == "hpnctl: home: exists and is not an hpnctl plan (no blueprint.db); refusing to replace it\n");
  CHECK(hpn::test::read_file(dir / "home" / "notes.txt") == "mine");
}

TEST_CASE("planner/design: the gateway MAC must be a local unicast MAC") {
  check_refused("version: 1\naddressing:\n  gateway_mac: 02:48:50:4e:00\n",
                "pod.yaml:3:3: addressing.gateway_mac: '02:48:50:4e:00' is not a MAC address such as "
                "02:48:50:4e:00:01\n"
                "  gateway_mac: 02:48:50:4e:00\n"
                "  ^\n");
  // A multicast MAC would be flooded; a universal one belongs to a vendor.
  for (const char* mac : {"03:48:50:4e:00:01", "00:1b:21:00:00:01", "02:00:00:00:00:00"}) {
    INFO(mac);
    check_refused(std::string("version: 1\naddressing:\n  gateway_mac: \"") + mac + "\"\n",
                  std::string("pod.yaml:3:3: addressing.gateway_mac: ") + mac +
                      " must be a locally administered unicast MAC (second hex digit 2, 6, a or e, "
                      "e.g. 02:48:50:4e:00:01): the switches answer with it in place of their own\n"
                      "  gateway_mac: \"" + mac + "\"\n"
                      "  ^\n");
  }
}

// Issue 17: a rule giving multimode to runs it cannot reach planned 28,824
// cables with a warning each and exited 0. It is a contradiction in the
// spec: exit 2, at the rule, nothing written.
TEST_CASE("planner/design: a media rule giving mmf beyond the multimode reach") {
  check_refused("version: 1\nmedia:\n  rules:\n    - {max_length_m: 3, media: dac}\n"
                "    - {max_length_m: 150, media: mmf}\n    - {media: smf}\n",
                "pod.yaml:5:8: media.rules[1]: mmf up to 150 m, but multimode reaches "
                "media.multimode_limit_m = 100 m; lower max_length_m to 100 or less, or give the longer runs "
                "smf\n    - {max_length_m: 150, media: mmf}\n       ^\n");
  // Lowering the reach alone contradicts the default rules: located at the key the user set.
  check_refused("version: 1\nmedia:\n  multimode_limit_m: 50\n",
                "pod.yaml:3:3: media.rules[1]: mmf up to 100 m, but multimode reaches "
                "media.multimode_limit_m = 50 m; lower max_length_m to 50 or less, or give the longer runs "
                "smf\n  multimode_limit_m: 50\n  ^\n");
  check_refused("version: 1\nmedia:\n  rules:\n    - {max_length_m: 3, media: dac}\n    - {media: mmf}\n",
                "pod.yaml:5:8: media.rules[1]: mmf for any length, but multimode reaches "
                "media.multimode_limit_m = 100 m; give it max_length_m 100 or less and end media.rules with "
                "smf\n    - {media: mmf}\n       ^\n");
}

TEST_CASE("planner/design: a media rule an earlier one shadows is never used") {
  check_refused("version: 1\nmedia:\n  rules:\n    - {max_length_m: 50, media: mmf}\n"
                "    - {max_length_m: 3, media: dac}\n    - {media: smf}\n",
                "pod.yaml:5:8: media.rules[1] (up to 3 m) is never used: an earlier rule takes every run up "
                "to 50 m\n    - {max_length_m: 3, media: dac}\n       ^\n");
}

TEST_CASE("planner/design: optics and fibre grades the plant does not know") {
  check_refused("version: 1\nmedia:\n  fibre: {mmf: OM9}\n",
                "pod.yaml:3:11: media.fibre.mmf: 'OM9' is not a mmf fibre grade; one of OM3, OM4, OM5\n"
                "  fibre: {mmf: OM9}\n          ^\n");
  check_refused("version: 1\nmedia:\n  optics:\n    - {media: mmf, speed_gbps: 200, part: X, connector: SC}\n",
                "pod.yaml:4:57: media.optics[0].connector: unknown connector 'SC'; one of MPO-12, MPO-16, "
                "LC-duplex\n    - {media: mmf, speed_gbps: 200, part: X, connector: SC}\n"
                "                                                        ^\n");
}
