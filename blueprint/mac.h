// hpnctl's one MAC scheme. Every MAC the tool assigns is locally
// administered and unicast (first octet 0x02: U/L set, I/G clear), and
// says whose it is:
//   02:4e:<node ID, 3 bytes>:<NIC number>  a host's bond (0x4e = 'N', which
//                                          tells them from other local
//                                          schemes such as Docker's 02:42)
//   02:<node ID, 3 bytes>:<port ID, 2>     a lab port: the device and port
//                                          a frame in a capture came from
//   addressing.gateway_mac                 the gateway both ToRs of a pair
//                                          answer with (blueprint.db keeps it)
// Node IDs are unique in a fabric (24 bits), so no two bonds or lab ports
// share a MAC, and a host gets the same MACs every time it is planned.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hpn {

using Mac = std::array<std::uint8_t, 6>;

std::string to_string(const Mac& mac);  // "02:4e:10:00:00:01"
// Six colon-separated pairs of hex digits (either case); false otherwise.
bool parse_mac(std::string_view text, Mac& out);
// Locally administered unicast, and not all zeros after the first octet:
// what a gateway MAC chosen in a spec must be.
bool is_local_unicast(const Mac& mac);

Mac bond_mac(std::uint32_t node_id, int nic);
// The node ID a bond MAC was made for; false for a MAC not of the form
// 02:4e:<node>:<nic> (a NIC's own, another scheme's). host apply uses it to
// tell a host an earlier apply made another node.
bool decode_bond_mac(const Mac& mac, std::uint32_t& node_id, int& nic);
Mac port_mac(std::uint32_t node_id, std::uint16_t port_id);

// A lab host port's IPv6 link-local address, from the same two numbers:
// fe80::N3N2:N1N0:PPPP (RFC 5952 text). Hosts only: a switch port's is the
// kernel's, eui64_link_local() of its MAC, as on a real switch, and nothing
// reads a device or port out of an address.
std::string port_link_local(std::uint32_t node_id, std::uint16_t port_id);

// The link-local address Linux gives an interface with this MAC
// (addr_gen_mode 0): fe80::/64 and the modified EUI-64 interface ID,
// RFC 4291 appendix A (U/L bit flipped, ff:fe in the middle).
std::string eui64_link_local(const Mac& mac);

}  // namespace hpn
