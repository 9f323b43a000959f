// Which of a host's real interfaces is which planned port (nicNpM).
//
// The plan names a host's ports nic0p1, nic0p2 (the front end), nic1p1 ...
// No stock host has those names: the kernel and udev call them
// enp59s0f0np0 and the like, and the RDMA devices mlx5_0, mlx5_bond_0.
// `hpnctl profile HOST --nic-map FILE...` reads what the host itself says
// and maps each planned port onto one of its interfaces:
//
//   ip -j [-d] link   JSON. The Ethernet ports are ordered by PCI address
//                     (parentdev, given by -d) or, without it, by the PCI
//                     path in their predictable names (enp<bus>s<slot>f<fn>
//                     [np<port>], systemd.net-naming-scheme(7)); the i-th
//                     planned port, in plan order, is the i-th of them.
//   rdma -j link      JSON: the RDMA device of each port (its "netdev").
//   a YAML mapping    planned port -> interface name, or -> {ifname, mac,
//                     pci, rdma}; it overrides the order where both are given.
//
// Mapping by order needs exactly as many Ethernet ports as the plan has; an
// extra or a missing port is an error naming them all (give a mapping then),
// never a guess.
#pragma once

#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn {

struct NicPort {
  std::string planned;   // "nic1p1"
  std::string ifname;    // the kernel's name now: "enp59s0f0np0"
  std::string mac;       // its MAC (the permanent one where ip says so)
  bool permanent = false;  // mac is the burnt-in address of a real device
  std::string pci;       // "0000:3b:00.0"; empty: unknown
  std::string rdma;      // its RDMA device ("mlx5_2"); empty: unknown
  std::string how;       // "PCI order", "PCI path in its name", "mapping"
};

struct NicMap {
  std::vector<std::string> sources;  // the files, as given
  std::vector<NicPort> ports;        // one per planned port, plan order
  const NicPort* find(const std::string& planned) const;
};

// `planned`: the host's ports in plan order (bond by bond, member by member).
// Errors (exit 2) name the file and, where there is one, the entry.
Result<NicMap> load_nic_map(const std::vector<std::string>& files, const std::vector<std::string>& planned);

// The same from texts already read (tests, fuzzing): {name, text} pairs.
Result<NicMap> parse_nic_map(const std::vector<std::pair<std::string, std::string>>& texts,
                             const std::vector<std::string>& planned);

}  // namespace hpn
