// The physical plant: how a fibre run too long for one cord is built from
// patch cords, patch panels and trunks (structured cabling, TIA-942), and
// which fibre, connector and polarity each part has.
//
// A fibre run between two rows whose direct length exceeds
// media.patch_beyond_m goes a-end cord -> the a row's panel -> trunk -> the
// z row's panel -> cord; between halls the trunk from the a row reaches its
// hall's panel, a trunk joins the two halls' panels, and a third reaches
// the z row. Runs inside a row, and copper, stay one cord. Panel ports and
// trunk lanes are taken in plan order, so a segment or pod added later
// takes new ports and leaves the ones planned before where they were.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "blueprint/model.h"
#include "planner/layout.h"
#include "planner/spec.h"

namespace hpn {

// The Warning::cause of a multimode run longer than multimode reaches.
inline constexpr std::string_view kMultimodeBeyondReach = "mmf-beyond-reach";

std::string_view to_string(Connector connector);  // "MPO-12", "MPO-16", "LC-duplex"
bool parse_connector(std::string_view text, Connector& out);
// The connector of the common 200G/400G optics: SR4 (MPO-12) and SR8
// (MPO-16) on multimode, DR4 (MPO-12) and FR4 (LC duplex) on single-mode.
Connector default_connector(const std::string& media, int speed_gbps);
// TIA-568.3-D: parallel optics over MPO keep transmit lane 1 on receive lane
// 1 with Type B (key-up to key-up) parts throughout, an odd number of them
// end to end (1, 3 or 5 legs here); duplex LC cords are A-to-B.
std::string_view polarity_of(Connector connector);
bool is_fibre(const std::string& media);
// The connector a cable of this media and speed takes: its optic's, as
// media.optics names it, else default_connector().
Connector connector_for(const MediaSpec& media, const std::string& medium, int speed_gbps);

class Plant {
 public:
  Plant(const Spec& spec, const Layout& layout, Blueprint& bp) : spec_(spec), layout_(layout), bp_(bp) {}

  // Does a run of this media between these racks, `direct_m` long as one
  // cord, go through the panels?
  bool patches(const std::string& media, RackSlot a, RackSlot z, int direct_m) const;

  // The length of the patched channel between the two ends, every leg
  // included: what the optics must reach, and what picks the media.
  int channel_length(RackSlot a, int ru_a, RackSlot z, int ru_z) const;

  // Adds the legs of the run of cable `cable` (its index in bp.cables, the
  // cable itself still being built) from (a, ru_a) to (z, ru_z), taking
  // panel ports and trunk lanes, for the cable's media; sets first_leg and legs.
  void route(Cable& cable, int index, RackSlot a, int ru_a, RackSlot z, int ru_z);

 private:
  int row_panel(int hall, int row);
  int hall_panel(int hall);
  int take_port(int panel) { return ++bp_.patch_panels[panel].ports; }
  // A lane of a trunk from panel a to panel z for this media and connector:
  // the trunk being filled, or a new one once it is full. Returns the trunk.
  int take_lane(int a, int z, const Cable& cable, int length_m, int& lane);
  void add_leg(int index, int from_panel, int from_port, int to_panel, int to_port, int trunk, int lane,
               int length_m);

  const Spec& spec_;
  const Layout& layout_;
  Blueprint& bp_;
  std::map<std::pair<int, int>, int> row_panels_;  // (hall, row) -> panel
  std::map<int, int> hall_panels_;                 // hall -> panel
  std::map<std::tuple<int, int, std::string, std::string>, int> open_trunk_;  // a, z, media, connector
  std::map<int, int> trunks_in_hall_;
};

}  // namespace hpn
