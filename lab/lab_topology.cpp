#include "lab/lab_topology.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <set>

#include "blueprint/names.h"

namespace hpn::lab {

std::string lab_prefix(const std::string& id) { return "hpn-" + id + "-"; }

Status check_lab_size(const Blueprint& bp, const Wiring& wiring) {
  size_t devices = 0;
  for (const auto& d : bp.devices) devices += in_lab(d) ? 1 : 0;
  if (devices > kMaxNamespaces) {
    return Error{fmt::format(
        "blueprint '{}' has {} hosts and back-end switches; the lab makes one network namespace "
        "each and runs at most {} on one machine: plan a smaller pod (e.g. examples/lab-pod.yaml)",
        bp.spec_name, devices, kMaxNamespaces)};
  }
  if (wiring.cables.size() > kMaxLinks) {
    return Error{fmt::format("the wiring has {} cables; the lab makes one veth pair each and runs at "
                             "most {} on one machine",
                             wiring.cables.size(), kMaxLinks)};
  }
  return {};
}


Result<LabTopology> build_topology(const Blueprint& bp, const Wiring& wiring, const std::string& id) {
  if (auto size = check_lab_size(bp, wiring); !size) return size.error();
  LabTopology t;
  t.id = id;
  t.prefix = lab_prefix(id);
  t.loss_percent = wiring.loss_percent;
  t.node_of_device.assign(bp.devices.size(), -1);
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (!in_lab(bp.devices[i])) continue;
    // A device's name becomes a namespace (/run/netns/hpn-ID-NAME) and its
    // routing daemons' directory: one safe name (blueprint/names.h).
    if (std::string problem = name_problem(bp.devices[i].name); !problem.empty()) {
      return Error{fmt::format("device '{}': the lab cannot name a namespace after it: {}", bp.devices[i].name,
                               problem)};
    }
    t.node_of_device[i] = static_cast<int>(t.nodes.size());
    t.nodes.push_back({static_cast<int>(i), t.prefix + bp.devices[i].name, bp.devices[i].role == Role::host});
  }
  auto end = [&](int device, const std::string& port_name) -> Result<LabPort> {
    const Device& d = bp.devices.at(device);
    const Panel& panel = bp.panels.at(d.panel);
    const int at = panel.find(port_name);
    if (at < 0 || t.node_of_device[device] < 0) {
      return Error{fmt::format("wiring names {}:{}, which the lab does not have", d.name, port_name)};
    }
    const PanelPort& p = panel.ports[at];
    const Mac mac = port_mac(d.node_id, p.port_id);
    // A switch port's link-local is the kernel's, from its MAC, as on a
    // real switch; a host's is the lab's own (namespace_config.cpp).
    return LabPort{device, p.name, p.port_id, p.nic, interface_name(p), mac,
                   d.role == Role::host ? port_link_local(d.node_id, p.port_id) : eui64_link_local(mac)};
  };
  for (const auto& c : wiring.cables) {
    auto a = end(c.a_device, c.a_port);
    if (!a) return a.error();
    auto z = end(c.z_device, c.z_port);
    if (!z) return z.error();
    t.links.push_back({c.cable_id, c.line, std::move(a.value()), std::move(z.value()), c.fault});
  }
  std::set<std::pair<int, std::string>> cabled;  // (device, port)
  for (const auto& link : t.links) {
    cabled.insert({link.a.device, link.a.port});
    cabled.insert({link.z.device, link.z.port});
  }
  for (const auto& node : t.nodes) {
    if (!node.is_host) continue;
    for (const auto& p : bp.panels.at(bp.devices[node.device].panel).ports) {
      if (p.nic == kNone || cabled.count({node.device, p.name})) continue;
      auto port = end(node.device, p.name);
      if (!port) return port.error();
      t.unplugged.push_back({std::move(port.value()), fmt::format("u{}", t.unplugged.size())});
    }
  }
  if (!t.unplugged.empty()) t.unplugged_netns = t.prefix + "unplugged";
  return t;
}

}  // namespace hpn::lab
