#include "hostconfig/path_class.h"

#include <cmath>
#include <map>
#include <optional>

namespace hpn {

std::string_view to_string(PathScope scope) {
  switch (scope) {
    case PathScope::same_segment: return "same-segment";
    case PathScope::cross_rail: return "cross-rail";
    case PathScope::same_pod: return "same-pod";
    case PathScope::same_hall: return "same-hall";
    case PathScope::other_hall: return "other-hall";
  }
  return "?";
}

PathTiming path_timing(const TransportSpec& t, int nic_gbps) {
  return {t.switch_latency_ns, t.nic_latency_ns, t.fibre_ns_per_m, nic_gbps};
}

int64_t round_trip_ns(int hops, int length_m, const PathTiming& t) {
  double one_way = double(hops) * t.switch_latency_ns + 2.0 * t.nic_latency_ns +
                   double(length_m) * t.fibre_ns_per_m;
  return static_cast<int64_t>(std::ceil(2.0 * one_way - 1e-9));
}

int64_t bdp_bytes(int64_t rtt_ns, int nic_gbps) {
  // Gb/s = bits per ns; / 8 for bytes.
  return (rtt_ns * nic_gbps + 7) / 8;
}

namespace {

// The longest cable of one leg of a group, and who owns it.
struct Longest {
  int length = -1;
  int cable = -1;
  int owner = -1;  // device the cable belongs to (the host, for host cables)
  bool found() const { return cable >= 0; }
  void offer(int len, int index, int dev) {
    if (len > length) *this = {len, index, dev};
  }
};

struct SegmentLegs {
  Longest host, host_other;  // the longest host cable, and the longest of another host
  Longest uplink;            // ToR to aggregation
  std::map<std::pair<int, int>, Longest> uplink_by_plane_rail;  // plane, rail -> longest uplink
  int sum() const { return host.length + uplink.length; }
  bool reaches_aggs() const { return host.found() && uplink.found(); }
};

struct PodLegs {
  int hall = -1;
  Longest core;  // aggregation to core
  std::optional<std::pair<int, int>> best_segment;  // the segment with the longest way up
  int up = -1;   // its host + uplink + core length
};

using SegmentKey = std::pair<int, int>;  // pod, segment

class Classifier {
 public:
  Classifier(const Blueprint& bp, const PathTiming& timing) : bp_(bp), timing_(timing) {}

  std::vector<PathClass> run() {
    collect();
    std::vector<PathClass> out;
    if (auto c = same_segment()) out.push_back(*c);
    if (auto c = cross_rail()) out.push_back(*c);
    if (auto c = same_pod()) out.push_back(*c);
    if (auto c = across_pods(false)) out.push_back(*c);
    if (auto c = across_pods(true)) out.push_back(*c);
    return out;
  }

 private:
  void collect() {
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      const Cable& c = bp_.cables[i];
      const Device& a = bp_.devices[c.a_device];
      int index = static_cast<int>(i);
      if (c.kind == CableKind::host_tor) {
        segments_[{a.pod, a.segment}].host.offer(c.length_m, index, c.a_device);
      } else if (c.kind == CableKind::tor_agg) {
        SegmentLegs& s = segments_[{a.pod, a.segment}];
        s.uplink.offer(c.length_m, index, c.a_device);
        s.uplink_by_plane_rail[{a.plane, a.rail}].offer(c.length_m, index, c.a_device);
      } else if (c.kind == CableKind::agg_core) {
        pods_[a.pod].core.offer(c.length_m, index, c.a_device);
      }
    }
    // The second host: the longest cable of any host but the first's.
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      const Cable& c = bp_.cables[i];
      if (c.kind != CableKind::host_tor) continue;
      const Device& a = bp_.devices[c.a_device];
      SegmentLegs& s = segments_[{a.pod, a.segment}];
      if (c.a_device != s.host.owner) s.host_other.offer(c.length_m, static_cast<int>(i), c.a_device);
    }
    // A pod's hall is where its hosts stand.
    for (const Device& d : bp_.devices) {
      if (d.role != Role::host || d.rack == kNone) continue;
      PodLegs& p = pods_[d.pod];
      if (p.hall < 0) p.hall = bp_.racks[d.rack].hall;
    }
    for (const auto& [key, s] : segments_) {
      PodLegs& p = pods_[key.first];
      if (!s.reaches_aggs() || !p.core.found()) continue;
      int up = s.sum() + p.core.length;
      if (up > p.up) {
        p.up = up;
        p.best_segment = key;
      }
    }
  }

  PathLeg leg(const Longest& l) const {
    const Cable& c = bp_.cables[l.cable];
    return {c.kind, c.id, c.length_m};
  }

  PathClass make(PathScope scope, int hops, std::vector<PathLeg> legs) const {
    PathClass p;
    p.scope = scope;
    p.hops = hops;
    p.legs = std::move(legs);
    for (const auto& l : p.legs) p.length_m += l.length_m;
    p.rtt_ns = round_trip_ns(hops, p.length_m, timing_);
    p.bdp_bytes = bdp_bytes(p.rtt_ns, timing_.nic_gbps);
    return p;
  }

  // Two hosts of one segment: each one's longest cable to the ToR pair.
  std::optional<PathClass> same_segment() const {
    const SegmentLegs* best = nullptr;
    for (const auto& [key, s] : segments_) {
      if (!s.host.found() || !s.host_other.found()) continue;
      if (!best || s.host.length + s.host_other.length > best->host.length + best->host_other.length) {
        best = &s;
      }
    }
    if (!best) return std::nullopt;
    return make(PathScope::same_segment, 1, {leg(best->host), leg(best->host_other)});
  }

  // Two hosts of one segment on two rails: up from the ToR of one rail to an
  // aggregation switch of its plane, down to the ToR of the other rail in
  // the same plane (a plane's ToRs all reach all its aggregation switches).
  std::optional<PathClass> cross_rail() const {
    std::optional<PathClass> best;
    for (const auto& [key, s] : segments_) {
      if (!s.host.found() || !s.host_other.found()) continue;
      // The two longest uplinks of one plane on two different rails.
      for (auto a = s.uplink_by_plane_rail.begin(); a != s.uplink_by_plane_rail.end(); ++a) {
        for (auto b = std::next(a); b != s.uplink_by_plane_rail.end(); ++b) {
          if (b->first.first != a->first.first) break;  // the map is by plane first: a's plane is done
          PathClass c = make(PathScope::cross_rail, 3,
                             {leg(s.host), leg(a->second), leg(b->second), leg(s.host_other)});
          if (!best || c.length_m > best->length_m) best = std::move(c);
        }
      }
    }
    return best;
  }

  // Two segments of one pod: up through one, down through the other.
  std::optional<PathClass> same_pod() const {
    std::optional<std::pair<SegmentKey, SegmentKey>> best;
    int best_len = -1;
    for (auto a = segments_.begin(); a != segments_.end(); ++a) {
      if (!a->second.reaches_aggs()) continue;
      for (auto b = std::next(a); b != segments_.end(); ++b) {
        if (b->first.first != a->first.first || !b->second.reaches_aggs()) continue;
        int len = a->second.sum() + b->second.sum();
        if (len > best_len) {
          best_len = len;
          best = std::pair{a->first, b->first};
        }
      }
    }
    if (!best) return std::nullopt;
    const SegmentLegs& a = segments_.at(best->first);
    const SegmentLegs& b = segments_.at(best->second);
    return make(PathScope::same_pod, 3, {leg(a.host), leg(a.uplink), leg(b.uplink), leg(b.host)});
  }

  // Two pods, through the core: in one hall, or in two.
  std::optional<PathClass> across_pods(bool other_hall) const {
    std::optional<std::pair<int, int>> best;
    int best_len = -1;
    for (auto a = pods_.begin(); a != pods_.end(); ++a) {
      if (!a->second.best_segment) continue;
      for (auto b = std::next(a); b != pods_.end(); ++b) {
        if (!b->second.best_segment || (a->second.hall != b->second.hall) != other_hall) continue;
        int len = a->second.up + b->second.up;
        if (len > best_len) {
          best_len = len;
          best = std::pair{a->first, b->first};
        }
      }
    }
    if (!best) return std::nullopt;
    const PodLegs& pa = pods_.at(best->first);
    const PodLegs& pb = pods_.at(best->second);
    const SegmentLegs& a = segments_.at(*pa.best_segment);
    const SegmentLegs& b = segments_.at(*pb.best_segment);
    return make(other_hall ? PathScope::other_hall : PathScope::same_hall, 5,
                {leg(a.host), leg(a.uplink), leg(pa.core), leg(pb.core), leg(b.uplink), leg(b.host)});
  }

  const Blueprint& bp_;
  PathTiming timing_;
  std::map<SegmentKey, SegmentLegs> segments_;
  std::map<int, PodLegs> pods_;
};

}  // namespace

std::vector<PathClass> path_classes(const Blueprint& bp, const PathTiming& timing) {
  return Classifier(bp, timing).run();
}

}  // namespace hpn
