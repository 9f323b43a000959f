#include "planner/addressing.h"

#include <arpa/inet.h>
#include <fmt/format.h>

namespace hpn {

uint64_t Prefix::capacity(int sub_length) const {
  if (sub_length < length) return 0;
  int shift = sub_length - length;
  return shift >= 64 ? UINT64_MAX : uint64_t{1} << shift;
}

Prefix Prefix::subnet(int sub_length, uint64_t n) const {
  Prefix p = *this;
  p.length = sub_length;
  p.base = base + (static_cast<u128>(n) << (bits() - sub_length));
  return p;
}

u128 Prefix::last() const {
  int host = bits() - length;
  u128 size = host >= 128 ? ~u128{0} : (u128{1} << host) - 1;
  return base + size;
}

bool Prefix::overlaps(const Prefix& other) const {
  return family == other.family && base <= other.last() && other.base <= last();
}

std::string Prefix::to_string() const { return format_address(family, base) + "/" + std::to_string(length); }

Result<Prefix> parse_prefix(const std::string& text, int family) {
  const char* want = family == 4 ? "an IPv4 prefix such as 10.0.0.0/12"
                                 : "an IPv6 prefix such as fd48:504e::/40";
  size_t slash = text.find('/');
  if (slash == std::string::npos) return Error{fmt::format("'{}' is not {}", text, want)};
  std::string addr = text.substr(0, slash), len = text.substr(slash + 1);
  Prefix p;
  p.family = family;
  if (len.empty() || len.size() > 3 || len.find_first_not_of("0123456789") != std::string::npos) {
    return Error{fmt::format("'{}' is not {}", text, want)};
  }
  if (family == 4) {
    in_addr a{};
    if (inet_pton(AF_INET, addr.c_str(), &a) != 1) return Error{fmt::format("'{}' is not {}", text, want)};
    p.base = ntohl(a.s_addr);
  } else {
    in6_addr a{};
    if (inet_pton(AF_INET6, addr.c_str(), &a) != 1) return Error{fmt::format("'{}' is not {}", text, want)};
    for (unsigned char b : a.s6_addr) p.base = (p.base << 8) | b;
  }
  p.length = std::stoi(len);
  if (p.length > p.bits()) return Error{fmt::format("'{}': prefix length above {}", text, p.bits())};
  u128 host_mask = p.length == p.bits() ? 0 : (u128{1} << (p.bits() - p.length)) - 1;
  if (p.base & host_mask) {
    return Error{fmt::format("'{}' has host bits set; did you mean {}?", text,
                             Prefix{family, p.base & ~host_mask, p.length}.to_string())};
  }
  return p;
}

// Plans format hundreds of thousands of addresses; inet_ntop's printf
// machinery dominated expansion, so both forms are written by hand. IPv6
// follows RFC 5952: lowercase, no leading zeros, the longest run (the first
// of equals) of two or more zero groups as "::".
std::string format_address(int family, u128 address) {
  char buffer[48];
  char* p = buffer;
  if (family == 4) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      unsigned octet = static_cast<unsigned>(address >> shift) & 0xff;
      if (octet >= 100) *p++ = static_cast<char>('0' + octet / 100);
      if (octet >= 10) *p++ = static_cast<char>('0' + octet / 10 % 10);
      *p++ = static_cast<char>('0' + octet % 10);
      if (shift) *p++ = '.';
    }
    return std::string(buffer, p);
  }
  unsigned group[8];
  for (int i = 0; i < 8; ++i) group[i] = static_cast<unsigned>(address >> (112 - 16 * i)) & 0xffff;
  int best = -1, best_len = 1;
  for (int i = 0; i < 8;) {
    if (group[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && group[j] == 0) ++j;
    if (j - i > best_len) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      *p++ = ':';
      if (i == 0) *p++ = ':';
      i += best_len - 1;
      continue;
    }
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      unsigned nibble = (group[i] >> shift) & 0xf;
      if (nibble || started || shift == 0) {
        *p++ = kHex[nibble];
        started = true;
      }
    }
    if (i < 7) *p++ = ':';
  }
  return std::string(buffer, p);
}

int prefix_for(int family, uint64_t addresses) {
  int bits = family == 4 ? 32 : 128;
  int host = 0;
  while (host < 64 && (uint64_t{1} << host) < addresses) ++host;
  return bits - host;
}

}  // namespace hpn
