// Look-ups over a blueprint that the diff needs at every hop: node ID to
// device, telemetry port ID to port, and each port's planned cable.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "blueprint/model.h"

namespace hpn {

// A port of a device: `port` is its index in the device's panel.
struct PortRef {
  int device = -1;
  int port = -1;
  bool valid() const { return device >= 0 && port >= 0; }
  friend bool operator==(const PortRef&, const PortRef&) = default;
  friend auto operator<=>(const PortRef&, const PortRef&) = default;
};

// The planned cable at a port and which end of it the port is.
struct CableEnd {
  int cable = -1;
  int end = 0;  // 0 = a-end, 1 = z-end
};

// Looked up by std::string_view as well as by std::string (C++20
// heterogeneous look-up): observations hold views of interned text.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class V>
using NameMap = std::unordered_map<std::string, V, NameHash, std::equal_to<>>;

class FabricIndex {
 public:
  explicit FabricIndex(const Blueprint& bp);

  const Blueprint& blueprint() const { return bp_; }
  int device_by_name(std::string_view name) const;
  int device_by_node_id(int64_t node_id) const;
  int port_by_name(int device, std::string_view name) const;
  int port_by_id(int device, int port_id) const;
  CableEnd cable_at(PortRef p) const;
  PortRef end_of(int cable, int end) const;  // the port at an end of a cable
  PortRef far_end(PortRef p) const;          // the planned peer of a port, or invalid
  const PanelPort& port(PortRef p) const;
  std::string name(PortRef p) const;         // "device:port"
  // The host NIC (0 = front end) whose bond carries `address`, or -1.
  int nic_of_address(int device, std::string_view address) const;
  // The host and NIC whose bond carries `address`, or {-1, -1}.
  std::pair<int, int> owner_of_address(std::string_view address) const;
  // Every host bond address of the plan numbered from 0 (its place among
  // them), or -1; address_owner() of the number is owner_of_address().
  int address_number(std::string_view address) const;
  std::pair<int, int> address_owner(int number) const { return address_owners_[number]; }
  int addresses() const { return static_cast<int>(address_owners_.size()); }

 private:
  const Blueprint& bp_;
  NameMap<int> devices_;
  std::unordered_map<int64_t, int> nodes_;
  std::vector<NameMap<int>> port_names_;  // by panel
  std::vector<std::unordered_map<int, int>> port_ids_;            // by panel
  std::vector<size_t> first_slot_;                                // by device
  std::vector<CableEnd> slots_;                                   // by (device, port)
  std::vector<std::array<PortRef, 2>> ends_;                      // by cable: its a- and z-end
  NameMap<int> addresses_;      // address -> its number
  std::vector<std::pair<int, int>> address_owners_;     // by number: device, nic
};

}  // namespace hpn
