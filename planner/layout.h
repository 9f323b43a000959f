// The floor plan: which hall, row and rack position every device sits in, and
// how long a cable between two of them must be.
//
// A pod fills consecutive rows of its hall. Each segment is a block of rows
// holding its host racks and one network rack (ToRs and front-end leaves) in
// the middle of its first row; the aggregation row sits between the two
// halves of the segments, so no ToR is far from its aggregation switches. The
// core row follows the pods of the core hall.
//
// Every row is reserved for the largest pod the design allows: a pod takes
// the rows of Topology::max_segments segments (the aggregation row after the
// first half of them), and the core row comes after the core.pods_planned
// pods the core hall can hold. A segment or pod added later lands in rows
// kept free for it; no rack planned before moves.
#pragma once

#include "planner/spec.h"
#include "planner/topology.h"

namespace hpn {

struct RackSlot {
  int hall = 0;
  int row = 0;
  int position = 0;
  auto operator<=>(const RackSlot&) const = default;
};

class Layout {
 public:
  Layout(const Spec& spec, const Topology& topology);

  int host_racks_per_segment() const { return host_racks_; }
  RackSlot host_rack(int pod, int segment, int rack) const;
  RackSlot network_rack(int pod, int segment) const;
  RackSlot agg_rack(int pod, int rack) const;  // racks of plane 1 first, then plane 2
  RackSlot core_rack(int rack) const;
  int agg_racks_per_plane() const { return agg_racks_per_plane_; }
  int core_racks_per_plane() const { return core_racks_per_plane_; }

  // Metres of cable between a device at (a, ru_a) and one at (b, ru_b):
  // Manhattan distance between the racks, the vertical runs from both units
  // to the overhead tray, and slack; inside one rack, the vertical distance
  // and the in-rack slack. Rounded up to a whole metre.
  int cable_length(RackSlot a, int ru_a, RackSlot b, int ru_b) const;

  // The structured cabling's geometry (planner/plant.h). Each row's patch
  // panel sits in the overhead tray at the row's head, before position 0;
  // each hall's panel at the head of the hall, before row 0. Trunks run
  // along the row heads; all lengths carry media.slack_m and are rounded up.
  int cord_to_row_panel(RackSlot slot, int ru) const;  // device to its row's panel
  int trunk_between_rows(int row_a, int row_b) const;  // two row panels of one hall
  int trunk_to_hall_panel(int row) const;              // a row's panel to its hall's
  int trunk_between_halls(int hall_a, int hall_b) const;

 private:
  RackSlot slot(int pod, int first_row, int index) const;
  int pod_row(int pod) const;

  const Spec& spec_;
  int host_racks_ = 0;
  int slots_per_segment_ = 0;
  int rows_per_segment_ = 0;
  int network_slot_ = 0;
  int agg_racks_per_plane_ = 0;
  int agg_rows_ = 0;
  int rows_per_pod_ = 0;
  int first_half_ = 0;
  int core_racks_per_plane_ = 0;
};

}  // namespace hpn
