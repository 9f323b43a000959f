#include "planner/topology.h"

#include <algorithm>

namespace hpn {

Topology derive_topology(const Spec& spec) {
  Topology t;
  t.pods = spec.pods;
  t.segments = spec.pod.segments;
  t.planes = spec.pod.planes;
  t.aggs_per_plane = spec.aggregation.switches_per_plane;
  t.rails = spec.host.backend_nics;
  t.sides = spec.segment.dual_tor ? 2 : 1;
  t.hosts_per_segment = spec.segment.hosts();
  t.tor_ports_per_host = spec.segment.dual_tor ? 1 : spec.host.ports_per_nic;
  t.tor_host_ports = t.hosts_per_segment * t.tor_ports_per_host;
  t.tor_host_cages = ceil_div(t.tor_host_ports, spec.tor.breakout);
  t.tors_per_plane_in_segment = spec.pod.planes > 0 ? spec.segment.tors / spec.pod.planes : 0;
  t.max_segments = t.segments;
  if (t.tors_per_plane_in_segment > 0) {
    int room = (spec.aggregation.radix - spec.aggregation.uplinks) / t.tors_per_plane_in_segment;
    t.max_segments = std::max(t.segments, room);
  }
  if (spec.core.pods_planned > 0) t.core_ports_per_pod = spec.core.radix / spec.core.pods_planned;
  if (t.core_ports_per_pod > 0) {
    t.cores_per_plane = static_cast<int>(int64_t{spec.aggregation.switches_per_plane} *
                                         spec.aggregation.uplinks / t.core_ports_per_pod);
  }
  if (spec.frontend.enabled && spec.host.frontend_nic) {
    t.fe_sides = spec.host.ports_per_nic >= 2 ? 2 : 1;
    t.fe_pairs_per_segment = ceil_div(t.hosts_per_segment, spec.frontend.hosts_per_leaf_pair);
    t.fe_host_cages = ceil_div(spec.frontend.hosts_per_leaf_pair, spec.frontend.breakout);
  }
  return t;
}

int64_t Topology::hosts() const { return int64_t{pods} * segments * hosts_per_segment; }
int64_t Topology::tors() const { return int64_t{pods} * segments * rails * sides; }
int64_t Topology::aggs() const { return int64_t{pods} * planes * aggs_per_plane; }
int64_t Topology::cores() const { return int64_t{planes} * cores_per_plane; }
int64_t Topology::frontend_leaves() const {
  return int64_t{pods} * segments * fe_pairs_per_segment * fe_sides;
}

}  // namespace hpn
