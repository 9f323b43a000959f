// BGP as a third source of truth, beside probes and LLDP: what each
// switch's bgpd says of its sessions (`vtysh -c 'show bgp neighbors json'`,
// FRR 8.4), fed to the same diff (validator/witness.h, validator/diff.h).
//
// The fabric peers unnumbered on every planned switch-to-switch port
// (switchconfig/switch_config.h), so a session names the port it runs on,
// and its peer by link-local address, host name, router ID and AS:
//   {"etp5": {"bgpNeighborAddr": "fe80::1cff:fe00:1", "bgpState": "Established",
//             "remoteAs": 4200000100, "hostname": "agg-p0-1-00",
//             "remoteRouterId": "10.255.0.5", "hostLocal": "fe80::ff:fe00:50",
//             "hostForeign": "fe80::1cff:fe00:1",
//             "messageStats": {"totalSent": 12, "totalRecv": 14}, ...}, ...}
// A session that never formed still tells something: a port that learned
// its peer's link-local address (from the peer's router advertisements)
// hears the peer; one still "Waiting for Peer IPv6 LLA" hears nothing.
// That is how a cable broken one way shows, when no probe can cross it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/result.h"
#include "validator/witness.h"

namespace hpn::validator {

struct BgpSession {
  std::string neighbor;         // the key: the port of an unnumbered session, else the peer's address
  std::string state;            // "Established", "Idle", "Connect", "Active", "OpenSent", "OpenConfirm"
  std::string peer_address;     // bgpNeighborAddr (the learned link-local), or the key; empty when unknown
  std::string local_address;    // hostLocal: this end's address of the connection, when connected
  std::string foreign_address;  // hostForeign
  std::int64_t remote_as = 0;   // 0: not known (no OPEN received)
  std::string hostname;         // the peer's, from the hostname capability
  std::string remote_router_id; // "0.0.0.0" when not known
  std::int64_t messages_received = 0, messages_sent = 0;
  std::int64_t prefixes_received = 0;  // accepted, over every address family
  std::string last_reset;       // lastResetDueTo
  bool established() const { return state == "Established"; }
};

// Parses one dump. Never throws, whatever the bytes; errors name the source
// and the JSON pointer of what is wrong.
Result<std::vector<BgpSession>> parse_bgp_neighbors(std::string_view bytes, std::string_view source);

// One dump and the device it comes from.
struct BgpDump {
  std::string device;
  bool device_from_file_name = false;
  std::string source;
  std::vector<BgpSession> sessions;
};

// Reads `--bgp [DEVICE=]FILE` (the same form as --lldp).
Result<BgpDump> read_bgp_dump(std::string_view argument);

// Adds the dumps to `w`. The far end of each session is found from what a
// real switch reports, never from an address scheme: the peer's router ID
// (the plan's IPv4 loopback of a switch) names the far device, else its
// host name, else its link-local address as another dump shows it held;
// on that device, the port whose own session is the other end of this
// connection (hostLocal and hostForeign crossed), else the port the plan
// cables to this one, else the only port the plan cables to this device.
// So a dump from one end alone still names a cable, and a peer of another
// device than planned is a miswire. A peer that has not said who it is (no
// OPEN) is taken as the planned one only when that device's dump shows no
// other address on the planned port; otherwise the link is not decided and
// counted unreadable.
// An established session is a link seen both ways; a port that learned its
// peer's address hears the peer, unless its session is Idle (a dark link's
// session keeps its last addresses); a cable whose two devices' dumps were both
// read was listened to both ways, so each direction's silence is evidence.
// Errors (input errors): a dump's device is not in the blueprint, or two
// dumps are of one device.
// An established session whose peer's AS is not the one the plan gives the
// device at the far end goes into w.asn_mismatches.
Status add_bgp_witnesses(const FabricIndex& fabric, const std::vector<BgpDump>& dumps, Witnesses& w);

}  // namespace hpn::validator
