// The probe agent's inputs that come as text: this host's interface names
// mapped to the blueprint's port names, destinations, source-port ranges.
// Observations must name devices and ports as the blueprint does, while the
// lab (and a real host) names interfaces its own way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"

namespace hpn::probe {

// Interface name -> blueprint port name, one to one.
class PortNames {
 public:
  // Refuses an interface or a port named twice.
  hpn::Status add(const std::string& ifname, const std::string& port);
  // The blueprint's name for `ifname`; the interface name itself when it is
  // not mapped (the lab names an interface after its port when it can).
  std::string port_of(const std::string& ifname) const;
  // The interface of a blueprint port name, when mapped.
  std::optional<std::string> interface_of(const std::string& port) const;
  bool empty() const { return by_ifname_.empty(); }

 private:
  std::map<std::string, std::string> by_ifname_;
  std::map<std::string, std::string> by_port_;
};

// "a0=etp1a,a1=etp1b" (the --port-name option) added to `names`.
hpn::Status parse_port_names(std::string_view list, PortNames& names);

// The entry of `device` in a lab status document (`hpnctl lab status --format
// json`, or any file of that shape):
//   {"devices": [{"name": "host-...", "ports": [{"port": "etp1a", "ifname": "etp1a"}, ...]}, ...]}
// added to `names`. `source` names the text in errors.
hpn::Status port_names_from_status(std::string_view json_text, const std::string& device,
                                   const std::string& source, PortNames& names);
hpn::Status read_port_names_file(const std::string& path, const std::string& device, PortNames& names);

struct Destination {
  std::string device;   // the blueprint's name of the host (or switch) probed
  std::string address;  // canonical IPv6 text
  // Hop-limited: the probe's hop limit (1..255), and the answer expected
  // is the ICMPv6 error of the switch where it runs out (or of the switch
  // it is addressed to); 0: an ordinary probe a listener answers.
  int hop_limit = 0;
  friend bool operator==(const Destination&, const Destination&) = default;
};

// "host-b=fd00::2,host-c=fd00::3,core-1-00=fd48:5050::1@64" (the --to
// option): NAME=ADDRESS, or NAME=ADDRESS@HOPS for a hop-limited probe. An
// address listed twice (at the same hop limit) is refused.
hpn::Result<std::vector<Destination>> parse_destinations(std::string_view list);

struct PortRange {
  std::uint16_t first = 0, last = 0;
  unsigned size() const { return static_cast<unsigned>(last) - first + 1; }
  friend bool operator==(const PortRange&, const PortRange&) = default;
};

// "49152-49167" or "49152" (the --source-ports option): 1-65535, first <= last.
hpn::Result<PortRange> parse_port_range(std::string_view text);

// Splits "a,b,,c" into {"a", "b", "c"}.
std::vector<std::string> split_list(std::string_view list);

// A sender's share of a probe plan (`probe send --plan FILE`), one JSON
// object per line (hpnctl-probe(1), PLAN FILES):
//   {"entry": 7, "from": "nic1p1", "to": "host-p0-s01-h000=fd48:504e::30",
//    "source_ports": [49152, 49153, 49154]}
// "to" as one --to item (with "@HL" for a hop-limited probe). The ports
// and destinations in order of first use; one probe per source port. With
// "train": N, each source port sends a train of N datagrams and asks for
// its report (probe/payload.h) instead of one probe.
struct SendPlanProbe {
  std::size_t from = 0, to = 0;  // indexes into SendPlan::from and ::to
  std::uint16_t source_port = 0;
  std::int64_t entry = 0;
  std::uint32_t train = 0;
};
struct SendPlan {
  std::vector<std::string> from;  // port names, as --from takes them
  std::vector<Destination> to;
  std::vector<SendPlanProbe> probes;
};
inline constexpr std::size_t kMaxSendPlanBytes = 16 << 20;
// Errors are `FILE:LINE: message`.
hpn::Result<SendPlan> read_send_plan(const std::string& path);
// The same from the file's text; `source` names it in errors.
hpn::Result<SendPlan> parse_send_plan(std::string_view text, const std::string& source);

}  // namespace hpn::probe
