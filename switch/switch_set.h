// A switch's file set as `hpnctl switch apply DIR` reads it back: the
// ifupdown2 interfaces file config --all writes as DIR/interfaces
// (switchconfig/interfaces_file.h), DIR/sysctl.conf and DIR/ioam.conf, its
// IOAM namespace (switchconfig/linux_sysctl.h). The parser takes exactly the subset those
// writers produce; anything else is an error at its line (`file:line:col:`
// with the line and a caret), never skipped, so what apply makes is what
// ifupdown2 would make of the same file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::sw {

// An address with its prefix length, the address in inet_ntop's canonical
// text so state read back compares equal.
struct IfPrefix {
  int family = 4;
  std::string address;
  int length = 0;
  std::string text() const { return address + "/" + std::to_string(length); }
  friend bool operator==(const IfPrefix&, const IfPrefix&) = default;
};
// "10.0.0.1/32", "fd48:504e::1/128"; false for anything else.
bool parse_if_prefix(std::string_view text, IfPrefix& out);

struct SetPort {
  std::string ifname;
  std::string mac;   // hwaddress, lower case; empty: left as it is
  int mtu = 0;       // 0: left as it is (the loopback)
  bool up = true;    // link-down no|yes
  std::vector<IfPrefix> addresses;
  bool loopback() const { return ifname == "lo"; }
};

struct SetSysctl {
  std::string key;  // dotted, sysctl(8) form
  std::string value;
  bool optional = false;  // "-key = value": skipped where the kernel lacks it
  friend bool operator==(const SetSysctl&, const SetSysctl&) = default;
};

struct SwitchSet {
  std::string name;           // the interfaces file's first line names it
  std::uint32_t node_id = 0;  // sysctl net.ipv6.ioam6_id
  std::vector<SetPort> ports; // lo first, then the ports in file order
  std::vector<SetSysctl> sysctls;  // file order
  std::vector<std::uint16_t> ioam_namespaces;  // ioam.conf's, file order
  const SetPort* port(const std::string& ifname) const;
};

struct SetFile {
  std::string name;  // as errors show it: "DIR/interfaces"
  std::string text;
};

// Parses the set from its files' texts; pure, for tests.
Result<SwitchSet> parse_switch_set(const SetFile& interfaces, const SetFile& sysctl_conf);

// ioam.conf: "namespace N" lines (N from 0 to 65535), comments with #.
Result<std::vector<std::uint16_t>> parse_ioam_conf(const SetFile& ioam_conf);

// The protocol of the host-route agent's routes, from DIR/switch-agent.json
// when the set has one (a ToR); 0 otherwise (plan_changes' agent_protocol).
Result<int> agent_protocol(const std::string& dir);

// Reads DIR/interfaces, DIR/sysctl.conf and DIR/ioam.conf
// (a set without one asks for no IOAM namespace).
Result<SwitchSet> read_switch_set(const std::string& dir);

}  // namespace hpn::sw
