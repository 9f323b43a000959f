#include "planner/plant.h"

#include <fmt/format.h>

#include "planner/bom.h"
#include "planner/naming.h"

namespace hpn {

std::string_view to_string(Connector connector) {
  switch (connector) {
    case Connector::mpo12: return "MPO-12";
    case Connector::mpo16: return "MPO-16";
    case Connector::lc_duplex: return "LC-duplex";
  }
  return "?";
}

bool parse_connector(std::string_view text, Connector& out) {
  for (Connector c : {Connector::mpo12, Connector::mpo16, Connector::lc_duplex}) {
    if (text == to_string(c)) {
      out = c;
      return true;
    }
  }
  return false;
}

Connector default_connector(const std::string& media, int speed_gbps) {
  if (media == "smf") return speed_gbps >= 400 ? Connector::mpo12 : Connector::lc_duplex;
  return speed_gbps >= 400 ? Connector::mpo16 : Connector::mpo12;
}

std::string_view polarity_of(Connector connector) { return connector == Connector::lc_duplex ? "A-to-B" : "B"; }

bool is_fibre(const std::string& media) { return media == "mmf" || media == "smf"; }

Connector connector_for(const MediaSpec& media, const std::string& medium, int speed_gbps) {
  for (const auto& o : media.optics) {
    if (o.media == medium && o.speed_gbps == speed_gbps) return o.connector;
  }
  return default_connector(medium, speed_gbps);
}

bool Plant::patches(const std::string& media, RackSlot a, RackSlot z, int direct_m) const {
  if (!is_fibre(media) || direct_m <= spec_.media.patch_beyond_m) return false;
  return a.hall != z.hall || a.row != z.row;
}

int Plant::channel_length(RackSlot a, int ru_a, RackSlot z, int ru_z) const {
  int metres = layout_.cord_to_row_panel(a, ru_a) + layout_.cord_to_row_panel(z, ru_z);
  if (a.hall == z.hall) return metres + layout_.trunk_between_rows(a.row, z.row);
  return metres + layout_.trunk_to_hall_panel(a.row) + layout_.trunk_between_halls(a.hall, z.hall) +
         layout_.trunk_to_hall_panel(z.row);
}

int Plant::row_panel(int hall, int row, CableKind kind) {
  auto [it, fresh] = row_panels_.emplace(std::tuple{hall, row, kind}, int(bp_.patch_panels.size()));
  if (fresh) bp_.patch_panels.push_back({fmt::format("PP-H{}-R{:02}-{}", hall, row, cable_kind_code(kind)), hall, row, 0});
  return it->second;
}

int Plant::hall_panel(int hall, CableKind kind) {
  auto [it, fresh] = hall_panels_.emplace(std::pair{hall, kind}, int(bp_.patch_panels.size()));
  if (fresh) bp_.patch_panels.push_back({fmt::format("PP-H{}-{}", hall, cable_kind_code(kind)), hall, kNone, 0});
  return it->second;
}

PanelPorts Plant::hold(CableKind kind, RackSlot a, RackSlot z) {
  PanelPorts p;
  if (a.hall == z.hall && a.row == z.row) return p;
  p.pa = row_panel(a.hall, a.row, kind);
  p.port_a = take_port(p.pa);
  if (a.hall != z.hall) {
    p.ha = hall_panel(a.hall, kind);
    p.port_ha = take_port(p.ha);
    p.hz = hall_panel(z.hall, kind);
    p.port_hz = take_port(p.hz);
  }
  p.pz = row_panel(z.hall, z.row, kind);
  p.port_z = take_port(p.pz);
  return p;
}

int Plant::take_lane(int a, int port_a, int z, const Cable& cable, int length_m, int& lane) {
  const Connector c = connector_for(spec_.media, cable.media, cable.speed_gbps);
  const int block = (port_a - 1) / spec_.media.trunk_lanes;
  lane = (port_a - 1) % spec_.media.trunk_lanes + 1;
  auto [it, fresh] = trunk_of_.emplace(std::tuple{a, z, block, cable.media == "smf", static_cast<int>(c)}, kNone);
  if (fresh) {
    const std::string connector(to_string(c));
    // Named by its panels and block: "TR-H0-R06-A>R16-003" (a row panel to
    // row 16), "TR-H0-C>H1-000" (hall to hall); "-smf" after a second media.
    const PatchPanel& to = bp_.patch_panels[z];
    const std::string& from = bp_.patch_panels[a].name;
    std::string id = fmt::format("TR-{}>{}-{:03}", from.substr(3),
                                 to.row == kNone ? fmt::format("H{}", to.hall) : fmt::format("R{:02}", to.row), block);
    if (!trunk_names_.insert(id).second) id += "-" + cable.media;
    it->second = static_cast<int>(bp_.trunks.size());
    bp_.trunks.push_back({id, a, z, cable.media, spec_.media.fibre_of(cable.media), connector,
                          std::string(polarity_of(c)), 0, length_m,
                          stock_length_m(spec_.media.length_bins_m, length_m)});
  }
  ++bp_.trunks[it->second].lanes;
  return it->second;
}

void Plant::add_leg(int index, int from_panel, int from_port, int to_panel, int to_port, int trunk, int lane,
                    int length_m) {
  bp_.legs.push_back({index, from_panel, from_port, to_panel, to_port, trunk, lane, length_m,
                      trunk == kNone ? stock_length_m(spec_.media.length_bins_m, length_m)
                                     : bp_.trunks[trunk].stock_length_m});
}

void Plant::route(Cable& cable, int index, const PanelPorts& p, RackSlot a, int ru_a, RackSlot z, int ru_z) {
  cable.first_leg = static_cast<int>(bp_.legs.size());
  int lane = 0;
  add_leg(index, kNone, kNone, p.pa, p.port_a, kNone, kNone, layout_.cord_to_row_panel(a, ru_a));
  if (a.hall == z.hall) {
    const int length = layout_.trunk_between_rows(a.row, z.row);
    const int trunk = take_lane(p.pa, p.port_a, p.pz, cable, length, lane);
    add_leg(index, p.pa, p.port_a, p.pz, p.port_z, trunk, lane, length);
  } else {
    int length = layout_.trunk_to_hall_panel(a.row);
    int trunk = take_lane(p.pa, p.port_a, p.ha, cable, length, lane);
    add_leg(index, p.pa, p.port_a, p.ha, p.port_ha, trunk, lane, length);
    length = layout_.trunk_between_halls(a.hall, z.hall);
    trunk = take_lane(p.ha, p.port_ha, p.hz, cable, length, lane);
    add_leg(index, p.ha, p.port_ha, p.hz, p.port_hz, trunk, lane, length);
    length = layout_.trunk_to_hall_panel(z.row);
    trunk = take_lane(p.hz, p.port_hz, p.pz, cable, length, lane);
    add_leg(index, p.hz, p.port_hz, p.pz, p.port_z, trunk, lane, length);
  }
  add_leg(index, p.pz, p.port_z, kNone, kNone, kNone, kNone, layout_.cord_to_row_panel(z, ru_z));
  cable.legs = static_cast<int>(bp_.legs.size()) - cable.first_leg;
}

}  // namespace hpn
