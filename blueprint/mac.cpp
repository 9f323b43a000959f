#include "blueprint/mac.h"

#include <arpa/inet.h>
#include <fmt/format.h>

namespace hpn {

std::string to_string(const Mac& m) {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4], m[5]);
}

bool parse_mac(std::string_view text, Mac& out) {
  if (text.size() != 17) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < 6; ++i) {
    const int hi = nibble(text[3 * i]), lo = nibble(text[3 * i + 1]);
    if (hi < 0 || lo < 0 || (i < 5 && text[3 * i + 2] != ':')) return false;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

bool is_local_unicast(const Mac& m) {
  const bool rest_zero = m[1] == 0 && m[2] == 0 && m[3] == 0 && m[4] == 0 && m[5] == 0;
  return (m[0] & 0x01) == 0 && (m[0] & 0x02) != 0 && !rest_zero;
}

Mac bond_mac(std::uint32_t node_id, int nic) {
  return {0x02,
          0x4e,
          static_cast<std::uint8_t>(node_id >> 16),
          static_cast<std::uint8_t>(node_id >> 8),
          static_cast<std::uint8_t>(node_id),
          static_cast<std::uint8_t>(nic)};
}

bool decode_bond_mac(const Mac& mac, std::uint32_t& node_id, int& nic) {
  if (mac[0] != 0x02 || mac[1] != 0x4e) return false;
  node_id = std::uint32_t{mac[2]} << 16 | std::uint32_t{mac[3]} << 8 | mac[4];
  nic = mac[5];
  return true;
}

Mac port_mac(std::uint32_t node_id, std::uint16_t port_id) {
  return {0x02,
          static_cast<std::uint8_t>(node_id >> 16),
          static_cast<std::uint8_t>(node_id >> 8),
          static_cast<std::uint8_t>(node_id),
          static_cast<std::uint8_t>(port_id >> 8),
          static_cast<std::uint8_t>(port_id)};
}

std::string port_link_local(std::uint32_t node_id, std::uint16_t port_id) {
  std::uint8_t a[16] = {0xfe, 0x80};
  a[10] = static_cast<std::uint8_t>(node_id >> 24);
  a[11] = static_cast<std::uint8_t>(node_id >> 16);
  a[12] = static_cast<std::uint8_t>(node_id >> 8);
  a[13] = static_cast<std::uint8_t>(node_id);
  a[14] = static_cast<std::uint8_t>(port_id >> 8);
  a[15] = static_cast<std::uint8_t>(port_id);
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, a, text, sizeof text);  // canonical text, RFC 5952
  return text;
}

std::string eui64_link_local(const Mac& mac) {
  std::uint8_t a[16] = {0xfe, 0x80};
  a[8] = mac[0] ^ 0x02;
  a[9] = mac[1];
  a[10] = mac[2];
  a[11] = 0xff;
  a[12] = 0xfe;
  a[13] = mac[3];
  a[14] = mac[4];
  a[15] = mac[5];
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, a, text, sizeof text);
  return text;
}

}  // namespace hpn
