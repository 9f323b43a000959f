#include "probe/observation_index.h"

#include <string>

#include "probe/two_halves.h"

namespace hpn::probe {

ObservationIndex::ObservationIndex(const FabricIndex& fabric, const ObservationSet& observations)
    : f_(fabric), obs_(observations), resolved_(observations.size()) {
  // Look-ups in the fabric, which nothing here changes: the two halves of
  // a pod's million and more records each on a core of its own (the
  // look-ups are the diff's largest part at pod scale, diagnosis_bench).
  // An address the plan lacks is numbered after them, in the order met.
  auto resolve = [this](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const Observation& o = obs_[i];
      ResolvedObservation& r = resolved_[i];
      if (!o.src_device.empty()) {
        r.src = f_.device_by_name(o.src_device);
        r.src_port = f_.port_by_name(r.src, o.src_port);
      }
      r.dst = f_.device_by_name(o.dst_device);
      r.rx_port = f_.port_by_name(r.dst, o.rx_port);
      r.src_address = f_.address_number(o.src_address);
      r.dst_address = f_.address_number(o.dst_address);
    }
  };
  in_two_halves(obs_.size(), [&](int, std::size_t first, std::size_t last) { resolve(first, last); });
  for (std::size_t i = 0; i < obs_.size(); ++i) {
    ResolvedObservation& r = resolved_[i];
    if (r.src_address < 0) r.src_address = unplanned_address(obs_[i].src_address);
    if (r.dst_address < 0) r.dst_address = unplanned_address(obs_[i].dst_address);
  }
}

std::int32_t ObservationIndex::unplanned_address(std::string_view text) {
  const auto [it, added] =
      unplanned_.try_emplace(text, static_cast<std::int32_t>(f_.addresses() + static_cast<int>(unplanned_.size())));
  return it->second;
}

int ObservationIndex::nic_of_address(int device, std::int32_t address) const {
  if (address < 0 || address >= f_.addresses()) return -1;
  const auto [owner, nic] = f_.address_owner(address);
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
