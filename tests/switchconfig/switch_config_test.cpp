// Switch configurations against the blueprint: the expectations come from
// the test's own walk of the cables, links and core rules, never from the
// configuration read back.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "planner/plan_fixture.h"
#include "switchconfig/config_db.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/linux_sysctl.h"
#include "switchconfig/switch_config.h"

using namespace hpn;
using namespace hpn::switchconfig;

namespace {

const Blueprint& lab_pod() {
  static const Plan plan = test::plan_of_file("examples/lab-pod.yaml");
  return plan.blueprint;
}

const Blueprint& lab_2pod() {
  static const Plan plan = test::plan_of_file("examples/lab-2pod.yaml");
  return plan.blueprint;
}

int device(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

SwitchConfig config_of(const Blueprint& bp, const std::string& name, ConfigOptions options = {}) {
  auto builder = ConfigBuilder::create(bp, options);
  REQUIRE(builder);
  return builder->build(device(bp, name));
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_with(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

// The body of `interface NAME` up to its `exit`.
std::string stanza(const std::string& conf, const std::string& name) {
  const std::string head = "interface " + name + "\n";
  const size_t at = conf.find(head);
  if (at == std::string::npos) return "";
  return conf.substr(at + head.size(), conf.find("exit\n", at) - at - head.size());
}

}  // namespace

TEST_CASE("switchconfig: every port of a ToR, its cable and far end, addresses and state", "[switchconfig]") {
  const Blueprint& bp = lab_pod();
  const int tor = device(bp, "tor-p0-s00-r1a");
  const SwitchConfig c = config_of(bp, "tor-p0-s00-r1a");
  const std::string conf = frr_conf(c);
  // The test's own view: the cable at each port of the ToR.
  std::map<std::string, const Cable*> at;
  for (const auto& k : bp.cables) {
    if (k.a_device == tor) at[k.a_port] = &k;
    if (k.z_device == tor) at[k.z_port] = &k;
  }
  const Panel& panel = bp.panels[bp.devices[tor].panel];
  size_t ports = 0;
  for (const auto& p : panel.ports) {
    if (p.use == PortUse::cage) {
      CHECK(conf.find("! " + p.name + ": 2 x 200G breakout of a 400G cage") != std::string::npos);
      continue;
    }
    ++ports;
    INFO(p.name);
    const std::string body = stanza(conf, p.name);
    REQUIRE_FALSE(body.empty());
    if (!at.count(p.name)) {
      CHECK(body == " description spare\n shutdown\n");
      continue;
    }
    const Cable& k = *at[p.name];
    const bool a_end = k.a_device == tor;
    const std::string far = bp.devices[a_end ? k.z_device : k.a_device].name + ":" + (a_end ? k.z_port : k.a_port);
    CHECK(body.rfind(" description " + k.id + " " + far, 0) == 0);
    CHECK(body.find("shutdown") == std::string::npos);
    if (k.kind == CableKind::host_tor) {
      // Each host port answers for the rail's gateway, .1 on side a.
      CHECK(body.find(" ip address 10.0.0.1/32\n ipv6 address fd48:504e::1/128\n") != std::string::npos);
    } else {
      const LinkAddresses* link = nullptr;
      for (const auto& l : bp.links) {
        if (bp.cables[l.cable].id == k.id) link = &l;
      }
      REQUIRE(link != nullptr);
      CHECK(body.find(" ipv6 address " + (a_end ? link->a_ipv6 : link->z_ipv6) + "/127\n") != std::string::npos);
      // The /31 stays out: FRR would peer over it, numbered, and a
      // miswired cable would form no session.
      CHECK(body.find(" ip address ") == std::string::npos);
      CHECK(conf.find(" neighbor " + p.name + " interface peer-group FABRIC\n") != std::string::npos);
      CHECK(conf.find(" neighbor " + p.name + " description " + k.id + " " + far + " AS 4200000100\n") !=
            std::string::npos);
    }
  }
  CHECK(c.ports.size() == ports);
  // One session per uplink, ECMP over all of them, the ToR's own AS.
  CHECK(lines_with(conf, " neighbor etp").size() == 2 * 4);
  CHECK(lines_with(conf, "  maximum-paths ") == std::vector<std::string>{"  maximum-paths 4", "  maximum-paths 4"});
  CHECK(conf.find("router bgp " + std::to_string(bp.devices[tor].asn) + "\n") != std::string::npos);
  CHECK(conf.find(" neighbor FABRIC remote-as external\n") != std::string::npos);
  CHECK(conf.find(" bgp bestpath as-path multipath-relax\n") != std::string::npos);
  CHECK(conf.find(" timers bgp 3 9\n") != std::string::npos);
  // Host routes from the neighbour table, the back-end pool's /128s only.
  CHECK(conf.find("ipv6 prefix-list HOSTS seq 5 permit fd48:504e::/40 ge 128\n") != std::string::npos);
  CHECK(lines_with(conf, "  redistribute kernel route-map HOST-ROUTES").size() == 2);
  CHECK(c.gateway.mac == "02:48:50:4e:00:01");
  CHECK(c.gateway.subnet6 == "fd48:504e::/64");
}

TEST_CASE("switchconfig: --bring-up lights the ports the plan leaves free, and they peer", "[switchconfig]") {
  const SwitchConfig c = config_of(lab_pod(), "tor-p0-s00-r1a", {.bring_up = true});
  const std::string conf = frr_conf(c);
  const std::string body = stanza(conf, "etp9");
  CHECK(body == " description spare, lit for the wiring check\n ip address 10.0.0.1/32\n ipv6 address fd48:504e::1/128\n");
  CHECK(conf.find(" neighbor etp9 interface peer-group FABRIC\n") != std::string::npos);
  CHECK(lines_with(conf, " shutdown").empty());
  CHECK(conf.find("! Bring-up configuration") != std::string::npos);
  const auto sysctls = linux_sysctls(c);
  CHECK(std::any_of(sysctls.begin(), sysctls.end(), [](const KernelSetting& s) {
    return s.key == "net.ipv6.conf.etp9.accept_untracked_na" && s.value == "1";
  }));
}

TEST_CASE("switchconfig: telemetry IDs exactly as the blueprint gives them", "[switchconfig]") {
  const Blueprint& bp = lab_pod();
  for (const char* name : {"tor-p0-s01-r2b", "agg-p0-2-03", "core-2-01"}) {
    INFO(name);
    const int d = device(bp, name);
    const SwitchConfig c = config_of(bp, name);
    std::map<std::string, std::string> sysctls;
    for (const auto& s : linux_sysctls(c)) sysctls[s.key] = s.value;
    CHECK(sysctls.at("net.ipv6.ioam6_id") == std::to_string(bp.devices[d].node_id));
    CHECK(sysctls.at("net.ipv6.conf.all.forwarding") == "1");
    size_t seen = 0;
    for (const auto& p : bp.panels[bp.devices[d].panel].ports) {
      if (p.use == PortUse::cage) continue;
      CHECK(sysctls.at("net.ipv6.conf." + p.name + ".ioam6_id") == std::to_string(p.port_id));
      CHECK(sysctls.at("net.ipv6.conf." + p.name + ".ioam6_enabled") == "1");
      ++seen;
    }
    CHECK(seen > 0);
    const auto db = nlohmann::json::parse(config_db(c));
    CHECK(db["HPN_TELEMETRY"]["localhost"]["node_id"] == std::to_string(bp.devices[d].node_id));
    CHECK(db["HPN_TELEMETRY"]["localhost"]["ioam_namespace"] == "123");
    CHECK(sysctl_conf(c).find("ip ioam namespace add 123") != std::string::npos);
  }
}

TEST_CASE("switchconfig: SONiC names ports by their first 100G lane", "[switchconfig]") {
  PanelPort cage{"etp1", 16, 400, kNone, "", PortUse::cage};
  PanelPort a{"etp1a", 17, 200, kNone, "etp1", PortUse::host};
  PanelPort b{"etp1b", 18, 200, kNone, "etp1", PortUse::host};
  PanelPort up{"etp65", 65 * 16, 400, kNone, "", PortUse::uplink};
  CHECK(sonic_port(cage, 400).name == "Ethernet0");
  CHECK(sonic_port(a, 400).name == "Ethernet0");
  CHECK(sonic_port(a, 400).lanes == "0,1");
  CHECK(sonic_port(b, 400).name == "Ethernet2");
  CHECK(sonic_port(b, 400).lanes == "2,3");
  CHECK(sonic_port(up, 400).name == "Ethernet256");
  CHECK(sonic_port(up, 400).lanes == "256,257,258,259");
  CHECK(sonic_port(up, 400).index == 65);
}

TEST_CASE("switchconfig: every core rule is traceable to its core-rules.csv row", "[switchconfig]") {
  for (const Blueprint* bp : {&lab_pod(), &lab_2pod()}) {
    INFO(bp->spec_name);
    auto builder = ConfigBuilder::create(*bp);
    REQUIRE(builder);
    size_t active = 0, reserved = 0;
    for (size_t r = 0; r < bp->core_rules.size(); ++r) {
      const CoreRule& rule = bp->core_rules[r];
      const std::string conf = frr_conf(builder->build(rule.core));
      const std::string row = fmt::format("! core-rules.csv row {}: in {} for pod {} -> out {}", r + 1,
                                          rule.in_port, rule.dst_pod, rule.out_port);
      INFO(row);
      REQUIRE(conf.find(row) != std::string::npos);
      const size_t at = conf.find(row);
      const std::string after = conf.substr(at, conf.find("exit\n", at) - at);
      if (rule.status == "active") {
        ++active;
        // The map of its in-port, the pod's prefix, out of its out-port
        // toward the far end the plan puts there.
        CHECK(after.find("pbr-map CORE-IN-" + rule.in_port + " seq ") != std::string::npos);
        CHECK(after.find(" match dst-ip fd48:504e:") != std::string::npos);
        const LinkAddresses* out = nullptr;
        for (const auto& l : bp->links) {
          const Cable& k = bp->cables[l.cable];
          if (k.z_device == rule.core && k.z_port == rule.out_port) out = &l;
        }
        REQUIRE(out != nullptr);
        CHECK(after.find(" set nexthop " + out->a_ipv6 + " " + rule.out_port + "\n") != std::string::npos);
        CHECK(conf.find("interface " + rule.in_port + "\n") != std::string::npos);
        CHECK(stanza(conf, rule.in_port).find(" pbr-policy CORE-IN-" + rule.in_port + "\n") != std::string::npos);
      } else {
        ++reserved;
        CHECK(after.find(": reserved, ") != std::string::npos);
        CHECK(after.find("pbr-map") == std::string::npos);
      }
    }
    if (bp == &lab_pod()) {
      CHECK(active == 0);  // one pod built: every rule waits for the second
      CHECK(reserved == bp->core_rules.size());
    } else {
      CHECK(reserved == 0);
      CHECK(active == bp->core_rules.size());
    }
  }
}

// One pbr-map sequence as frr.conf gives it, with the comment before it.
struct PbrSequence {
  std::string comment, map;
  int seq = 0;
  std::string match, nexthop, ifname;
};

std::vector<PbrSequence> pbr_sequences(const std::string& conf) {
  static const std::regex one(
      "(! core-rules\\.csv row [^\n]*)\npbr-map (\\S+) seq (\\d+)\n match dst-ip (\\S+)\n set nexthop (\\S+) (\\S+)\nexit\n");
  std::vector<PbrSequence> out;
  for (auto it = std::sregex_iterator(conf.begin(), conf.end(), one); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.push_back({m[1], m[2], std::stoi(m[3]), m[4], m[5], m[6]});
  }
  return out;
}

TEST_CASE("switchconfig: every active core rule forwards its pod's IPv4 and IPv6 subnets to its out-port's far end",
          "[switchconfig]") {
  const Blueprint& bp = lab_2pod();
  auto builder = ConfigBuilder::create(bp);
  REQUIRE(builder);
  // The test's own view of each core port's far end: (core, port) -> the
  // far end's planned /31 and /127 addresses.
  std::map<std::pair<int, std::string>, std::pair<std::string, std::string>> far_end;
  for (const auto& l : bp.links) {
    const Cable& k = bp.cables[l.cable];
    far_end[{k.a_device, k.a_port}] = {l.z_ipv4, l.z_ipv6};
    far_end[{k.z_device, k.z_port}] = {l.a_ipv4, l.a_ipv6};
  }
  std::map<int, std::vector<PbrSequence>> of_core;
  size_t rules = 0;
  for (size_t r = 0; r < bp.core_rules.size(); ++r) {
    const CoreRule& rule = bp.core_rules[r];
    if (!of_core.count(rule.core)) of_core[rule.core] = pbr_sequences(frr_conf(builder->build(rule.core)));
    const SwitchConfig c = builder->build(rule.core);
    const std::string comment = fmt::format("! core-rules.csv row {}: in {} for pod {} -> out {}; when {} is down: ",
                                            r + 1, rule.in_port, rule.dst_pod, rule.out_port, rule.out_port);
    INFO(comment);
    REQUIRE(rule.status == "active");
    ++rules;
    REQUIRE(far_end.count({rule.core, rule.out_port}));
    const auto [via4, via6] = far_end.at({rule.core, rule.out_port});
    REQUIRE_FALSE(via4.empty());
    // The pod's prefixes, as the builder gives them (their extent is the
    // next test's): each has one sequence, of this row, in the in-port's
    // map, toward the out-port's far end in the prefix's own family.
    std::map<int, int> per_family;
    for (const auto& k : c.core_rules) {
      if (k.row != static_cast<int>(r + 1)) continue;
      for (const auto& prefix : k.prefixes) {
        INFO(prefix.prefix);
        ++per_family[prefix.family];
        std::vector<const PbrSequence*> found;
        for (const auto& s : of_core[rule.core]) {
          if (s.map == "CORE-IN-" + rule.in_port && s.match == prefix.prefix) found.push_back(&s);
        }
        REQUIRE(found.size() == 1);
        CHECK(found[0]->comment.rfind(comment, 0) == 0);
        CHECK(found[0]->nexthop == (prefix.family == 4 ? via4 : via6));
        CHECK(found[0]->ifname == rule.out_port);
      }
    }
    CHECK(per_family[4] >= 1);
    CHECK(per_family[6] >= 1);
    // SONiC's config_db.json names the same next hops.
    const auto db = nlohmann::json::parse(config_db(c));
    CHECK(db["HPN_CORE_RULE"][std::to_string(r + 1)]["next_hop"] == via6);
    CHECK(db["HPN_CORE_RULE"][std::to_string(r + 1)]["next_hop_ipv4"] == via4);
  }
  CHECK(rules == bp.core_rules.size());
  for (const auto& [core, sequences] : of_core) {
    INFO(bp.devices[core].name);
    // Each map numbers its sequences 1, 2, ...: the IPv6 ones first, so
    // they keep the numbers they had before IPv4 rules were added.
    std::map<std::string, std::vector<const PbrSequence*>> by_map;
    for (const auto& s : sequences) by_map[s.map].push_back(&s);
    CHECK(by_map.size() == 8);  // every cabled port of the core is an in-port
    for (const auto& [map, list] : by_map) {
      INFO(map);
      bool seen4 = false;
      for (size_t i = 0; i < list.size(); ++i) {
        CHECK(list[i]->seq == static_cast<int>(i + 1));
        const bool v4 = list[i]->match.find(':') == std::string::npos;
        CHECK((list[i]->nexthop.find(':') == std::string::npos) == v4);
        CHECK_FALSE((seen4 && !v4));
        seen4 = seen4 || v4;
      }
      CHECK(seen4);
    }
  }
}

TEST_CASE("switchconfig: a core's links carry their /31 at both ends, and their sessions stay unnumbered",
          "[switchconfig]") {
  const Blueprint& bp = lab_2pod();
  auto builder = ConfigBuilder::create(bp);
  REQUIRE(builder);
  size_t core_ends = 0, other_ends = 0;
  for (const auto& l : bp.links) {
    const Cable& k = bp.cables[l.cable];
    const bool core_link = bp.devices[k.a_device].role == Role::core || bp.devices[k.z_device].role == Role::core;
    for (const auto& [device, port, address] : {std::tuple{k.a_device, k.a_port, l.a_ipv4},
                                                std::tuple{k.z_device, k.z_port, l.z_ipv4}}) {
      const std::string conf = frr_conf(builder->build(device));
      const std::string body = stanza(conf, port);
      INFO(bp.devices[device].name << ":" << port);
      REQUIRE_FALSE(body.empty());
      if (core_link) {
        ++core_ends;
        CHECK(body.find(" ip address " + address + "/31\n") != std::string::npos);
        // Numbered over the /31, a miswired cable would form no session.
        CHECK(conf.find(" neighbor " + port + " interface v6only peer-group FABRIC\n") != std::string::npos);
      } else {
        ++other_ends;
        CHECK(body.find(" ip address ") == std::string::npos);
        CHECK(conf.find(" neighbor " + port + " interface peer-group FABRIC\n") != std::string::npos);
      }
    }
  }
  CHECK(core_ends > 0);
  CHECK(other_ends > 0);
}

TEST_CASE("switchconfig: a pod's rules match its whole block of host subnets", "[switchconfig]") {
  // lab-2pod: 3 segments' room per pod (aggregation downlinks / ToRs per
  // plane and segment), 2 rails: pod 1 holds /64s 6..11 of fd48:504e::/40.
  const SwitchConfig c = config_of(lab_2pod(), "core-1-00");
  std::set<std::string> pod1;
  for (const auto& r : c.core_rules) {
    if (r.dst_pod != 1) continue;
    for (const auto& p : r.prefixes) pod1.insert(p.prefix);
  }
  CHECK(pod1 == std::set<std::string>{"fd48:504e:0:6::/63", "fd48:504e:0:8::/62", "10.0.0.192/26", "10.0.1.0/25"});
}

TEST_CASE("switchconfig: config_db.json carries what SONiC needs, in SONiC's shapes", "[switchconfig]") {
  const SwitchConfig c = config_of(lab_pod(), "tor-p0-s00-r1a");
  const auto db = nlohmann::json::parse(config_db(c));
  CHECK(db["DEVICE_METADATA"]["localhost"]["hostname"] == "tor-p0-s00-r1a");
  CHECK(db["DEVICE_METADATA"]["localhost"]["bgp_asn"] == std::to_string(c.bgp.asn));
  CHECK(db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] == "split");
  CHECK(db["DEVICE_METADATA"]["localhost"]["mac"] == "02:48:50:4e:00:01");
  CHECK(db["PORT"]["Ethernet0"]["alias"] == "etp1a");
  CHECK(db["PORT"]["Ethernet0"]["speed"] == "200000");
  CHECK(db["PORT"]["Ethernet0"]["admin_status"] == "up");
  CHECK(db["PORT"]["Ethernet32"]["alias"] == "etp9");
  CHECK(db["PORT"]["Ethernet32"]["admin_status"] == "down");
  CHECK(db["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"] == "2x200G");
  CHECK(db["VLAN_MEMBER"]["Vlan1000|Ethernet0"]["tagging_mode"] == "untagged");
  CHECK(db["VLAN_INTERFACE"].contains("Vlan1000|fd48:504e::1/64"));
  CHECK(db["INTERFACE"]["Ethernet16"]["ipv6_use_link_local_only"] == "enable");
  CHECK(db["LOOPBACK_INTERFACE"].contains("Loopback0|" + c.loopback6 + "/128"));
  // The planned session by its planned /127, with the planned peer's AS.
  CHECK(db["BGP_NEIGHBOR"]["fd48:5051::1"]["name"] == "agg-p0-1-00");
  CHECK(db["BGP_NEIGHBOR"]["fd48:5051::1"]["asn"] == "4200000100");
  CHECK(db["BGP_NEIGHBOR"]["fd48:5051::1"]["local_addr"] == "fd48:5051::");
}

TEST_CASE("switchconfig: config_db.json is written as JSON's own layout, keys sorted, text escaped",
          "[switchconfig]") {
  // config_db.json is written as text, without a JSON tree: it must be
  // what a JSON library writes for the same tables (sorted keys, 2-space
  // indent), so parsing and re-dumping it gives the same bytes.
  for (const char* name : {"tor-p0-s00-r1a", "agg-p0-1-00", "core-2-01"}) {
    INFO(name);
    const std::string text = config_db(config_of(lab_2pod(), name));
    CHECK(text == nlohmann::json::parse(text).dump(2) + "\n");
  }
  // A description with quotes, a backslash and control bytes comes back
  // as it went in.
  SwitchConfig c = config_of(lab_pod(), "tor-p0-s00-r1a");
  const std::string odd = "say \"hi\" \\ tab\there\nbell\x07 \xc3\xa9";
  c.ports.at(0).description = odd;
  const std::string text = config_db(c);
  const auto db = nlohmann::json::parse(text);
  CHECK(db["PORT"][c.ports.at(0).sonic.name]["description"] == odd);
  CHECK(text == db.dump(2) + "\n");
}

TEST_CASE("switchconfig: the same blueprint gives the same bytes", "[switchconfig]") {
  const SwitchConfig a = config_of(lab_2pod(), "core-2-01");
  const SwitchConfig b = config_of(lab_2pod(), "core-2-01");
  CHECK(frr_conf(a) == frr_conf(b));
  CHECK(config_db(a) == config_db(b));
  CHECK(config_json(a).dump() == config_json(b).dump());
}
