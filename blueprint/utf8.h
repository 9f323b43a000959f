// Is a byte string well-formed UTF-8 (RFC 3629 §4): no stray continuation
// byte, no truncated sequence, no overlong form, no surrogate, nothing past
// U+10FFFF. What JSON text must be (RFC 8259 §8.1), and what nlohmann::json
// refuses to dump with an exception.
#pragma once

#include <cstddef>
#include <string_view>

namespace hpn {

// The length of the well-formed prefix of `s`: s.size() when all of it is.
inline std::size_t utf8_valid_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // RFC 3629 §4, UTF8-2 .. UTF8-4: the lead byte fixes the length and the
    // range the second byte may take; later bytes are 80..BF.
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c == 0xe0) n = 3, lo = 0xa0;
    else if (c == 0xed) n = 3, hi = 0x9f;
    else if (c >= 0xe1 && c <= 0xef) n = 3;
    else if (c == 0xf0) n = 4, lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3) n = 4;
    else if (c == 0xf4) n = 4, hi = 0x8f;
    if (n == 0 || i + n > s.size()) return i;
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return i;
    for (std::size_t k = 2; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return i;
    }
    i += n;
  }
  return i;
}

inline bool is_utf8(std::string_view s) { return utf8_valid_prefix(s) == s.size(); }

}  // namespace hpn
