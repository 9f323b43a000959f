// What the lab is made of, before anything is made: one network namespace per
// device, one veth pair per wired cable, and for every cable end its Linux
// interface name, MAC and link-local address. Pure: built from a blueprint
// and a wiring.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/mac.h"
#include "blueprint/model.h"
#include "blueprint/result.h"
#include "lab/wiring.h"
#include "switchconfig/switch_config.h"

namespace hpn::lab {

// One machine's budget. Each namespace costs a few hundred kB of kernel
// memory and each veth pair two interfaces; past these counts a lab takes
// minutes to build and the machine's memory, and a blueprint that large
// should be tested a pod slice at a time.
inline constexpr std::size_t kMaxNamespaces = 512;
inline constexpr std::size_t kMaxLinks = 4096;

// The IOAM namespace the lab's switches stamp (FIELD.md §3). Any 16-bit
// value works as long as the prober uses the same; `lab status` reports it.
inline constexpr std::uint16_t kLabIoamNamespace = 123;

using hpn::Mac;

// One end of a veth pair: a blueprint port in its device's namespace.
struct LabPort {
  int device = 0;          // index into Blueprint::devices
  std::string port;        // the blueprint's port name, e.g. "etp17b"
  std::uint16_t port_id = 0;
  int nic = kNone;         // host NIC number of a host port
  std::string ifname;      // the Linux interface name (at most 15 bytes)
  Mac mac{};
  std::string link_local;  // without prefix length (/64): a host's "fe80::10:0:11", a switch's EUI-64
};

struct LabLink {
  std::string cable_id;  // from the wiring; may be empty
  int line = 0;          // its wiring-file line, 0 when wired as planned
  LabPort a, z;
  Fault fault;
};

struct LabNode {
  int device = 0;     // index into Blueprint::devices
  std::string netns;  // "hpn-3fa2-tor-p0-s00-r1a"
  bool is_host = false;
};

// A host NIC port the wiring gives no cable: it exists on a real host all
// the same, so the lab makes it, a veth whose other end lies down in the
// lab's `unplugged` namespace, and the host's profile applies as written.
struct UnpluggedPort {
  LabPort port;
  std::string far_ifname;  // its other end, in LabTopology::unplugged_netns
};

struct LabTopology {
  std::string id;      // short per-lab id, e.g. "3fa2"
  std::string prefix;  // "hpn-3fa2-": every namespace of the lab starts with it
  std::uint16_t ioam_namespace = kLabIoamNamespace;
  std::vector<LabNode> nodes;     // blueprint order
  std::vector<LabLink> links;     // wiring order
  std::vector<int> node_of_device;  // Blueprint::devices index -> nodes index, -1 if not in the lab
  int loss_percent = 0;             // Wiring::loss_percent: random loss on every link, both ways
  std::vector<UnpluggedPort> unplugged;  // host order, then panel order
  std::string unplugged_netns;           // "hpn-3fa2-unplugged", when there are any

  int node_of(int device) const { return node_of_device.at(device); }
};

std::string lab_prefix(const std::string& id);

// Refuses a blueprint past kMaxNamespaces or kMaxLinks, naming the limit.
Status check_lab_size(const Blueprint& bp, const Wiring& wiring);

// The Linux interface name of a port is the switch configuration's
// (switchconfig/switch_config.h): the lab runs what `hpnctl config` writes.
using switchconfig::interface_name;

// Deterministic addresses: a port's MAC (blueprint/mac.h), so a frame in a
// capture names its device and port; a host port's link-local address from
// the same numbers; a switch port's the kernel's EUI-64 one of its MAC.
using hpn::eui64_link_local;
using hpn::port_link_local;

// The lab for `wiring` (which must have been checked against `bp`).
Result<LabTopology> build_topology(const Blueprint& bp, const Wiring& wiring, const std::string& id);

}  // namespace hpn::lab
