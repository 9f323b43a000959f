#include "dataplane/faults.h"

#include <fmt/format.h>

namespace hpn::lab {

bool stays_down(const LabLink& link) { return link.fault.kind == FaultKind::down; }

std::string fault_script(const LabTopology& t, int node) {
  std::string chains;
  for (const auto& link : t.links) {
    if (link.fault.kind != FaultKind::drop && link.fault.kind != FaultKind::loss) continue;
    // The receiving end of the broken direction.
    const LabPort& rx = link.fault.direction == Direction::a_to_z ? link.z : link.a;
    if (t.node_of(rx.device) != node) continue;
    const std::string verdict =
        link.fault.kind == FaultKind::drop
            ? "drop"
            : fmt::format("numgen random mod 100 < {} drop", link.fault.loss_percent);
    // Interface names are [A-Za-z0-9_-] (interface_name()), valid in a chain
    // name once '-' is mapped; the device name is quoted anyway.
    std::string chain = "in_" + rx.ifname;
    for (char& c : chain) c = c == '-' ? '_' : c;
    chains += fmt::format(
        "  chain {} {{\n"
        "    type filter hook ingress device \"{}\" priority 0; policy accept;\n"
        "    {} comment \"cable {} {}\"\n"
        "  }}\n",
        chain, rx.ifname, verdict, link.cable_id.empty() ? "(extra)" : link.cable_id,
        link.fault.to_string());
  }
  if (chains.empty()) return "";
  return fmt::format("table netdev {} {{\n{}}}\n", kFaultTable, chains);
}

}  // namespace hpn::lab
