// A GPU host's network as its profile gives it: per NIC a bond of its ports
// (HPN dual-ToR: one port per ToR, one address and one MAC), the members'
// gateways, addresses, routes, rules and sysctls. One type for every place
// that handles it: the planner builds it (hostconfig/profile.h, inside a
// HostProfile) and renders it (profile.json, networkd, netplan), host apply
// and host announce act on it (host/), and the lab applies the planner's
// value as it is. Its JSON form is the profile's network part, in the format
// blueprint/host_profile_format.h describes: hostconfig/profile_json.cpp
// writes it, host/host_profile.cpp reads it back into this type.
//
// Typed as host apply needs it: addresses canonical (inet_ntop), so state
// read back from the kernel compares equal, and MACs as bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/host_profile_format.h"
#include "blueprint/mac.h"
#include "blueprint/model.h"

namespace hpn {

inline constexpr int kMainTable = 254;

// An address with its prefix length ("10.0.0.16/27"), or a route's
// destination or a rule's source.
struct IpPrefix {
  int family = 4;  // 4 or 6
  std::string address;
  int length = 0;
  std::string text() const { return address + "/" + std::to_string(length); }
  friend bool operator==(const IpPrefix&, const IpPrefix&) = default;
};
// "10.0.0.16/27", "fd48:504e::10/64", canonicalised; `family` 0 accepts either.
bool parse_ip_prefix(std::string_view text, int family, IpPrefix& out);
// A bare address, canonicalised; false if it is not one of `family`.
bool parse_ip_address(std::string_view text, int family, std::string& canonical);

// With `profile --nic-map` (hostconfig/nic_map.h): the host's interface that
// is a planned port, by its MAC (preferred) or its name now. host apply
// renames it to the port's name; the .link files do at boot.
struct PortMatch {
  std::string ifname;      // empty: not known
  std::optional<Mac> mac;
  std::string pci, rdma;   // its PCI address and RDMA device; empty: not known
  std::string by;          // how the map found it: "PCI order", "PCI path in its name", "mapping"
  friend bool operator==(const PortMatch&, const PortMatch&) = default;
};

struct BondMember {
  std::string port;             // the host port: the blueprint names the netdev
  int speed_gbps = 0;
  std::string cable;            // empty: not cabled
  std::string peer, peer_port;  // the switch and port at the far end
  int plane = kNone;
  std::string gateway_ipv4, gateway_ipv6;  // the far switch's gateway toward this host; empty: none
  std::optional<Mac> gateway_mac;          // what it answers with (addressing.gateway_mac), pinned as a neighbour
  std::optional<PortMatch> match;
  friend bool operator==(const BondMember&, const BondMember&) = default;
};

struct BondRoute {
  int family = 4;
  IpPrefix to;
  std::vector<std::string> via;  // next hops, one per ToR
  int table = kMainTable;
  friend bool operator==(const BondRoute&, const BondRoute&) = default;
};

struct BondRule {
  int family = 4;
  IpPrefix from;  // the bond's address as a host prefix
  int table = 0;
  int priority = 0;
  friend bool operator==(const BondRule&, const BondRule&) = default;
};

struct Bond {
  std::string name;
  int nic = 0;
  bool backend = true;  // false: the front-end NIC 0
  std::vector<BondMember> members;
  Mac mac{};
  int mtu = 0;
  std::optional<IpPrefix> ipv4, ipv6;
  BondMode mode = BondMode::balance_xor;
  bool layer34 = false;  // xmit_hash_policy layer3+4; false: the kernel's layer2 (active-backup sets none)
  // ARP monitoring (arp_interval, arp_ip_target) toward the members' gateways;
  // 802.3ad refuses it and gets MII monitoring instead.
  bool arp_monitor = false;
  int arp_interval_ms = 0;
  std::vector<std::string> arp_targets;  // IPv4
  // arp_validate "all" in balance-xor: each member probes its own ToR and
  // counts only that ToR's replies. "active" (false) in active-backup: only
  // the active member probes, and the backup, on the other ToR, shares no L2
  // domain with it to see those probes (non-stacked ToRs), so validating it
  // would keep it down.
  bool arp_validate_all = true;
  int miimon_ms = 0;
  bool lacp_fast = false;  // 802.3ad: lacp_rate fast
  int speed_gbps = 0;      // what the bond can send: both ports, or one in active-backup
  int table = kMainTable;
  std::vector<BondRoute> routes;
  std::vector<BondRule> rules;
  std::string rdma_device;  // the RoCE LAG device's name, back end only
  friend bool operator==(const Bond&, const Bond&) = default;
};
// "all" or "active", as the kernel, networkd and netplan name it.
inline const char* arp_validate_name(const Bond& b) { return b.arp_validate_all ? "all" : "active"; }

struct Sysctl {
  std::string key;  // dotted, as sysctl(8): "net.ipv4.conf.bond1.arp_announce"
  std::string value;
  friend bool operator==(const Sysctl&, const Sysctl&) = default;
};

struct HostNetwork {
  // Where it came from, for messages: the profile file as named, or what
  // built it ("profile of HOST" in the lab).
  std::string source;
  std::string host;
  std::uint32_t node_id = 0;
  std::vector<Bond> bonds;  // NIC 0 (front end) first, then 1..N
  std::vector<Sysctl> sysctls;
  friend bool operator==(const HostNetwork&, const HostNetwork&) = default;
};

}  // namespace hpn
