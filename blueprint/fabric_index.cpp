#include "blueprint/fabric_index.h"

namespace hpn {

FabricIndex::FabricIndex(const Blueprint& bp) : bp_(bp) {
  devices_.reserve(bp.devices.size());
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    devices_.emplace(bp.devices[i].name, static_cast<int>(i));
    nodes_.emplace(bp.devices[i].node_id, static_cast<int>(i));
  }
  port_names_.resize(bp.panels.size());
  port_ids_.resize(bp.panels.size());
  for (size_t p = 0; p < bp.panels.size(); ++p) {
    for (size_t i = 0; i < bp.panels[p].ports.size(); ++i) {
      port_names_[p].emplace(bp.panels[p].ports[i].name, static_cast<int>(i));
      port_ids_[p].emplace(bp.panels[p].ports[i].port_id, static_cast<int>(i));
    }
  }
  first_slot_.resize(bp.devices.size() + 1);
  size_t slots = 0;
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    first_slot_[i] = slots;
    slots += bp.panels[bp.devices[i].panel].ports.size();
  }
  first_slot_[bp.devices.size()] = slots;
  slots_.assign(slots, CableEnd{});
  ends_.resize(bp.cables.size());
  for (size_t c = 0; c < bp.cables.size(); ++c) {
    const Cable& cable = bp.cables[c];
    int a = port_by_name(cable.a_device, cable.a_port);
    int z = port_by_name(cable.z_device, cable.z_port);
    ends_[c] = {PortRef{cable.a_device, a}, PortRef{cable.z_device, z}};
    if (a >= 0) slots_[first_slot_[cable.a_device] + a] = {static_cast<int>(c), 0};
    if (z >= 0) slots_[first_slot_[cable.z_device] + z] = {static_cast<int>(c), 1};
  }
  for (const auto& i : bp.interfaces) {
    if (i.purpose != InterfacePurpose::host) continue;
    for (const std::string* a : {&i.ipv6, &i.ipv4}) {
      if (a->empty() || !addresses_.emplace(*a, static_cast<int>(address_owners_.size())).second) continue;
      address_owners_.push_back({i.device, i.nic});
    }
  }
}

int FabricIndex::device_by_name(std::string_view name) const {
  auto it = devices_.find(name);
  return it == devices_.end() ? -1 : it->second;
}

int FabricIndex::device_by_node_id(int64_t node_id) const {
  auto it = nodes_.find(node_id);
  return it == nodes_.end() ? -1 : it->second;
}

int FabricIndex::port_by_name(int device, std::string_view name) const {
  if (device < 0) return -1;
  const auto& table = port_names_[bp_.devices[device].panel];
  auto it = table.find(name);
  return it == table.end() ? -1 : it->second;
}

int FabricIndex::port_by_id(int device, int port_id) const {
  if (device < 0 || port_id < 0) return -1;
  const auto& table = port_ids_[bp_.devices[device].panel];
  auto it = table.find(port_id);
  return it == table.end() ? -1 : it->second;
}

CableEnd FabricIndex::cable_at(PortRef p) const {
  if (!p.valid()) return {};
  return slots_[first_slot_[p.device] + p.port];
}

PortRef FabricIndex::end_of(int cable, int end) const { return ends_[cable][end]; }

PortRef FabricIndex::far_end(PortRef p) const {
  CableEnd e = cable_at(p);
  if (e.cable < 0) return {};
  return end_of(e.cable, 1 - e.end);
}

const PanelPort& FabricIndex::port(PortRef p) const {
  return bp_.panels[bp_.devices[p.device].panel].ports[p.port];
}

std::string FabricIndex::name(PortRef p) const {
  if (!p.valid()) return "?";
  return bp_.devices[p.device].name + ":" + port(p).name;
}

int FabricIndex::nic_of_address(int device, std::string_view address) const {
  const auto [owner, nic] = owner_of_address(address);
  return owner == device ? nic : -1;
}

std::pair<int, int> FabricIndex::owner_of_address(std::string_view address) const {
  const int n = address_number(address);
  return n < 0 ? std::pair{-1, -1} : address_owners_[n];
}

int FabricIndex::address_number(std::string_view address) const {
  auto it = addresses_.find(address);
  return it == addresses_.end() ? -1 : it->second;
}

}  // namespace hpn
