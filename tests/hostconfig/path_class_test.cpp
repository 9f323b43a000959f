// Path classes: their numbers for the default pod computed by hand, and
// their longest paths checked against every real path of a small fabric.
#include <algorithm>
#include <map>
#include <set>

#include "hostconfig/path_class.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::test;

// Defaults of the transport section: 600 ns a switch, 500 ns a NIC, 5 ns/m.
PathTiming default_timing(int gbps = 400) { return {600, 500, 5.0, gbps}; }

int longest(const Blueprint& bp, CableKind kind) {
  int most = 0;
  for (const auto& c : bp.cables) {
    if (c.kind == kind) most = std::max(most, c.length_m);
  }
  return most;
}

TEST_CASE("profile/path-classes: the default pod's three classes, RTT and BDP by hand") {
  const Blueprint& bp = default_pod().blueprint;
  // The plan's cable lengths, read here straight off the cables: host-ToR at
  // most 15 m; ToR-agg, through the patch panels past 30 m (the whole
  // channel: cords and trunk), at most 62 m (segment 0, the first row) and
  // 57 m from segment 1, the next-longest way up.
  REQUIRE(longest(bp, CableKind::host_tor) == 15);
  REQUIRE(longest(bp, CableKind::tor_agg) == 62);
  auto classes = path_classes(bp, default_timing());
  REQUIRE(classes.size() == 3);  // one pod: no class through the core

  // same-segment: host - ToR - host over 15 + 15 m.
  //   one way = 1 x 600 + 2 x 500 + 30 x 5 = 1750 ns, RTT = 3500 ns
  //   BDP at 400 Gb/s (50 B/ns) = 3500 x 50 = 175,000 B
  CHECK(classes[0].scope == PathScope::same_segment);
  CHECK(classes[0].hops == 1);
  CHECK(classes[0].length_m == 30);
  CHECK(classes[0].rtt_ns == 3500);
  CHECK(classes[0].bdp_bytes == 175000);

  // same-pod: host - ToR - agg - ToR - host, up from segment 0 (15 + 62 m:
  // the uplink's channel through the two rows' patch panels), down into
  // segment 1 (57 + 15 m) = 149 m.
  //   one way = 3 x 600 + 2 x 500 + 149 x 5 = 3545 ns, RTT = 7090 ns
  //   BDP = 7090 x 50 = 354,500 B
  // cross-rail: two hosts of segment 0 on two rails, host - ToR of rail r -
  // agg - ToR of rail r' - host: 15 + 62 + 62 + 15 = 154 m (two ToRs of one
  // plane in segment 0 each have a 62 m uplink channel).
  //   one way = 3 x 600 + 2 x 500 + 154 x 5 = 3570 ns, RTT = 7140 ns
  //   BDP = 7140 x 50 = 357,000 B
  CHECK(classes[1].scope == PathScope::cross_rail);
  CHECK(classes[1].hops == 3);
  CHECK(classes[1].length_m == 154);
  CHECK(classes[1].rtt_ns == 7140);
  CHECK(classes[1].bdp_bytes == 357000);
  REQUIRE(classes[1].legs.size() == 4);
  CHECK(classes[1].legs[1].kind == CableKind::tor_agg);
  CHECK(classes[1].legs[2].kind == CableKind::tor_agg);
  CHECK(classes[1].legs[1].cable != classes[1].legs[2].cable);

  CHECK(classes[2].scope == PathScope::same_pod);
  CHECK(classes[2].hops == 3);
  CHECK(classes[2].length_m == 149);
  CHECK(classes[2].rtt_ns == 7090);
  CHECK(classes[2].bdp_bytes == 354500);
  REQUIRE(classes[2].legs.size() == 4);
  std::vector<int> lengths;
  for (const auto& l : classes[2].legs) lengths.push_back(l.length_m);
  CHECK(lengths == std::vector<int>{15, 62, 57, 15});
  CHECK(classes[2].legs[1].kind == CableKind::tor_agg);
}

TEST_CASE("profile/path-classes: RTT and BDP arithmetic") {
  // 5 hops, 700 m: 2 x (3000 + 1000 + 3500) = 15,000 ns; at 400 Gb/s 750,000 B.
  CHECK(round_trip_ns(5, 700, default_timing()) == 15000);
  CHECK(bdp_bytes(15000, 400) == 750000);
  // Fractional nanoseconds round up: 2 x (0 + 0 + 1 x 0.3) = 0.6 -> 1 ns.
  CHECK(round_trip_ns(0, 1, {0, 0, 0.3, 400}) == 1);
  CHECK(bdp_bytes(1, 200) == 25);
  CHECK(bdp_bytes(3, 1) == 1);  // 3 bits: one byte, rounded up
}

// Every real rail-to-rail path between two hosts of a fabric: through the
// cables, switch by switch; the longest of each class.
std::map<PathScope, int> longest_real_paths(const Blueprint& bp) {
  std::map<std::tuple<int, int, int>, std::pair<int, int>> host_port;  // (host, nic, port) -> (ToR, m)
  std::map<int, std::vector<std::pair<int, int>>> up;                  // switch -> (next tier, m)
  for (const auto& c : bp.cables) {
    if (c.kind == CableKind::host_tor) {
      int nic = c.a_port[3] - '0', port = c.a_port[5] - '0';  // "nicNpP"
      host_port[{c.a_device, nic, port}] = {c.z_device, c.length_m};
    } else if (c.kind == CableKind::tor_agg || c.kind == CableKind::agg_core) {
      up[c.a_device].push_back({c.z_device, c.length_m});
    }
  }
  auto hall = [&](const Device& d) { return bp.racks[d.rack].hall; };
  std::vector<int> hosts;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].role == Role::host) hosts.push_back(static_cast<int>(i));
  }
  std::map<PathScope, int> out;
  for (size_t x = 0; x < hosts.size(); ++x) {
    for (size_t y = x + 1; y < hosts.size(); ++y) {
      const Device& a = bp.devices[hosts[x]];
      const Device& b = bp.devices[hosts[y]];
      PathScope scope = a.pod != b.pod ? (hall(a) != hall(b) ? PathScope::other_hall : PathScope::same_hall)
                        : a.segment != b.segment ? PathScope::same_pod
                                                 : PathScope::same_segment;
      // The same rail (nic_a == nic_b) in every class; two rails of one
      // segment are the cross-rail class. The port is the plane.
      for (int nic_a = 1; nic_a <= 2; ++nic_a) {
        for (int nic_b = 1; nic_b <= 2; ++nic_b) {
        PathScope cls = scope;
        if (nic_a != nic_b) {
          if (scope != PathScope::same_segment) continue;
          cls = PathScope::cross_rail;
        }
        for (int port = 1; port <= 2; ++port) {
          auto [ta, la] = host_port.at({hosts[x], nic_a, port});
          auto [tb, lb] = host_port.at({hosts[y], nic_b, port});
          int best = -1;
          if (cls == PathScope::same_segment) {
            REQUIRE(ta == tb);
            best = la + lb;
          }
          for (auto [agg_a, ma] : up[ta]) {
            for (auto [agg_b, mb] : up[tb]) {
              if ((cls == PathScope::same_pod || cls == PathScope::cross_rail) && agg_a == agg_b) {
                best = std::max(best, la + ma + mb + lb);
              }
              if (cls >= PathScope::same_hall) {
                for (auto [core_a, ca] : up[agg_a]) {
                  for (auto [core_b, cb] : up[agg_b]) {
                    if (core_a == core_b) best = std::max(best, la + ma + ca + cb + mb + lb);
                  }
                }
              }
            }
          }
          REQUIRE(best >= 0);  // every pair is connected within its class's hops
          out[cls] = std::max(out[cls], best);
        }
        }
      }
    }
  }
  return out;
}

TEST_CASE("profile/path-classes: pods in two halls give all five classes, each bounding its real paths") {
  const Blueprint& bp = halls_fabric().blueprint;
  auto classes = path_classes(bp, default_timing());
  REQUIRE(classes.size() == 5);
  std::vector<PathScope> scopes;
  for (const auto& c : classes) scopes.push_back(c.scope);
  CHECK(scopes == std::vector{PathScope::same_segment, PathScope::cross_rail, PathScope::same_pod,
                              PathScope::same_hall, PathScope::other_hall});
  CHECK(classes[0].hops == 1);
  CHECK(classes[1].hops == 3);
  CHECK(classes[2].hops == 3);
  CHECK(classes[3].hops == 5);
  CHECK(classes[4].hops == 5);
  CHECK(classes[1].rtt_ns > classes[0].rtt_ns);
  for (size_t i = 3; i < classes.size(); ++i) CHECK(classes[i].rtt_ns > classes[i - 1].rtt_ns);
  // Pod 2 is 300 m away: the other-hall path has its long way to the core.
  CHECK(classes[4].length_m > classes[3].length_m + 300);

  auto real = longest_real_paths(bp);
  REQUIRE(real.size() == 5);
  for (const auto& c : classes) {
    INFO(to_string(c.scope) << ": class " << c.length_m << " m, longest real path " << real[c.scope] << " m");
    // An upper bound of every path of the class...
    CHECK(c.length_m >= real[c.scope]);
    // ...and not a loose one: within a few metres of the longest real path.
    CHECK(c.length_m - real[c.scope] <= 3);
  }
}

TEST_CASE("profile/path-classes: each leg names a real cable of its kind and length") {
  const Blueprint& bp = halls_fabric().blueprint;
  std::map<std::string, const Cable*> by_id;
  for (const auto& c : bp.cables) by_id[c.id] = &c;
  for (const auto& cls : path_classes(bp, default_timing())) {
    int sum = 0;
    for (const auto& leg : cls.legs) {
      const Cable* c = by_id.at(leg.cable);
      CHECK(c->kind == leg.kind);
      CHECK(c->length_m == leg.length_m);
      sum += leg.length_m;
    }
    CHECK(sum == cls.length_m);
    CHECK(cls.legs.size() == static_cast<size_t>(cls.hops + 1));
  }
}

}  // namespace
