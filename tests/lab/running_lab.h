// A real lab for the root tests: brought up from the lab pod for one test
// and taken down at its end, with helpers to probe it. Every helper skips
// or fails through Catch.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "lab/lab.h"
#include "lab/netlink_ops.h"
#include "lab_fixture.h"
#include "probe_io.h"
#include "test_util.h"

namespace hpn::test {

using namespace hpn::lab;

// Skips the test (skip(): the process ends, exit 77) unless a lab can come
// up here: root, IPv6 IOAM, and network namespaces that can be made.
inline void require_lab() {
  if (geteuid() != 0) {
    hpn::test::skip("the lab needs root (network namespaces, veth pairs)");
  }
  if (!std::ifstream("/proc/sys/net/ipv6/ioam6_id")) {
    hpn::test::skip("this kernel has no IPv6 IOAM (net.ipv6.ioam6_id)");
  }
  const std::string probe = fmt::format("hpn-test-{}", getpid());
  if (!create_named_netns(probe)) {
    hpn::test::skip("cannot create network namespaces here");
  }
  (void)delete_named_netns(probe);
}

inline std::set<std::string> namespaces_with(const std::string& prefix) {
  std::set<std::string> out;
  const auto names = list_named_netns();  // held: a range-for over .value() of a temporary dangles
  REQUIRE(names.ok());
  for (const auto& n : names.value()) {
    if (n.starts_with(prefix)) out.insert(n);
  }
  return out;
}

inline std::set<std::string> root_interfaces() {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net")) out.insert(e.path().filename());
  return out;
}

// A lab that goes down when the test ends, however it ends.
struct RunningLab {
  TempDir dir;
  NetlinkOps ops;
  LabState state;
  std::string state_path = (dir / "lab.json").string();

  const Blueprint* bp = nullptr;

  explicit RunningLab(const Wiring& wiring, const Blueprint& blueprint = lab_pod()) : bp(&blueprint) {
    LabUpRequest r;
    r.blueprint = &blueprint;
    r.blueprint_path = "examples/lab-pod.yaml";
    r.wiring = wiring;
    r.state_path = state_path;
    r.agent_binary = HPNCTL_BINARY;
    auto up = lab_up(r, ops);
    if (!up) FAIL(up.error().message);
    state = up.value();
  }
  ~RunningLab() { (void)lab_down(state_path, ops); }
  std::string netns(const std::string& device) const { return state.prefix + device; }
};

struct Flow {
  std::string src, dst;
  int nic;
};

// A probe as received: its frame, decoded hops and the devices they name.
struct SeenProbe {
  CapturedProbe captured;
  std::vector<probe::IoamHopRecord> hops;
  std::vector<std::string> path;
};

// Sends one probe per source port for each flow and checks every decoded
// path against `wires`. Returns the probes seen, per flow.
inline std::vector<std::vector<SeenProbe>> probe_flows(const RunningLab& lab, const std::map<End, End>& wires,
                                                const std::vector<Flow>& flows,
                                                const std::vector<std::uint16_t>& sports,
                                                const std::string& bind_device = "") {
  std::vector<std::vector<SeenProbe>> out;
  for (const auto& f : flows) {
    Receiver rx(lab.netns(f.dst));
    send_probes(lab.netns(f.src), bond_address(lab_pod(), f.src, f.nic),
                      bond_address(lab_pod(), f.dst, f.nic), sports, lab.state.ioam_namespace, bind_device);
    auto got = rx.collect(sports.size());
    INFO(f.src << " -> " << f.dst);
    REQUIRE(got.size() == sports.size());
    std::vector<SeenProbe> seen;
    for (auto& p : got) {
      SeenProbe s{std::move(p), {}, {}};
      s.hops = hops_of(s.captured);
      INFO("source port " << s.captured.sport);
      CHECK(check_path(lab_pod(), wires, f.src, f.dst, s.captured.ifname, s.hops, s.path) == "");
      // Different segments: ToR, aggregation switch, ToR.
      REQUIRE(s.path.size() == 3);
      CHECK(s.path[0].starts_with("tor-p0-s0"));
      CHECK(s.path[1].starts_with("agg-p0-"));
      CHECK(s.path[2].starts_with("tor-p0-s0"));
      seen.push_back(std::move(s));
    }
    out.push_back(std::move(seen));
  }
  return out;
}

inline std::vector<std::uint16_t> ports_from(std::uint16_t first, int count) {
  std::vector<std::uint16_t> out;
  for (int i = 0; i < count; ++i) out.push_back(static_cast<std::uint16_t>(first + i));
  return out;
}

inline std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  pclose(pipe);
  return out;
}

}  // namespace hpn::test
