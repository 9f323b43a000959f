// lab up / down / status against a recording NetworkOps: the order of the
// work, the record on disk, refusal of a second lab, rollback on failure and
// clean-up after an interrupted `lab up`, all without root.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "lab/lab.h"
#include "fake_network_ops.h"
#include "lab_fixture.h"
#include "test_util.h"

using namespace hpn;
using namespace hpn::lab;
using hpn::lab::testing::FakeNetworkOps;
using hpn::test::lab_pod;

namespace {

LabUpRequest request_for(const test::TempDir& dir, const std::string& id = "abcd") {
  LabUpRequest r;
  r.blueprint = &lab_pod();
  r.blueprint_path = "/plans/lab";
  r.wiring = planned_wiring(lab_pod());
  r.state_path = (dir / "lab.json").string();
  r.id = id;
  return r;
}

}  // namespace

TEST_CASE("dataplane/lab: up makes namespaces, then links, then configures, recording each phase",
          "[dataplane][lab]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  ops.netns.insert("unrelated");
  std::vector<std::string> said;
  auto state = lab_up(request_for(dir), ops, [&](std::string_view s) { said.emplace_back(s); });
  REQUIRE(state);
  CHECK(state->phase == "up");
  CHECK(ops.netns.size() == 38);  // "unrelated", 36 devices and the unplugged ports' far ends
  // 112 cables, and the 96 ports of the switches' sets the wiring leaves
  // without one (a ToR's 8 spares): a switch has every port of its set.
  CHECK(ops.veths.size() == 112 + 96);
  CHECK(ops.configured.size() == 36);
  REQUIRE(said.size() > 7);
  CHECK(std::vector<std::string>(said.begin(), said.begin() + 7) ==
        std::vector<std::string>{"creating 36 namespaces", "linking 112 cables", "making 96 ports without a cable",
                                 "applying 20 switch sets (switch apply)",
                                 "what only the lab sets: faults, the switches' ICMPv6 rate, the hosts' link-locals, the "
                                 "machine's neighbour limits",
                                 "applying 16 host profiles (host apply --no-bond)", "starting FRR on 20 switches"});
  // Each switch is configured as a real one is: the set `config --all
  // --bring-up` writes for it, byte for byte, applied by switch apply's
  // code in its namespace, from its directory beside frr.conf.
  REQUIRE(ops.switches_applied.size() == 20);
  REQUIRE(hpn::test::run_hpnctl("plan '" + hpn::test::source_path("examples/lab-pod.yaml").string() + "' -q -o plan",
                                dir.path()).exit_code == 0);
  REQUIRE(hpn::test::run_hpnctl("config --all --bring-up --blueprint plan -o configs", dir.path()).exit_code == 0);
  // The files' own comments name the hpnctl that wrote them ("test" here).
  auto settings = [](const std::string& text) {
    std::string out;
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      if (text[at] != '#') out += text.substr(at, end - at);
      at = end;
    }
    return out;
  };
  for (const auto& a : ops.switches_applied) {
    const std::string name = a.netns.substr(std::string("hpn-abcd-").size());
    CHECK(a.dir == state->routing_dir + "/" + name);
    std::set<std::string> paths;
    for (const auto& f : a.files) {
      paths.insert(f.path);
      INFO(name << "/" << f.path);
      CHECK(settings(f.text) == settings(hpn::test::read_file(dir / "configs" / name / f.path)));
    }
    // Everything of the set but frr.conf (FRR's, started after) and
    // config_db.json (SONiC's).
    size_t written = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "configs" / name)) {
      const std::string rel = std::filesystem::relative(e.path(), dir / "configs" / name).string();
      if (!e.is_regular_file() || rel == "frr.conf" || rel == "config_db.json") continue;
      ++written;
      CHECK(paths.count(rel) == 1);
    }
    CHECK(written == a.files.size());
    CHECK(paths.count("ioam.conf") == 1);
    CHECK(paths.count("sysctl.conf") == 1);
  }
  CHECK(std::find(said.begin(), said.end(), "hosts announce themselves to their ToRs (host announce)") != said.end());
  // Each host is configured by its own profile, as host apply does it on a
  // real host, in its own namespace; without bonds by default.
  REQUIRE(ops.applied.size() == 16);
  for (const auto& a : ops.applied) {
    CHECK(a.netns == "hpn-abcd-" + a.host);
    CHECK(a.no_bond);
  }
  // Every switch runs FRR; the ToRs' host ports are the agent's; each host
  // port with a bond announces it; the single pod has no core rule to load.
  CHECK(ops.routing_started.size() == 20);
  // Each ToR runs its agent as its unit would: `hpnctl switch agent --config`
  // on the switch-agent.json `config --all --bring-up` writes for it.
  REQUIRE(ops.agents.size() == 8);
  const auto& [launch, conf] = ops.agents[0];
  CHECK(launch.netns == "hpn-abcd-tor-p0-s00-r1a");
  CHECK(launch.config.ends_with("/tor-p0-s00-r1a/switch-agent.json"));
  CHECK_FALSE(launch.binary.empty());
  auto agent = hpn::switchconfig::read_agent_config(conf, launch.config);
  REQUIRE(agent);
  CHECK(agent->switch_name == "tor-p0-s00-r1a");
  // The lab runs the bring-up configuration: spare ports learn hosts too.
  CHECK(agent->ports == std::vector<std::string>{"etp1a", "etp1b", "etp2a", "etp2b", "etp3a", "etp3b",
                                                 "etp4a", "etp4b", "etp9", "etp10", "etp11", "etp12",
                                                 "etp13", "etp14", "etp15", "etp16"});
  REQUIRE(agent->prefixes.size() == 2);
  CHECK(agent->prefixes[0].text == "10.0.0.0/12");
  CHECK(agent->prefixes[1].text == "fd48:504e::/40");
  CHECK(agent->table == 254);
  CHECK(agent->protocol == 80);
  // Every member port of every bond announces both of the bond's addresses.
  CHECK(ops.announced.size() == 128);
  CHECK(ops.announced.front() == std::pair<std::string, std::string>{"hpn-abcd-host-p0-s00-h000", "nic1p1 10.0.0.16"});
  CHECK(ops.vtysh_applied.empty());
  // The neighbour limits the ToRs' sets carry, given to the machine, whose
  // one table holds every namespace's neighbours.
  CHECK(ops.machine_sysctls == std::map<std::string, long>{{"net.ipv4.neigh.default.gc_thresh1", 4096},
                                                           {"net.ipv4.neigh.default.gc_thresh2", 8192},
                                                           {"net.ipv4.neigh.default.gc_thresh3", 16384},
                                                           {"net.ipv6.neigh.default.gc_thresh1", 4096},
                                                           {"net.ipv6.neigh.default.gc_thresh2", 8192},
                                                           {"net.ipv6.neigh.default.gc_thresh3", 16384}});
  // It waited for the sessions and host routes, then for the routes to settle.
  CHECK(said.back().starts_with("BGP converging: 96 of 96 session ends up, 128 of 128 host routes"));
  CHECK(state->agent_pids == std::vector<int>{4242, 4243, 4244, 4245, 4246, 4247, 4248, 4249});
  CHECK(state->routers.size() == 20);
  const auto& [a, z] = ops.veths.front();
  CHECK(a.netns == "hpn-abcd-host-p0-s00-h000");
  CHECK(a.ifname == "nic1p1");
  CHECK(z.netns == "hpn-abcd-tor-p0-s00-r1a");
  CHECK(z.ifname == "etp1a");

  auto recorded = LabStateFile(request_for(dir).state_path).load();
  REQUIRE(recorded);
  REQUIRE(recorded->has_value());
  CHECK((*recorded)->phase == "up");
  CHECK((*recorded)->namespaces.size() == 37);  // the devices' and the unplugged ports' far ends'
  CHECK((*recorded)->blueprint == "/plans/lab");

  SECTION("a second lab up refuses and changes nothing") {
    auto again = lab_up(request_for(dir, "beef"), ops);
    REQUIRE_FALSE(again);
    CHECK(again.error().message == "a lab is already up (lab abcd from /plans/lab, recorded in " +
                                       request_for(dir).state_path + "); 'hpnctl lab down' removes it");
    CHECK(ops.netns.size() == 38);
  }
  SECTION("status joins the record with the interfaces") {
    auto status = lab_status(request_for(dir).state_path, ops);
    REQUIRE(status);
    REQUIRE(status->has_value());
    const auto json = status_json(**status);
    CHECK(json["lab"] == "abcd");
    CHECK(json["devices"].size() == 36);
    const auto& host = json["devices"][16];  // blueprint order: 4 cores, 8 aggs, 4 ToRs, then hosts
    CHECK(host["name"] == "host-p0-s00-h000");
    CHECK(host["role"] == "host");
    CHECK(host["ports"][0]["port"] == "nic1p1");
    CHECK(host["ports"][0]["mac"] == "02:10:00:00:00:11");  // the fake's interfaces keep the lab's MACs
    CHECK(host["ports"][0]["state"] == "up");
    CHECK(host["ports"][0]["peer"]["device"] == "tor-p0-s00-r1a");
  }
  SECTION("down removes every namespace of the lab and the record") {
    auto down = lab_down(request_for(dir).state_path, ops);
    REQUIRE(down);
    CHECK(down->had_lab);
    CHECK(down->namespaces_removed == 37);
    CHECK(ops.netns == std::set<std::string>{"unrelated"});
    CHECK(ops.stopped_routers == 20);
    CHECK(ops.stopped_processes == std::vector<int>{4242, 4243, 4244, 4245, 4246, 4247, 4248, 4249});  // each ToR's agent
    auto gone = LabStateFile(request_for(dir).state_path).load();
    REQUIRE(gone);
    CHECK_FALSE(gone->has_value());
    auto twice = lab_down(request_for(dir).state_path, ops);
    REQUIRE(twice);
    CHECK_FALSE(twice->had_lab);
  }
}

TEST_CASE("dataplane/lab: a host port the wiring leaves without a cable still exists, its far end unplugged",
          "[dataplane][lab]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  LabUpRequest r = request_for(dir);
  // C0H00001 is host-p0-s00-h000:nic1p1 -- tor-p0-s00-r1a:etp1a.
  REQUIRE(r.wiring.cables.front().cable_id == "C0H00001");
  r.wiring.cables.erase(r.wiring.cables.begin());
  auto state = lab_up(r, ops);
  REQUIRE(state);
  // 111 cables, the unplugged port and the switches' 97 ports without a
  // cable (tor-p0-s00-r1a:etp1a among them).
  CHECK(ops.veths.size() == 112 + 97);
  CHECK(ops.netns.count("hpn-abcd-unplugged") == 1);
  const auto& [host, far] = ops.veths[111];
  CHECK(host.netns == "hpn-abcd-host-p0-s00-h000");
  CHECK(host.ifname == "nic1p1");
  CHECK(far.netns == "hpn-abcd-unplugged");
  // The host's profile is applied as on a real host with a port unplugged.
  CHECK(std::count_if(ops.applied.begin(), ops.applied.end(),
                      [](const auto& a) { return a.host == "host-p0-s00-h000"; }) == 1);
  // Nothing would leave the unplugged port: it announces nothing.
  CHECK(std::none_of(ops.announced.begin(), ops.announced.end(), [](const auto& a) {
    return a.first == "hpn-abcd-host-p0-s00-h000" && a.second.starts_with("nic1p1 ");
  }));
  CHECK(std::count_if(ops.announced.begin(), ops.announced.end(),
                      [](const auto& a) { return a.first == "hpn-abcd-host-p0-s00-h000"; }) == 6);
  // Nothing is configured in the unplugged namespace: its ends stay down.
  CHECK(std::none_of(ops.configured.begin(), ops.configured.end(),
                     [](const auto& c) { return c.first == "hpn-abcd-unplugged"; }));
  auto down = lab_down(r.state_path, ops);
  REQUIRE(down);
  CHECK(down->namespaces_removed == 37);
}

TEST_CASE("dataplane/lab: a failure midway removes what was made", "[dataplane][lab]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  ops.fail_at = 36 + 50;  // the 51st veth pair (host cables come first)
  auto state = lab_up(request_for(dir), ops);
  REQUIRE_FALSE(state);
  CHECK(state.error().message ==
        "cable C0H00051: injected failure at veth nic2p1; removed what this 'lab up' had made");
  CHECK(ops.netns.empty());
  auto recorded = LabStateFile(request_for(dir).state_path).load();
  REQUIRE(recorded);
  CHECK_FALSE(recorded->has_value());
}

TEST_CASE("dataplane/lab: down after an interrupted up removes every namespace with the prefix",
          "[dataplane][lab]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  // What a killed `lab up` leaves: its record in phase "linking", some of
  // its namespaces, and one it made after the record's last update.
  LabState s;
  s.id = "dead";
  s.prefix = "hpn-dead-";
  s.pid = 1;
  s.phase = "linking";
  s.namespaces = {"hpn-dead-a", "hpn-dead-b", "hpn-dead-c"};
  REQUIRE(LabStateFile(request_for(dir).state_path).create(s).value());
  ops.netns = {"hpn-dead-a", "hpn-dead-b", "hpn-dead-x", "hpn-deadbeef", "other"};
  auto status = lab_status(request_for(dir).state_path, ops);
  REQUIRE(status);
  CHECK((*status)->state.phase == "linking");
  auto refused = lab_up(request_for(dir), ops);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("phase 'linking'") != std::string::npos);
  auto down = lab_down(request_for(dir).state_path, ops);
  REQUIRE(down);
  CHECK(down->namespaces_removed == 3);
  CHECK(ops.netns == std::set<std::string>{"hpn-deadbeef", "other"});
}

TEST_CASE("dataplane/lab: a damaged record is reported, not guessed at", "[dataplane][lab]") {
  test::TempDir dir;
  test::write_file(dir / "lab.json", "{\"format\": \"hpnctl-lab\", \"version\": 1");
  FakeNetworkOps ops;
  auto down = lab_down((dir / "lab.json").string(), ops);
  REQUIRE_FALSE(down);
  CHECK(down.error().message == (dir / "lab.json").string() + ": not JSON (a damaged lab record)");
}

TEST_CASE("dataplane/lab: without FRR, lab up says which package to install and makes nothing", "[dataplane][lab]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  ops.routing_missing = "the lab's switches run FRR, and /usr/lib/frr/zebra is not installed: install Debian's "
                        "'frr' package (tools/deps.sh does)";
  auto state = lab_up(request_for(dir), ops);
  REQUIRE_FALSE(state);
  CHECK(state.error().message == ops.routing_missing);
  CHECK(ops.netns.empty());
  CHECK(ops.veths.empty());
  auto record = LabStateFile(request_for(dir).state_path).load();
  REQUIRE(record);
  CHECK_FALSE(record->has_value());
}

TEST_CASE("dataplane/lab: a record in a directory another user can write is neither written nor read",
          "[dataplane][lab]") {
  test::TempDir dir;
  const std::filesystem::path shared = dir / "shared";
  std::filesystem::create_directory(shared);
  std::filesystem::permissions(shared, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);  // as /tmp is
  const std::string record = (shared / "lab.json").string();
  LabState s;
  s.id = "ab12";
  s.prefix = "hpn-ab12-";
  auto created = LabStateFile(record).create(s);
  REQUIRE_FALSE(created);
  CHECK_THAT(created.error().message, Catch::Contains("writable by no one else"));
  CHECK(std::filesystem::is_empty(shared));
  // A record planted there is not trusted either (lab down would remove
  // the namespaces and stop the processes it names).
  test::write_file(shared / "lab.json", "{}\n");
  auto loaded = LabStateFile(record).load();
  REQUIRE_FALSE(loaded);
  CHECK_THAT(loaded.error().message, Catch::Contains("writable by no one else"));
  // The same directory, writable by its owner alone: the record is made.
  std::filesystem::remove(shared / "lab.json");
  std::filesystem::permissions(shared, std::filesystem::perms::owner_all);
  auto again = LabStateFile(record).create(s);
  REQUIRE(again);
  CHECK(again.value());
}
