// IPv4 and IPv6 prefixes and their carving into subnets and addresses.
#pragma once

#include <cstdint>
#include <string>

#include "blueprint/result.h"

namespace hpn {

__extension__ typedef unsigned __int128 u128;

struct Prefix {
  int family = 4;  // 4 or 6
  u128 base = 0;   // the network address, host bits zero
  int length = 0;
  int bits() const { return family == 4 ? 32 : 128; }
  // Subnets of `sub_length` the prefix holds (saturates at 2^64).
  uint64_t capacity(int sub_length) const;
  // The n-th subnet of `sub_length`; n must be below capacity().
  Prefix subnet(int sub_length, uint64_t n) const;
  u128 last() const;
  bool overlaps(const Prefix& other) const;
  std::string to_string() const;
};

// "10.0.0.0/12" or "fd48:504e::/40"; the family must match `family`.
Result<Prefix> parse_prefix(const std::string& text, int family);
std::string format_address(int family, u128 address);

// The smallest prefix length whose subnets hold `addresses` addresses.
int prefix_for(int family, uint64_t addresses);

}  // namespace hpn
