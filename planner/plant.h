// The physical plant: how a fibre run too long for one cord is built from
// patch cords, patch panels and trunks (structured cabling, TIA-942), and
// which fibre, connector and polarity each part has.
//
// A fibre run between two rows whose direct length exceeds
// media.patch_beyond_m goes a-end cord -> the a row's panel -> trunk -> the
// z row's panel -> cord; between halls the trunk from the a row reaches its
// hall's panel, a trunk joins the two halls' panels, and a third reaches
// the z row. Runs inside a row, and copper, stay one cord. Each kind of
// cable has its own panel at a row or hall ("PP-H0-R16-A" for ToR uplinks,
// "PP-H0-R16-C" for the core's). Every run between rows holds its panel
// ports, in plan order, patched or not (PanelPorts), and a trunk lane
// follows its port: a segment or pod added later takes new ports, and a
// run that becomes patched (more slack) moves no other run.
#pragma once

#include <map>
#include <set>
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

// The panel ports a run between two rows holds, patched or not: taken for
// every such run in plan order, so whether a run is patched (its length,
// the slack) never moves another run's ports. ha/hz only between halls.
struct PanelPorts {
  int pa = kNone, port_a = kNone;   // the a row's panel
  int ha = kNone, port_ha = kNone;  // the a hall's panel
  int hz = kNone, port_hz = kNone;  // the z hall's panel
  int pz = kNone, port_z = kNone;   // the z row's panel
  bool held() const { return pa != kNone; }
};

class Plant {
 public:
  Plant(const Spec& spec, const Layout& layout, Blueprint& bp) : spec_(spec), layout_(layout), bp_(bp) {}

  // The ports of a run from a to z; none (held() false) inside one row.
  PanelPorts hold(CableKind kind, RackSlot a, RackSlot z);

  // Does a run of this media between these racks, `direct_m` long as one
  // cord, go through the panels?
  bool patches(const std::string& media, RackSlot a, RackSlot z, int direct_m) const;

  // The length of the patched channel between the two ends, every leg
  // included: what the optics must reach, and what picks the media.
  int channel_length(RackSlot a, int ru_a, RackSlot z, int ru_z) const;

  // Adds the legs of the run of cable `cable` (its index in bp.cables, the
  // cable itself still being built) from (a, ru_a) to (z, ru_z) through
  // `ports`, with lanes of the trunks between; sets first_leg and legs.
  void route(Cable& cable, int index, const PanelPorts& ports, RackSlot a, int ru_a, RackSlot z, int ru_z);

 private:
  int row_panel(int hall, int row, CableKind kind);
  int hall_panel(int hall, CableKind kind);
  int take_port(int panel) { return ++bp_.patch_panels[panel].ports; }
  // The lane of the trunk from panel a to panel z that serves port_a of a:
  // each trunk serves a block of media.trunk_lanes ports of its a panel,
  // lane n port n of the block, so a lane is as stable as its port.
  int take_lane(int a, int port_a, int z, const Cable& cable, int length_m, int& lane);
  void add_leg(int index, int from_panel, int from_port, int to_panel, int to_port, int trunk, int lane,
               int length_m);

  const Spec& spec_;
  const Layout& layout_;
  Blueprint& bp_;
  std::map<std::tuple<int, int, CableKind>, int> row_panels_;  // (hall, row, kind) -> panel
  std::map<std::pair<int, CableKind>, int> hall_panels_;         // (hall, kind) -> panel
  std::map<std::tuple<int, int, int, bool, int>, int> trunk_of_;  // a, z, block, single-mode, connector
  std::set<std::string> trunk_names_;
};

}  // namespace hpn
