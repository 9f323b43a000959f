// Numbers derived from a pod spec: how many of everything, and which port
// goes where. Pure arithmetic shared by the design check and the expansion.
#pragma once

#include <cstdint>

#include "planner/spec.h"

namespace hpn {

struct Topology {
  int rails = 0;                 // back-end NICs per host = ToR pairs (or ToRs) per segment
  int sides = 0;                 // ToRs per rail: 2 with dual-ToR, else 1
  int hosts_per_segment = 0;
  int tor_ports_per_host = 0;    // a ToR's ports toward one host: 1 dual-ToR, else ports_per_nic
  int tor_host_ports = 0;        // host-facing (sub)ports of one ToR
  int tor_host_cages = 0;        // cages they occupy after breakout
  int tors_per_plane_in_segment = 0;
  int cores_per_plane = 0;
  int core_ports_per_pod = 0;    // the size of each pod's port group on a core switch
  int fe_pairs_per_segment = 0;  // front-end leaf pairs
  int fe_host_cages = 0;
  int fe_sides = 0;

  int64_t hosts() const;         // over the whole fabric
  int64_t tors() const;
  int64_t aggs() const;
  int64_t cores() const;
  int64_t frontend_leaves() const;

  int pods = 0, segments = 0, planes = 0, aggs_per_plane = 0;

  // The segments a pod has room for: as many as its aggregation switches
  // have downlinks for ((aggregation.radix - aggregation.uplinks) / ToRs per
  // plane and segment), never fewer than it has. Every pod's rows, node IDs,
  // ASNs, subnets, loopbacks and link addresses are a block sized for this
  // many segments, so a segment or a pod added later takes only what was set
  // aside for it and nothing planned before moves (hpn-pod.yaml(5),
  // "ALLOCATION").
  int max_segments = 0;
  int tors_per_segment() const { return rails * sides; }
  int leaves_per_segment() const { return fe_pairs_per_segment * fe_sides; }

  // Positions: the index of a thing among all of its kind the fabric could
  // hold with every built pod full. Node IDs and ASNs are first + position.
  int64_t segment_position(int pod, int segment) const {
    return int64_t{pod} * max_segments + segment;
  }
  int64_t tor_position(int pod, int segment, int rail, int side) const {
    return segment_position(pod, segment) * tors_per_segment() + (rail - 1) * sides + side;
  }
  int64_t leaf_position(int pod, int segment, int pair, int side) const {
    return (segment_position(pod, segment) * fe_pairs_per_segment + pair) * fe_sides + side;
  }
  int64_t host_position(int pod, int segment, int host) const {
    return segment_position(pod, segment) * hosts_per_segment + host;
  }
  int64_t agg_position(int pod, int plane, int index) const {
    return (int64_t{pod} * planes + plane - 1) * aggs_per_plane + index;
  }
  int64_t core_position(int plane, int index) const {
    return int64_t{plane - 1} * cores_per_plane + index;
  }
  // Loopbacks: the cores, then a block per pod: its aggregation switches,
  // then each segment's ToRs and front-end leaves.
  int64_t pod_switch_block() const {
    return int64_t{planes} * aggs_per_plane + int64_t{max_segments} * (tors_per_segment() + leaves_per_segment());
  }
  int64_t agg_switch_position(int pod, int plane, int index) const {
    return cores() + pod * pod_switch_block() + int64_t{plane - 1} * aggs_per_plane + index;
  }
  int64_t segment_switch_position(int pod, int segment, int in_segment) const {
    return cores() + pod * pod_switch_block() + int64_t{planes} * aggs_per_plane +
           int64_t{segment} * (tors_per_segment() + leaves_per_segment()) + in_segment;
  }
  // What those positions span over `pods` built pods: the sizes the ranges
  // and pools of the spec must hold.
  int64_t tor_span() const { return segment_position(pods, 0) * tors_per_segment(); }
  int64_t leaf_span() const { return segment_position(pods, 0) * leaves_per_segment(); }
  int64_t host_span() const { return segment_position(pods, 0) * hosts_per_segment; }
  int64_t switch_span() const { return cores() + pods * pod_switch_block(); }
};

Topology derive_topology(const Spec& spec);

inline int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace hpn
