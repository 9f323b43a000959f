// Hidden fault mixes on the two lab pods: faults on aggregation-core cables
// (dark, broken one way, exchanged between two cores of one plane and
// across the planes) beside faults on the lower tiers, and at the hosts'
// side (host ends exchanged between two hosts and between two NICs of a
// host, a NIC dark), drawn at random by seed on cables that share no
// device. verify --lab must name every one,
// with its kind and cables, and nothing else.
#include <random>

#include "lab_verify.h"

namespace {

using hpn::test::finding_lines;
using hpn::test::LabVerify;
using hpn::test::require_lab;
using hpn::test::Row;

std::string sorted_pair(const std::string& a, const std::string& b) { return a < b ? a + " " + b : b + " " + a; }

struct Mix {
  LabVerify& lab;
  std::mt19937 random;
  std::set<std::string> used;  // devices a fault already touches
  std::multiset<std::string> expected;

  // A row of `kind` none of whose devices is used yet (but `shared`),
  // picked at random.
  Row& pick(const std::string& kind, const std::function<bool(const Row&)>& also = {}, const std::string& shared = "") {
    std::vector<Row*> free;
    for (auto& r : lab.sheet().rows) {
      if (r["kind"] != kind || r["fault"] != "" || r.count("moved")) continue;
      if (used.count(r["a_device"]) || (used.count(r["z_device"]) && r["z_device"] != shared)) continue;
      if (also && !also(r)) continue;
      free.push_back(&r);
    }
    REQUIRE_FALSE(free.empty());
    Row& r = *free[std::uniform_int_distribution<size_t>(0, free.size() - 1)(random)];
    used.insert(r["a_device"]);
    // The 4 cores carry every aggregation uplink: faults share them, on
    // cables of their own.
    if (!r["z_device"].starts_with("core-")) used.insert(r["z_device"]);
    return r;
  }
  static std::string plane_of(const std::string& device) {  // "core-2-01" -> "2", "agg-p0-1-03" -> "1"
    return device.starts_with("core-") ? device.substr(5, 1) : device.substr(device.size() - 4, 1);
  }
  void dark(const std::string& kind) {
    Row& r = pick(kind);
    r["fault"] = "down";
    expected.insert("missing " + r["cable_id"]);
  }
  void one_way(const std::string& kind) {
    Row& r = pick(kind);
    r["fault"] = std::bernoulli_distribution(0.5)(random) ? "drop-a-z" : "drop-z-a";
    expected.insert("unidirectional " + r["cable_id"]);
  }
  // Two cables exchanged at their z-ends: two hosts' cables on one ToR,
  // or two aggregation switches' uplinks between two cores (of one plane,
  // or of the two).
  void exchange(const std::string& kind, bool across_planes) {
    Row& a = pick(kind);
    const std::string at = a["z_device"];
    Row& b = pick(kind, [&](const Row& r) {
      if (kind == "host-tor") return r.at("z_device") == at;
      const bool other_plane = plane_of(r.at("z_device")) != plane_of(at);
      return r.at("z_device") != at && other_plane == across_planes;
    }, kind == "host-tor" ? at : "");
    std::swap(a["z_device"], b["z_device"]);
    std::swap(a["z_port"], b["z_port"]);
    a["moved"] = b["moved"] = "1";
    // Across the planes the exchange breaks HPN's layout: one plane-violation.
    expected.insert((across_planes ? "plane-violation " : "swapped ") + sorted_pair(a["cable_id"], b["cable_id"]));
  }
  // "nic2p1" -> '2' (the NIC), '1' (its port: the plane).
  static char nic_of(const Row& r) { return r.at("a_port")[3]; }
  static char port_of(const Row& r) { return r.at("a_port").back(); }
  // Two host cables that `fit` together, none of whose devices is used
  // yet, picked at random among all such pairs; their devices then are.
  std::pair<Row*, Row*> pick_pair(const std::function<bool(const Row&, const Row&)>& fit) {
    auto free = [&](Row& r) {
      return r["kind"] == "host-tor" && r["fault"] == "" && !r.count("moved") && !used.count(r["a_device"]) &&
             !used.count(r["z_device"]);
    };
    std::vector<std::pair<Row*, Row*>> pairs;
    auto& rows = lab.sheet().rows;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!free(rows[i])) continue;
      for (size_t j = i + 1; j < rows.size(); ++j) {
        if (free(rows[j]) && fit(rows[i], rows[j])) pairs.push_back({&rows[i], &rows[j]});
      }
    }
    REQUIRE_FALSE(pairs.empty());
    auto picked = pairs[std::uniform_int_distribution<size_t>(0, pairs.size() - 1)(random)];
    for (Row* r : {picked.first, picked.second}) {
      used.insert((*r)["a_device"]);
      used.insert((*r)["z_device"]);
    }
    return picked;
  }
  // Two cables' host ends exchanged: of two hosts on ToRs of one rail and
  // plane (one swap naming both), or of one host's two NICs, same port
  // (one rail violation naming both).
  void exchange_host_ends(bool one_host) {
    auto [a, b] = pick_pair([&](const Row& x, const Row& y) {
      if (one_host) return x.at("a_device") == y.at("a_device") && nic_of(x) != nic_of(y) && port_of(x) == port_of(y);
      // tor-p0-s00-r1a and tor-p1-s01-r1a: the same rail and plane.
      const std::string& tx = x.at("z_device");
      const std::string& ty = y.at("z_device");
      return x.at("a_device") != y.at("a_device") && tx != ty && tx.substr(tx.size() - 3) == ty.substr(ty.size() - 3);
    });
    std::swap((*a)["a_device"], (*b)["a_device"]);
    std::swap((*a)["a_port"], (*b)["a_port"]);
    (*a)["moved"] = (*b)["moved"] = "1";
    expected.insert((one_host ? "rail-violation " : "swapped ") + sorted_pair((*a)["cable_id"], (*b)["cable_id"]));
  }
  // Both ports of one NIC dark: each cable missing.
  void dark_nic() {
    auto [a, b] = pick_pair([&](const Row& x, const Row& y) {
      return x.at("a_device") == y.at("a_device") && nic_of(x) == nic_of(y);
    });
    (*a)["fault"] = (*b)["fault"] = "down";
    expected.insert("missing " + (*a)["cable_id"]);
    expected.insert("missing " + (*b)["cable_id"]);
  }
};

}  // namespace

TEST_CASE("verify/lab fault mixes: two pods, faults on every tier, each named exactly, nothing else") {
  require_lab();
  for (unsigned seed : {11u, 23u, 37u}) {
    LabVerify lab("examples/lab-2pod.yaml");
    Mix mix{lab, std::mt19937(seed), {}, {}};
    mix.dark("agg-core");
    mix.one_way("agg-core");
    mix.exchange("agg-core", false);  // between two cores of one plane
    mix.exchange("agg-core", true);   // across the planes
    mix.dark("tor-agg");
    mix.one_way("host-tor");
    mix.exchange("host-tor", false);  // two hosts' cables on one ToR
    mix.exchange_host_ends(false);    // at the hosts: two hosts' ends
    mix.exchange_host_ends(true);     // at a host: two NICs' ends
    mix.dark_nic();
    INFO("seed " << seed);
    auto report = lab.run(1);
    INFO(report.dump(2));
    CHECK(finding_lines(report) == mix.expected);
  }
}
