#include "probe/observation_index.h"

#include <string>

namespace hpn::probe {

ObservationIndex::ObservationIndex(const FabricIndex& fabric, const std::vector<Observation>& observations)
    : f_(fabric), obs_(observations), resolved_(observations.size()) {
  for (std::size_t i = 0; i < obs_.size(); ++i) {
    const Observation& o = obs_[i];
    ResolvedObservation& r = resolved_[i];
    if (!o.src_device.empty()) {
      r.src = f_.device_by_name(o.src_device);
      r.src_port = f_.port_by_name(r.src, o.src_port);
    }
    r.dst = f_.device_by_name(o.dst_device);
    r.rx_port = f_.port_by_name(r.dst, o.rx_port);
    r.src_address = address(o.src_address);
    r.dst_address = address(o.dst_address);
  }
}

std::int32_t ObservationIndex::address(std::string_view text) {
  const auto [it, added] = addresses_.try_emplace(text, static_cast<std::int32_t>(owners_.size()));
  if (added) owners_.push_back(f_.owner_of_address(std::string(text)));
  return it->second;
}

int ObservationIndex::nic_of_address(int device, std::int32_t address) const {
  const auto [owner, nic] = owners_[address];
  return owner == device ? nic : -1;
}

int ObservationIndex::src_port(int device, const Observation& o) const {
  const ResolvedObservation& r = of(o);
  return device == r.src ? r.src_port : f_.port_by_name(device, o.src_port);
}

int ObservationIndex::rx_port(int device, const Observation& o) const {
  const ResolvedObservation& r = of(o);
  return device == r.dst ? r.rx_port : f_.port_by_name(device, o.rx_port);
}

}  // namespace hpn::probe
