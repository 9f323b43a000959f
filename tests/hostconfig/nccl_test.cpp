// NCCLX and NCCL settings: the environment, and the topology file read the
// way NCCLX reads it (ctran commstate/Topology.cc, CommStateX::isSameRack).
#include <cstdio>
#include <map>
#include <sstream>

#include "hostconfig/profile_files.h"
#include "hostconfig/profile_json.h"
#include "hostconfig/profile_nccl.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::test;

std::map<std::string, std::string> env_of(const HostProfile& p) {
  std::map<std::string, std::string> env;
  for (const auto& e : p.env) REQUIRE(env.emplace(e.name, e.value).second);
  return env;
}

TEST_CASE("profile/nccl: the default pod's environment") {
  const Blueprint& bp = default_pod().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p0-s00-h000"));
  auto env = env_of(p);
  // same-segment and cross-rail are both NCCLX's "same rack" (one su): the
  // plain variables carry the wider, cross-rail's 22 QPs; same-pod: XRACK.
  REQUIRE(p.classes.size() == 3);
  CHECK(p.classes[0].ncclx_setting == PathScope::cross_rail);
  CHECK(p.classes[1].ncclx_setting == PathScope::cross_rail);
  CHECK(p.classes[2].ncclx_setting == PathScope::same_pod);
  CHECK(env.at("NCCL_CTRAN_IB_MAX_QPS") == "22");
  CHECK(env.at("NCCL_CTRAN_IB_QP_SCALING_THRESHOLD") == "32768");
  CHECK(env.at("NCCL_CTRAN_IB_QP_MAX_MSGS") == "1");
  CHECK(env.at("NCCL_CTRAN_IB_VC_MODE") == "dqplb");
  // same-pod window 2 x 354,500 = 709,000 B: ceil(709,000 / 32,768) = 22 QPs.
  CHECK(env.at("NCCL_CTRAN_IB_QP_CONFIG_XRACK") == "32768,22,dqplb,1");
  // One pod: no zone or datacenter to cross.
  CHECK(env.count("NCCL_CTRAN_IB_QP_CONFIG_XZONE") == 0);
  CHECK(env.count("NCCL_CTRAN_IB_QP_CONFIG_XDC") == 0);
  CHECK(env.at("NCCL_TOPO_FILE_PATH") == "/etc/hpnctl/ncclx-topology");
  CHECK(env.at("NCCL_IB_HCA") == "=bond1:1,bond2:1,bond3:1,bond4:1,bond5:1,bond6:1,bond7:1,bond8:1");
  CHECK(env.at("NCCL_IB_QPS_PER_CONNECTION") == "22");
  CHECK(env.at("NCCL_IB_SPLIT_DATA_ON_QPS") == "0");
  CHECK(env.at("NCCL_IB_GID_INDEX") == "3");
  CHECK(env.at("NCCL_IB_TC") == "106");
  CHECK(env.at("NCCL_IB_TIMEOUT") == "20");
  CHECK(env.at("NCCL_IB_RETRY_CNT") == "7");
  CHECK(env.at("NCCL_SOCKET_IFNAME") == "=bond0");
}

TEST_CASE("profile/nccl: two halls add XZONE and XDC, with more outstanding bytes farther away") {
  const Blueprint& bp = halls_fabric().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p1-s00-h003"));
  auto env = env_of(p);
  REQUIRE(p.classes.size() == 5);
  CHECK(env.at("NCCL_CTRAN_IB_QP_CONFIG_XRACK") == ncclx_qp_config(p.classes[2].dqplb));
  CHECK(env.at("NCCL_CTRAN_IB_QP_CONFIG_XZONE") == ncclx_qp_config(p.classes[3].dqplb));
  CHECK(env.at("NCCL_CTRAN_IB_QP_CONFIG_XDC") == ncclx_qp_config(p.classes[4].dqplb));
  for (size_t i = 3; i < p.classes.size(); ++i) {
    CHECK(p.classes[i].dqplb.window_bytes > p.classes[i - 1].dqplb.window_bytes);
    CHECK(p.classes[i].dqplb.outstanding_bytes() >= p.classes[i - 1].dqplb.outstanding_bytes());
    CHECK(p.classes[i].dqplb.qps >= p.classes[i - 1].dqplb.qps);
  }
  CHECK(p.classes[4].dqplb.outstanding_bytes() > p.classes[0].dqplb.outstanding_bytes());
  CHECK(p.classes[4].dqplb.qps > p.classes[0].dqplb.qps);
  CHECK(p.classes[4].ncclx_peer == "diff-dc");
  CHECK(p.classes[1].ncclx_peer == "same-rack");
}

// Both ends of a connection must agree on its QPs: the classes are the
// fabric's, computed once per blueprint, so every host carries the same.
TEST_CASE("profile/nccl: hosts in different segments, pods and halls carry the same classes and NCCLX variables") {
  const Blueprint& bp = halls_fabric().blueprint;
  ProfileBuilder b = builder_for(bp);
  auto ncclx = [&](const char* host) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : env_of(b.build(device_index(bp, host)))) {
      if (k.rfind("NCCL_CTRAN_IB_", 0) == 0 || k == "NCCL_IB_QPS_PER_CONNECTION") out[k] = v;
    }
    return out;
  };
  auto classes = [&](const char* host) { return profile_json(b.build(device_index(bp, host)))["path_classes"]; };
  CHECK(ncclx("host-p0-s00-h000") == ncclx("host-p2-s01-h005"));
  CHECK(classes("host-p0-s00-h000") == classes("host-p2-s01-h005"));
  CHECK(classes("host-p1-s01-h003") == classes("host-p2-s01-h005"));
}

// DEVICE_BACKEND_NETWORK_TOPOLOGY as NCCLX parses it: exactly four fields,
// zone set, and exactly one of su and rtsw, or it refuses the file.
struct Topo {
  std::string device, dc, zone, su, rtsw;
};
Topo parse_ncclx(const std::string& file) {
  Topo t;
  std::istringstream in(file);
  std::string line, value;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    REQUIRE(eq != std::string::npos);
    if (line.substr(0, eq) == "DEVICE_NAME") t.device = line.substr(eq + 1);
    if (line.substr(0, eq) == "DEVICE_BACKEND_NETWORK_TOPOLOGY") value = line.substr(eq + 1);
  }
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = value.find('/', start)) != std::string::npos; start = slash + 1) {
    parts.push_back(value.substr(start, slash - start));
  }
  parts.push_back(value.substr(start));
  REQUIRE(parts.size() == 4);
  t.dc = parts[0], t.zone = parts[1], t.su = parts[2], t.rtsw = parts[3];
  REQUIRE_FALSE(t.device.empty());
  REQUIRE_FALSE(t.zone.empty());
  REQUIRE(t.su.empty() != t.rtsw.empty());
  return t;
}

// CtranIbVirtualConn::setDefaultQPConfig's choice, from two topology files.
std::string ncclx_peer(const Topo& a, const Topo& b) {
  bool same_rack = !a.rtsw.empty() ? a.rtsw == b.rtsw : !a.su.empty() && a.su == b.su;
  if (same_rack) return "same-rack";
  if (a.zone == b.zone) return "same-zone";
  if (a.dc == b.dc) return "same-dc";
  return "diff-dc";
}

TEST_CASE("profile/nccl: NCCLX reading the topology files puts every pair of hosts in its path class") {
  const Blueprint& bp = halls_fabric().blueprint;
  ProfileBuilder b = builder_for(bp);
  std::vector<HostProfile> profiles;
  std::vector<Topo> topos;
  for (int h : b.hosts()) {
    profiles.push_back(b.build(h));
    topos.push_back(parse_ncclx(ncclx_topology_file(profiles.back())));
    CHECK(topos.back().device == profiles.back().host);
  }
  std::map<std::string, std::string> expected{{"same-segment", "same-rack"}, {"same-pod", "same-zone"},
                                              {"same-hall", "same-dc"}, {"other-hall", "diff-dc"}};
  for (size_t i = 0; i < profiles.size(); ++i) {
    for (size_t j = 0; j < profiles.size(); ++j) {
      if (i == j) continue;
      const HostProfile& x = profiles[i];
      const HostProfile& y = profiles[j];
      // The class by the blueprint, as the path classifier defines it.
      std::string cls = x.pod != y.pod ? (x.hall != y.hall ? "other-hall" : "same-hall")
                        : x.segment != y.segment ? "same-pod"
                                                 : "same-segment";
      INFO(x.host << " -> " << y.host);
      REQUIRE(ncclx_peer(topos[i], topos[j]) == expected.at(cls));
    }
  }
}

TEST_CASE("profile/nccl: nccl.env reads back the same through sh") {
  const Blueprint& bp = default_pod().blueprint;
  HostProfile p = builder_for(bp).build(device_index(bp, "host-p0-s07-h042"));
  TempDir dir;
  write_file(dir / "nccl.env", nccl_env(p));
  // Only the file's variables: a clean environment, printed one per line.
  std::string cmd = "env -i /bin/sh -c 'set -a; . \"" + (dir / "nccl.env").string() +
                    "\"; set +a; env' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::map<std::string, std::string> seen;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    auto eq = line.find('=');
    if (eq != std::string::npos && line.rfind("NCCL_", 0) == 0) seen[line.substr(0, eq)] = line.substr(eq + 1);
  }
  REQUIRE(pclose(pipe) == 0);
  CHECK(seen == env_of(p));
}

}  // namespace
