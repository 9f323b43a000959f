#include "planner/layout.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hpn {

Layout::Layout(const Spec& spec, const Topology& t) : spec_(spec) {
  const auto& l = spec.layout;
  host_racks_ = ceil_div(t.hosts_per_segment, l.hosts_per_rack);
  slots_per_segment_ = host_racks_ + 1;
  rows_per_segment_ = ceil_div(slots_per_segment_, l.racks_per_row);
  network_slot_ = std::min(l.racks_per_row / 2, slots_per_segment_ - 1);
  agg_racks_per_plane_ = ceil_div(t.aggs_per_plane, l.aggs_per_rack);
  agg_rows_ = ceil_div(agg_racks_per_plane_ * t.planes, l.racks_per_row);
  rows_per_pod_ = t.max_segments * rows_per_segment_ + agg_rows_;
  first_half_ = (t.max_segments + 1) / 2;
  core_racks_per_plane_ = std::max(1, ceil_div(t.cores_per_plane, l.cores_per_rack));
}

int Layout::pod_row(int pod) const { return (pod % spec_.layout.pods_per_hall) * rows_per_pod_; }

RackSlot Layout::slot(int pod, int first_row, int index) const {
  const int per_row = spec_.layout.racks_per_row;
  return {pod / spec_.layout.pods_per_hall, first_row + index / per_row, index % per_row};
}

RackSlot Layout::host_rack(int pod, int segment, int rack) const {
  int row = pod_row(pod) + segment * rows_per_segment_ + (segment >= first_half_ ? agg_rows_ : 0);
  return slot(pod, row, rack < network_slot_ ? rack : rack + 1);
}

RackSlot Layout::network_rack(int pod, int segment) const {
  int row = pod_row(pod) + segment * rows_per_segment_ + (segment >= first_half_ ? agg_rows_ : 0);
  return slot(pod, row, network_slot_);
}

RackSlot Layout::agg_rack(int pod, int rack) const {
  return slot(pod, pod_row(pod) + first_half_ * rows_per_segment_, rack);
}

RackSlot Layout::core_rack(int rack) const {
  const auto& l = spec_.layout;
  // After the pods the core is sized for, built or not, so a new pod does not move it.
  const int pods = std::max(spec_.pods, spec_.core.pods_planned);
  int pods_in_hall = std::clamp(pods - l.core_hall * l.pods_per_hall, 0, l.pods_per_hall);
  const int per_row = l.racks_per_row;
  return {l.core_hall, pods_in_hall * rows_per_pod_ + rack / per_row, rack % per_row};
}

namespace {

int whole_metres(double metres) { return std::max(1, static_cast<int>(std::ceil(metres - 1e-9))); }

}  // namespace

int Layout::cord_to_row_panel(RackSlot slot, int ru) const {
  const auto& l = spec_.layout;
  const auto& m = spec_.media;
  return whole_metres((slot.position + 1) * l.rack_width_m + (l.rack_units - ru + 1) * m.vertical_m_per_ru +
                      m.slack_m);
}

int Layout::trunk_between_rows(int row_a, int row_b) const {
  return whole_metres(std::abs(row_a - row_b) * spec_.layout.row_pitch_m + spec_.media.slack_m);
}

int Layout::trunk_to_hall_panel(int row) const {
  return whole_metres((row + 1) * spec_.layout.row_pitch_m + spec_.media.slack_m);
}

int Layout::trunk_between_halls(int hall_a, int hall_b) const {
  return whole_metres(std::abs(hall_a - hall_b) * spec_.layout.hall_spacing_m + spec_.media.slack_m);
}

int Layout::cable_length(RackSlot a, int ru_a, RackSlot b, int ru_b) const {
  const auto& l = spec_.layout;
  const auto& m = spec_.media;
  double metres;
  if (a == b) {
    metres = std::abs(ru_a - ru_b) * m.vertical_m_per_ru + m.same_rack_slack_m;
  } else {
    double ax = a.hall * l.hall_spacing_m + a.position * l.rack_width_m;
    double bx = b.hall * l.hall_spacing_m + b.position * l.rack_width_m;
    double dy = std::abs(a.row - b.row) * l.row_pitch_m;
    double up = (l.rack_units - ru_a + 1 + l.rack_units - ru_b + 1) * m.vertical_m_per_ru;
    metres = std::abs(ax - bx) + dy + up + m.slack_m;
  }
  return whole_metres(metres);
}

}  // namespace hpn
