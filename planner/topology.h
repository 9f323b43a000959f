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
};

Topology derive_topology(const Spec& spec);

inline int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace hpn
