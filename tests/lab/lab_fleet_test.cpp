// lab up --ssh against a recording NetworkOps: the management range is
// checked before anything is made, every device gets its own address on
// the bridge and its own sshd, lab down stops what runs in the lab's
// namespaces, and the lab inventory reaches each device at its address.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "lab/lab.h"
#include "lab/lab_fleet.h"
#include "fake_network_ops.h"
#include "lab_fixture.h"
#include "test_util.h"

using namespace hpn;
using namespace hpn::lab;
using hpn::lab::testing::FakeNetworkOps;
using hpn::test::lab_pod;

namespace {

LabUpRequest ssh_request(const test::TempDir& dir) {
  LabUpRequest r;
  r.blueprint = &lab_pod();
  r.blueprint_path = "/plans/lab";
  r.wiring = planned_wiring(lab_pod());
  r.state_path = (dir / "lab.json").string();
  r.routing_root = dir.path().string();
  r.id = "beef";
  r.ssh = true;
  r.agent_binary = HPNCTL_BINARY;  // the ToRs' agents: hpnctl switch agent, not this test binary
  return r;
}

}  // namespace

TEST_CASE("dataplane/lab fleet: a route into 198.18.0.0/16 refuses the range, naming it", "[dataplane][fleet]") {
  CHECK(check_management_range({{4, "0.0.0.0/0", 254, 0, {"eth0"}}, {4, "10.0.0.0/8", 254, 0, {"eth0"}}}));
  CHECK(check_management_range({{4, "198.20.0.0/16", 254, 0, {}}, {6, "fd00::/8", 254, 0, {}}}));
  for (const char* inside : {"198.18.0.0/16", "198.18.7.0/24", "198.16.0.0/13", "198.18.3.4/32"}) {
    auto refused = check_management_range({{4, inside, 254, 0, {"hpnm-1234"}}});
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains(inside) && Catch::Contains("hpnm-1234"));
  }
}

TEST_CASE("dataplane/lab fleet: up --ssh gives every device an address and an sshd, down stops them",
          "[dataplane][fleet]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  auto state = lab_up(ssh_request(dir), ops);
  REQUIRE(state);
  CHECK(state->mgmt_netns == "hpn-beef-mgmt");
  CHECK(state->mgmt_controller == "198.18.0.1");
  CHECK(ops.netns.count("hpn-beef-mgmt"));
  // One sshd per device, each in its own namespace at its own address.
  REQUIRE(ops.sshd.size() == state->devices.size());
  std::set<std::string> addresses, namespaces;
  for (const auto& [netns, address] : ops.sshd) {
    namespaces.insert(netns);
    addresses.insert(address);
    CHECK(address.starts_with("198.18."));
  }
  CHECK(namespaces.size() == 36);
  CHECK(addresses.size() == 36);
  for (const auto& d : state->devices) CHECK(addresses.count(d.mgmt_address));
  // The machine's end: a veth into the bridge, with the controller's address.
  CHECK(std::any_of(ops.veths.begin(), ops.veths.end(),
                    [](const auto& v) { return v.first.netns.empty() && v.first.ifname == "hpnm-beef"; }));
  auto machine = std::find_if(ops.configured.begin(), ops.configured.end(), [](const auto& c) { return c.first.empty(); });
  REQUIRE(machine != ops.configured.end());
  REQUIRE(machine->second.addresses.size() == 1);
  CHECK(machine->second.addresses[0].address == "198.18.0.1");
  auto hub = std::find_if(ops.configured.begin(), ops.configured.end(),
                          [](const auto& c) { return c.first == "hpn-beef-mgmt"; });
  REQUIRE(hub != ops.configured.end());
  CHECK(hub->second.bridges == std::vector<std::string>{"mgmt0"});
  CHECK(hub->second.bridge_ports.size() == 37);
  REQUIRE(ops.ssh_keys.size() == 1);

  auto down = lab_down(ssh_request(dir).state_path, ops);
  REQUIRE(down);
  REQUIRE(ops.processes_stopped_in.size() == 1);
  const auto& stopped = ops.processes_stopped_in[0];
  CHECK(std::find(stopped.begin(), stopped.end(), "hpn-beef-mgmt") != stopped.end());
  CHECK(std::find(stopped.begin(), stopped.end(), "hpn-beef-host-p0-s00-h000") != stopped.end());
  CHECK(ops.netns.empty());
}

TEST_CASE("dataplane/lab fleet: the range in use refuses --ssh, and lab up takes back what it made",
          "[dataplane][fleet]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  ops.machine_routes = {{4, "198.18.0.0/16", 254, 2, {"hpnm-cafe"}}};
  auto state = lab_up(ssh_request(dir), ops);
  REQUIRE_FALSE(state);
  CHECK_THAT(state.error().message, Catch::Contains("198.18.0.0/16") && Catch::Contains("in use"));
  CHECK(ops.sshd.empty());
  CHECK(ops.netns.empty());
}

TEST_CASE("dataplane/lab fleet: the inventory reaches each lab device at its address, hosts by their namespace",
          "[dataplane][fleet]") {
  test::TempDir dir;
  FakeNetworkOps ops;
  auto state = lab_up(ssh_request(dir), ops);
  REQUIRE(state);
  auto inv = lab_inventory(lab_pod(), *state, "/usr/bin/hpnctl");
  REQUIRE(inv);
  REQUIRE(inv->hosts.size() == 36);
  std::map<std::string, std::string> address;
  for (const auto& d : state->devices) address[d.name] = d.mgmt_address;
  for (const auto& h : inv->hosts) {
    CHECK(h.ansible_host == address.at(h.name));
    auto var = [&](const std::string& key) {
      auto it = std::find_if(h.vars.begin(), h.vars.end(), [&](const auto& v) { return v.first == key; });
      return it == h.vars.end() ? nlohmann::ordered_json() : it->second;
    };
    if (h.role == Role::host) {
      CHECK(var("hpnctl_apply_args") == nlohmann::ordered_json{"--netns", "hpn-beef-" + h.name, "--no-bond"});
      CHECK(var("hpnctl_profile_path").get<std::string>().find("/hosts/" + h.name + "/") != std::string::npos);
    } else {
      CHECK(var("hpn_frr_pathspace") == "hpn-beef-" + h.name);
    }
  }
  auto key = std::find_if(inv->vars.begin(), inv->vars.end(),
                          [](const auto& v) { return v.first == "ansible_ssh_private_key_file"; });
  REQUIRE(key != inv->vars.end());
  CHECK(key->second.get<std::string>() == state->ssh_dir + "/lab_key");
  // Without --ssh there is nothing to reach.
  LabState bare = *state;
  bare.ssh_dir.clear();
  CHECK_FALSE(lab_inventory(lab_pod(), bare, "/usr/bin/hpnctl"));
}
