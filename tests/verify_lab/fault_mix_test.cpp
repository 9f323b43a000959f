// Hidden fault mixes on the two lab pods: faults on aggregation-core cables
// (dark, broken one way, exchanged between two cores of one plane and
// across the planes) beside faults on the lower tiers, drawn at random by
// seed on cables that share no device. verify --lab must name every one,
// with its kind and cables, and nothing else.
#include <random>

#include "lab_verify.h"

namespace {

using hpn::test::finding_lines;
using hpn::test::LabVerify;
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
};

}  // namespace

TEST_CASE("verify/lab fault mixes: two pods, faults on every tier, each named exactly, nothing else") {
  if (!LabVerify::usable()) return;
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
    INFO("seed " << seed);
    auto report = lab.run(1);
    INFO(report.dump(2));
    CHECK(finding_lines(report) == mix.expected);
  }
}
