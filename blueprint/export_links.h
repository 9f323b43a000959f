// The cable list of a plan in the formats of the tools operators already run.
// Each writer takes the cables selected by an ExportScope (in plan order) and
// renders one file; none of them reads anything but the blueprint.
//
//   ptm      Cumulus PTM topology.dot: `graph G { "a":"port" -- "z":"port"; }`,
//            the form ptmd reads to check each port's LLDP neighbour.
//   sonic    sonic-mgmt lab links CSV (ansible/files/*_links.csv):
//            StartDevice,StartPort,EndDevice,EndPort,BandWidth,VlanID,VlanMode
//            with BandWidth in Mb/s. Every fabric link is routed, so VlanID and
//            VlanMode stay empty, as sonic-mgmt's own graphs leave them on
//            links that are not fanout access ports.
//   netbox   NetBox (3.x, 4.x) cable bulk import CSV: side_a/side_b device,
//            type (dcim.interface) and name, then type, status, label, color,
//            length, length_unit.
//   batfish  Batfish layer1_topology.json: {"edges": [{"node1": {"hostname",
//            "interfaceName"}, "node2": {...}}]}, each cable in both
//            directions, as Batfish's examples and exporters write it.
#pragma once

#include <ostream>
#include <string_view>
#include <vector>

#include "blueprint/model.h"

namespace hpn {

void write_ptm_topology(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out);
void write_sonic_links(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out);
void write_netbox_cables(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out);
void write_batfish_layer1(const Blueprint& bp, const std::vector<int>& cables, std::ostream& out);

// NetBox's cable type for a blueprint medium ("mmf" -> "mmf", "dac" ->
// "dac-passive"), empty where NetBox has none; and the jacket colour
// TIA-598 gives fibre of that medium (aqua multimode, yellow single-mode),
// empty where there is no standard one.
std::string_view netbox_cable_type(std::string_view media);
std::string_view netbox_cable_color(std::string_view media);

}  // namespace hpn
