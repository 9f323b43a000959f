// Test helper: an IPv6/UDP packet around a Hop-by-Hop header, with a correct
// UDP checksum, so the same bytes can go to the decoder, a pcap for tshark,
// or a real kernel.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "probe/byte_reader.h"

namespace hpn::probe::testing {

using Ipv6Address = std::array<std::uint8_t, 16>;

inline constexpr Ipv6Address kSrc = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
inline constexpr Ipv6Address kDst = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

// RFC 8200 §8.1 pseudo-header checksum over the UDP header and payload.
inline std::uint16_t udp6_checksum(const Ipv6Address& src, const Ipv6Address& dst,
                                   std::span<const std::byte> udp) {
  std::uint32_t sum = 0;
  auto add16 = [&](unsigned hi, unsigned lo) { sum += (hi << 8) | lo; };
  for (std::size_t i = 0; i < 16; i += 2) add16(src[i], src[i + 1]);
  for (std::size_t i = 0; i < 16; i += 2) add16(dst[i], dst[i + 1]);
  sum += static_cast<std::uint32_t>(udp.size() >> 16) + (udp.size() & 0xFFFF);
  sum += 17;
  for (std::size_t i = 0; i < udp.size(); i += 2) {
    const unsigned hi = std::to_integer<unsigned>(udp[i]);
    const unsigned lo = i + 1 < udp.size() ? std::to_integer<unsigned>(udp[i + 1]) : 0;
    add16(hi, lo);
  }
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const auto c = static_cast<std::uint16_t>(~sum & 0xFFFF);
  return c == 0 ? 0xFFFF : c;
}

// IPv6 header (next header 0) + `hbh` + UDP + `payload`. `hbh` must say
// next header 17.
inline std::vector<std::byte> ipv6_udp_packet(std::span<const std::byte> hbh,
                                              std::span<const std::byte> payload,
                                              std::uint8_t hop_limit = 64,
                                              std::uint16_t src_port = 40000,
                                              std::uint16_t dst_port = 33434) {
  ByteWriter udp;
  udp.be16(src_port).be16(dst_port).be16(static_cast<std::uint16_t>(8 + payload.size()));
  udp.be16(0).bytes(payload);
  auto udp_bytes = std::move(udp).take();
  store_be16(udp_bytes, 6, udp6_checksum(kSrc, kDst, udp_bytes));

  ByteWriter ip;
  ip.be32(0x60000000).be16(static_cast<std::uint16_t>(hbh.size() + udp_bytes.size()));
  ip.u8(0).u8(hop_limit);
  for (auto b : kSrc) ip.u8(b);
  for (auto b : kDst) ip.u8(b);
  ip.bytes(hbh).bytes(udp_bytes);
  return std::move(ip).take();
}

}  // namespace hpn::probe::testing
