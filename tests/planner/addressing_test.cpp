// Address formatting (hand-written for speed) checked against inet_ntop.
#include <arpa/inet.h>
#include <catch2/catch.hpp>

#include <random>

#include "planner/addressing.h"

using namespace hpn;

TEST_CASE("planner/addressing: formatting agrees with inet_ntop") {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    in6_addr a6{};
    u128 v = 0;
    for (int b = 0; b < 16; ++b) {
      // Mostly zero bytes, so that zero runs of every length and place occur.
      unsigned char byte = (rng() % 3 == 0) ? static_cast<unsigned char>(rng()) : 0;
      a6.s6_addr[b] = byte;
      v = (v << 8) | byte;
    }
    char expected[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a6, expected, sizeof expected);
    // inet_ntop writes IPv4-mapped and -compatible forms with a dotted tail;
    // RFC 5952 §5 allows both, and our plans never use those ranges.
    if (std::string(expected).find('.') != std::string::npos) continue;
    REQUIRE(format_address(6, v) == expected);

    uint32_t v4 = static_cast<uint32_t>(rng());
    in_addr a4{htonl(v4)};
    char expected4[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a4, expected4, sizeof expected4);
    REQUIRE(format_address(4, v4) == expected4);
  }
}

TEST_CASE("planner/addressing: prefixes parse, carve and refuse host bits") {
  auto p = parse_prefix("10.0.0.0/12", 4);
  REQUIRE(p.ok());
  CHECK(p->capacity(24) == 4096);
  CHECK(p->subnet(24, 3).to_string() == "10.0.3.0/24");
  CHECK(parse_prefix("10.0.0.1/12", 4).error().message == "'10.0.0.1/12' has host bits set; did you mean 10.0.0.0/12?");
  CHECK(parse_prefix("fd48::/40", 4).error().message == "'fd48::/40' is not an IPv4 prefix such as 10.0.0.0/12");
  CHECK(parse_prefix("10.0.0.0/33", 4).error().message == "'10.0.0.0/33': prefix length above 32");
  auto v6 = parse_prefix("fd48:504e::/40", 6);
  REQUIRE(v6.ok());
  CHECK(v6->subnet(64, 1).to_string() == "fd48:504e:0:1::/64");
  CHECK(prefix_for(4, 153) == 24);
  CHECK(prefix_for(4, 256) == 24);
  CHECK(prefix_for(4, 257) == 23);
}
