#include "planner/plant.h"

#include <fmt/format.h>

#include "planner/bom.h"

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

int Plant::row_panel(int hall, int row) {
  auto [it, fresh] = row_panels_.emplace(std::pair{hall, row}, int(bp_.patch_panels.size()));
  if (fresh) bp_.patch_panels.push_back({fmt::format("PP-H{}-R{:02}", hall, row), hall, row, 0});
  return it->second;
}

int Plant::hall_panel(int hall) {
  auto [it, fresh] = hall_panels_.emplace(hall, int(bp_.patch_panels.size()));
  if (fresh) bp_.patch_panels.push_back({fmt::format("PP-H{}", hall), hall, kNone, 0});
  return it->second;
}

int Plant::take_lane(int a, int z, const Cable& cable, int length_m, int& lane) {
  const std::string connector(to_string(connector_for(spec_.media, cable.media, cable.speed_gbps)));
  auto [it, fresh] = open_trunk_.emplace(std::tuple{a, z, cable.media, connector}, kNone);
  if (it->second == kNone || bp_.trunks[it->second].lanes >= spec_.media.trunk_lanes) {
    const int hall = bp_.patch_panels[a].hall;
    it->second = static_cast<int>(bp_.trunks.size());
    Connector c = Connector::mpo12;
    (void)parse_connector(connector, c);
    bp_.trunks.push_back({fmt::format("TR{}-{:04}", hall, ++trunks_in_hall_[hall]), a, z, cable.media,
                          spec_.media.fibre_of(cable.media), connector, std::string(polarity_of(c)), 0,
                          length_m, stock_length_m(spec_.media.length_bins_m, length_m)});
  }
  lane = ++bp_.trunks[it->second].lanes;
  return it->second;
}

void Plant::add_leg(int index, int from_panel, int from_port, int to_panel, int to_port, int trunk, int lane,
                    int length_m) {
  bp_.legs.push_back({index, from_panel, from_port, to_panel, to_port, trunk, lane, length_m,
                      trunk == kNone ? stock_length_m(spec_.media.length_bins_m, length_m)
                                     : bp_.trunks[trunk].stock_length_m});
}

void Plant::route(Cable& cable, int index, RackSlot a, int ru_a, RackSlot z, int ru_z) {
  cable.first_leg = static_cast<int>(bp_.legs.size());
  const int pa = row_panel(a.hall, a.row), pz = row_panel(z.hall, z.row);
  const int port_a = take_port(pa);
  int lane = 0;
  add_leg(index, kNone, kNone, pa, port_a, kNone, kNone, layout_.cord_to_row_panel(a, ru_a));
  if (a.hall == z.hall) {
    const int length = layout_.trunk_between_rows(a.row, z.row);
    const int trunk = take_lane(pa, pz, cable, length, lane);
    const int port_z = take_port(pz);
    add_leg(index, pa, port_a, pz, port_z, trunk, lane, length);
    add_leg(index, pz, port_z, kNone, kNone, kNone, kNone, layout_.cord_to_row_panel(z, ru_z));
  } else {
    const int ha = hall_panel(a.hall), hz = hall_panel(z.hall);
    const int port_ha = take_port(ha);
    int length = layout_.trunk_to_hall_panel(a.row);
    add_leg(index, pa, port_a, ha, port_ha, take_lane(pa, ha, cable, length, lane), lane, length);
    const int port_hz = take_port(hz);
    length = layout_.trunk_between_halls(a.hall, z.hall);
    add_leg(index, ha, port_ha, hz, port_hz, take_lane(ha, hz, cable, length, lane), lane, length);
    const int port_z = take_port(pz);
    length = layout_.trunk_to_hall_panel(z.row);
    add_leg(index, hz, port_hz, pz, port_z, take_lane(hz, pz, cable, length, lane), lane, length);
    add_leg(index, pz, port_z, kNone, kNone, kNone, kNone, layout_.cord_to_row_panel(z, ru_z));
  }
  cable.legs = static_cast<int>(bp_.legs.size()) - cable.first_leg;
}

}  // namespace hpn
