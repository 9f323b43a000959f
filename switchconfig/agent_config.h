// The ToR host-route agent's configuration (`hpnctl switch agent --config
// FILE`, hpnctl-switch(1)): which ports face hosts, which prefixes a host
// address must be in, and the kernel routing table and protocol number of
// the routes it owns. `config --all` writes it beside frr.conf as
// switch-agent.json for every switch that learns hosts; the agent reads it
// back. Writer and reader share kAgentConfigKeys, and
// schemas/switch-agent.schema.json describes the same keys (a test holds
// them equal):
//
//   {
//     "format": "hpnctl-switch-agent", "format_version": 1,
//     "switch": "tor-p0-s00-r1a",
//     "ports": ["etp1", "etp2"],
//     "prefixes": ["10.0.0.0/16", "fd48:504e::/40"],
//     "table": 254, "protocol": 80
//   }
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

inline constexpr const char* kAgentConfigFormat = "hpnctl-switch-agent";
inline constexpr int kAgentConfigVersion = 1;
inline constexpr const char* kAgentConfigFile = "switch-agent.json";
// Where a switch keeps its set (its directory of `config --all`, copied
// whole): hpnctl-switch-apply.service applies it at boot, and the agent's
// unit (hpnctl-switch-agent.service) reads its switch-agent.json there.
inline constexpr const char* kSwitchSetPath = "/etc/hpnctl/switch";
inline constexpr const char* kAgentConfigPath = "/etc/hpnctl/switch/switch-agent.json";
// zebra's main table: `redistribute kernel` takes kernel routes from the
// table of the VRF, the main one for the default VRF.
inline constexpr std::uint32_t kHostRouteTable = 254;

// Every key of the file, in the order the writer puts them.
inline constexpr std::array<std::string_view, 7> kAgentConfigKeys = {
    "format", "format_version", "switch", "ports", "prefixes", "table", "protocol"};

// A prefix a host address must be in: "10.0.0.0/16", "fd48:504e::/40".
struct HostPrefix {
  int family = 0;  // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};
  int length = 0;
  std::string text;
  // Whether an address of `family` (4 or 16 bytes at `address`) is inside.
  bool contains(int address_family, const std::uint8_t* address) const;
};

// Errors: not an address/length, a length past the family's width, or
// bits set past the length ("10.0.0.1/16").
Result<HostPrefix> parse_host_prefix(std::string_view text);

struct AgentConfig {
  std::string switch_name;
  std::vector<std::string> ports;       // Linux interface names facing hosts
  std::vector<HostPrefix> prefixes;     // a host outside every one is refused
  std::uint32_t table = kHostRouteTable;
  int protocol = kHostRouteProtocol;
};

// The agent's configuration of a switch with a gateway (a ToR or a
// front-end leaf): its host-learning ports and its gateway's pools.
// Errors: a switch without a gateway.
Result<AgentConfig> agent_config(const SwitchConfig& config);

// The file's text (2-space JSON, a final newline).
std::string write_agent_config(const AgentConfig& config);

// Reads the file's text; errors start with `origin` ("FILE: key 'table':
// 0 is not a routing table (1 to 4294967295, not 253 or 255)").
Result<AgentConfig> read_agent_config(const std::string& text, const std::string& origin);

}  // namespace hpn::switchconfig
