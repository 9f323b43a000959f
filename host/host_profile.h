// The part of a host profile (`hpnctl profile HOST`, schemas/host-profile.schema.json)
// that `host apply` and `host announce` act on: bonds, their members and
// gateways, addresses, routes, rules and sysctls. The path classes and the
// NCCL environment are not network state and are only checked for type.
//
// The keys and their types are those of blueprint/host_profile_format.h,
// which the writer (hostconfig/profile_json.cpp) and the schema follow too.
// A profile comes from outside (copied to the host, maybe edited by hand), so
// the reader trusts nothing: a syntax error is `FILE:LINE:COL: message` with
// the line and a caret, a value that is wrong is `FILE: /json/pointer: message`,
// every value is range-checked, and no input makes it crash or allocate
// without bound.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/host_profile_format.h"
#include "blueprint/mac.h"
#include "blueprint/result.h"

namespace hpn::host {

// MACs are the blueprint's (blueprint/mac.h: the one scheme, its text form
// and its parser), and so is the profile's format (blueprint/host_profile_format.h:
// its keys and types, the bond modes, the routing tables).
using hpn::BondMode;
using hpn::Mac;

// An address with its prefix length, in the kernel's canonical text
// (inet_ntop), so state read back compares equal to the profile.
struct Prefix {
  int family = 4;  // 4 or 6
  std::string address;
  int length = 0;
  std::string text() const { return address + "/" + std::to_string(length); }
  friend bool operator==(const Prefix&, const Prefix&) = default;
};
// "10.0.0.16/27", "fd48:504e::10/64"; `family` 0 accepts either.
bool parse_prefix(std::string_view text, int family, Prefix& out);
// A bare address, canonicalised; false if it is not one of `family`.
bool parse_address(std::string_view text, int family, std::string& canonical);

struct MemberPort {
  std::string port;  // the netdev name
  std::string gateway_ipv4, gateway_ipv6;  // empty: none
  // The gateway's MAC, to pin as a permanent neighbour. `hpnctl profile`
  // does not know switch MACs yet; a profile may carry them per member.
  std::optional<Mac> gateway_mac;
  // From `profile --nic-map`: the host's interface that is this port, by
  // its MAC (preferred) or its name now. host apply renames it to `port`.
  std::string match_ifname;
  std::optional<Mac> match_mac;
};

struct ProfileRoute {
  int family = 4;
  Prefix to;
  std::vector<std::string> via;  // canonical next-hop addresses
  int table = 254;
};

struct ProfileRule {
  int family = 4;
  Prefix from;
  int table = 0;
  int priority = 0;
};

struct ProfileBond {
  std::string name;
  int nic = 0;
  std::vector<MemberPort> members;
  Mac mac{};
  int mtu = 0;
  std::optional<Prefix> ipv4, ipv6;
  BondMode mode = BondMode::balance_xor;
  bool layer34 = false;  // xmit_hash_policy layer3+4
  bool arp_monitor = false;
  int arp_interval_ms = 0;
  std::vector<std::string> arp_targets;  // IPv4
  bool arp_validate_all = true;          // false: "active" (active-backup)
  int miimon_ms = 0;
  bool lacp_fast = false;
  std::vector<ProfileRoute> routes;
  std::vector<ProfileRule> rules;
};

struct ProfileSysctl {
  std::string key;  // dotted, as sysctl(8): "net.ipv4.conf.bond1.arp_announce"
  std::string value;
};

struct ApplyProfile {
  std::string source;  // the file as named
  std::string host;
  std::uint32_t node_id = 0;
  std::vector<ProfileBond> bonds;
  std::vector<ProfileSysctl> sysctls;
};

// Profiles are a few kilobytes; anything past this is not one.
inline constexpr std::size_t kMaxProfileBytes = 4 << 20;

// Reads and checks a profile; `source` names it in messages.
Result<ApplyProfile> parse_apply_profile(std::string_view text, const std::string& source);
Result<ApplyProfile> read_apply_profile(const std::string& path);

}  // namespace hpn::host
