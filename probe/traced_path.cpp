#include "probe/traced_path.h"

namespace hpn::probe {

namespace {

// The directed cable from -> to, or -1 when the plan has no such cable.
DirectedCable link_of(const FabricIndex& f, PortRef from, PortRef to) {
  if (!from.valid() || !to.valid()) return -1;
  const CableEnd e = f.cable_at(from);
  if (e.cable < 0 || !(f.end_of(e.cable, 1 - e.end) == to)) return -1;
  return e.cable * 2 + e.end;
}

}  // namespace

int trace_of(const FabricIndex& f, PortRef out, std::span<const ObservedHop> hops, PortRef end,
             std::vector<DirectedCable>& links) {
  int unplanned = 0;
  auto push = [&](DirectedCable l) {
    if (l >= 0) links.push_back(l);
    else ++unplanned;
  };
  for (const auto& hop : hops) {
    const int device = hop.node_id < 0 ? -1 : f.device_by_node_id(hop.node_id);
    const PortRef in{device, f.port_by_id(device, hop.ingress_if)};
    push(link_of(f, out, in));
    if (hop.egress_if < 0) return unplanned;
    out = {device, f.port_by_id(device, hop.egress_if)};
  }
  push(link_of(f, out, end));
  return unplanned;
}

std::vector<DirectedCable> traced_cables(const FabricIndex& fabric, const Observation& o) {
  const int src = fabric.device_by_name(o.src_device), dst = fabric.device_by_name(o.dst_device);
  if (!o.received || src < 0 || dst < 0) return {};
  const PortRef end =
      o.direction == ProbeDirection::expired ? PortRef{} : PortRef{dst, fabric.port_by_name(dst, o.rx_port)};
  std::vector<DirectedCable> links;
  trace_of(fabric, {src, fabric.port_by_name(src, o.src_port)}, o.hops, end, links);
  return links;
}

}  // namespace hpn::probe
