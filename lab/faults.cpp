#include "lab/faults.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace hpn::lab {

bool stays_down(const LabLink& link) { return link.fault.kind == FaultKind::down; }

namespace {

std::string cable_name(const LabLink& link) { return link.cable_id.empty() ? "(extra)" : link.cable_id; }

}  // namespace

std::string fault_script(const LabTopology& t, int node, FaultPhase phase) {
  // The rules of each sending interface of this node, in wiring order.
  std::map<std::string, std::vector<std::string>> rules;
  std::vector<std::string> order;
  auto add = [&](const std::string& ifname, std::string rule) {
    auto [it, fresh] = rules.try_emplace(ifname);
    if (fresh) order.push_back(ifname);
    it->second.push_back(std::move(rule));
  };
  const bool converged = phase == FaultPhase::converged;
  bool earlier = false;  // a before_routing table exists on this node
  for (const auto& link : t.links) {
    if (stays_down(link)) continue;
    const bool host_cable = t.nodes[t.node_of(link.a.device)].is_host || t.nodes[t.node_of(link.z.device)].is_host;
    const bool early = link.fault.kind == FaultKind::drop && !host_cable;
    const LabPort& sender = link.fault.direction == Direction::a_to_z ? link.a : link.z;
    if (early && t.node_of(sender.device) == node) earlier = true;
    // No ICMPv6 error out of a switch's port: in force from the start
    // (neighbour discovery and BGP need none).
    if (link.fault.kind == FaultKind::icmp_off) {
      const LabPort& at = link.fault.at_z ? link.z : link.a;
      if (t.node_of(at.device) == node) {
        earlier = true;
        add(at.ifname, fmt::format("icmpv6 type {{ destination-unreachable, packet-too-big, time-exceeded, "
                                   "parameter-problem }} counter drop comment \"cable {} {}\"",
                                   cable_name(link), link.fault.to_string()));
      }
    }
    if ((link.fault.kind == FaultKind::drop || link.fault.kind == FaultKind::loss) && (early || converged)) {
      // The sending end of the broken direction.
      const LabPort& tx = link.fault.direction == Direction::a_to_z ? link.a : link.z;
      if (t.node_of(tx.device) == node) {
        const std::string verdict =
            link.fault.kind == FaultKind::drop
                ? "counter drop"
                : fmt::format("numgen random mod 100 < {} counter drop", link.fault.loss_percent);
        add(tx.ifname, fmt::format("{} comment \"cable {} {}\"", verdict, cable_name(link), link.fault.to_string()));
      }
    }
    // The background loss, drawn on its own after the cable's fault.
    if (t.loss_percent <= 0 || !converged) continue;
    for (const LabPort* tx : {&link.a, &link.z}) {
      if (t.node_of(tx->device) != node) continue;
      add(tx->ifname, fmt::format("numgen random mod 100 < {} counter drop comment \"cable {} loss {}%\"",
                                  t.loss_percent, cable_name(link), t.loss_percent));
    }
  }
  if (order.empty()) return "";
  std::string chains;
  for (const auto& ifname : order) {
    // Interface names are [A-Za-z0-9_-] (interface_name()), valid in a chain
    // name once '-' is mapped; the device name is quoted anyway.
    std::string chain = "out_" + ifname;
    for (char& c : chain) c = c == '-' ? '_' : c;
    // The first rule counts every frame sent, so the counters give the rate
    // each drop rule really achieved.
    chains += fmt::format(
        "  chain {} {{\n"
        "    type filter hook egress device \"{}\" priority 0; policy accept;\n"
        "    counter comment \"sent\"\n",
        chain, ifname);
    for (const auto& rule : rules[ifname]) chains += "    " + rule + "\n";
    chains += "  }\n";
  }
  // Replacing the earlier table within the same transaction leaves no
  // moment without its drops.
  const std::string replace =
      converged && earlier ? fmt::format("table netdev {}\ndelete table netdev {}\n", kFaultTable, kFaultTable) : "";
  return fmt::format("{}table netdev {} {{\n{}}}\n", replace, kFaultTable, chains);
}

}  // namespace hpn::lab
