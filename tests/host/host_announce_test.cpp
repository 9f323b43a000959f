// host announce's frames byte for byte, and which port sends what.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fmt/format.h>

#include "host/host_announce.h"
#include "host_fixture.h"

namespace {

using namespace hpn;
using namespace hpn::host;

const Mac kMac{0x02, 0x4e, 0x10, 0x00, 0x00, 0x01};

// RFC 1071 sum of 16-bit words, written apart from the code under test.
std::uint32_t sum16(const std::vector<std::uint8_t>& b, size_t from, size_t to) {
  std::uint32_t s = 0;
  for (size_t i = from; i < to; i += 2) s += (std::uint32_t{b[i]} << 8) + (i + 1 < to ? b[i + 1] : 0);
  return s;
}

}  // namespace

TEST_CASE("host announce: a gratuitous ARP is a broadcast ARP request for the host's own address", "[host]") {
  const auto f = garp_frame(kMac, "10.0.0.16");
  const std::vector<std::uint8_t> head = {
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x4e, 0x10, 0x00, 0x00, 0x01, 0x08, 0x06,  // Ethernet
      0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,                                      // ARP request
      0x02, 0x4e, 0x10, 0x00, 0x00, 0x01, 10, 0, 0, 16,                                    // sender
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 10, 0, 0, 16};                                   // target
  REQUIRE(f.size() == 60);
  CHECK(std::vector<std::uint8_t>(f.begin(), f.begin() + 42) == head);
  CHECK(std::all_of(f.begin() + 42, f.end(), [](std::uint8_t b) { return b == 0; }));
}

TEST_CASE("host announce: an unsolicited NA has hop limit 255, the override flag, the MAC option and a valid checksum", "[host]") {
  const auto f = na_frame(kMac, "fd48:504e::10");
  REQUIRE(f.size() == 14 + 40 + 32);
  const std::vector<std::uint8_t> eth = {0x33, 0x33, 0, 0, 0, 1, 0x02, 0x4e, 0x10, 0, 0, 1, 0x86, 0xdd};
  CHECK(std::vector<std::uint8_t>(f.begin(), f.begin() + 14) == eth);
  CHECK(f[14] >> 4 == 6);
  CHECK((f[18] << 8 | f[19]) == 32);  // payload length
  CHECK(f[20] == 58);                 // ICMPv6
  CHECK(f[21] == 255);                // hop limit
  in6_addr src{}, dst{};
  inet_pton(AF_INET6, "fd48:504e::10", &src);
  inet_pton(AF_INET6, "ff02::1", &dst);
  CHECK(std::equal(f.begin() + 22, f.begin() + 38, src.s6_addr));
  CHECK(std::equal(f.begin() + 38, f.begin() + 54, dst.s6_addr));
  const size_t icmp = 54;
  CHECK(f[icmp] == 136);
  CHECK(f[icmp + 1] == 0);
  CHECK(f[icmp + 4] == 0x20);  // R=0 S=0 O=1
  CHECK(std::equal(f.begin() + icmp + 8, f.begin() + icmp + 24, src.s6_addr));  // target
  CHECK(f[icmp + 24] == 2);    // target link-layer address option
  CHECK(f[icmp + 25] == 1);    // 8 bytes
  CHECK(std::equal(f.begin() + icmp + 26, f.begin() + icmp + 32, kMac.begin()));
  // Pseudo-header (source, destination, length 32, next header 58) plus the
  // message, checksum included, sums to 0xffff.
  std::uint32_t s = sum16(f, 22, 54) + 32 + 58 + sum16(f, icmp, f.size());
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  CHECK(s == 0xffff);
}

TEST_CASE("host announce: each member port sends for its bond, with the bond's MAC or, without a bond, its own", "[host]") {
  auto p = parse_apply_profile(hpn::test::lab_profile_text(), "h0.json");
  REQUIRE(p.ok());
  HostState s;
  s.links = {{"nic1p1", 2, "veth", "02:4e:10:00:00:01", 4200, true, ""}, {"nic1p2", 3, "veth", "6e:00:00:00:00:03", 4200, true, ""},
             {"nic2p1", 4, "veth", "6e:00:00:00:00:04", 4200, true, "bond2"}, {"nic2p2", 5, "veth", "6e:00:00:00:00:05", 4200, true, "bond2"},
             {"bond2", 6, "bond", "02:4e:10:00:00:02", 4200, true, ""}};
  auto a = plan_announcements(p.value(), s);
  REQUIRE(a.ok());
  REQUIRE(a->size() == 8);
  auto line = [](const Announcement& x) {
    return fmt::format("{} {} {} {} {}", x.port, x.bond, x.kind == AnnounceKind::garp ? "garp" : "na", x.address, hpn::to_string(x.mac));
  };
  CHECK(line((*a)[0]) == "nic1p1 bond1 garp 10.0.0.16 02:4e:10:00:00:01");
  CHECK(line((*a)[1]) == "nic1p1 bond1 na fd48:504e::10 02:4e:10:00:00:01");
  CHECK(line((*a)[2]) == "nic1p2 bond1 garp 10.0.0.16 6e:00:00:00:00:03");
  CHECK(line((*a)[5]) == "nic2p1 bond2 na fd48:504e:0:1::10 02:4e:10:00:00:02");
  CHECK(line((*a)[7]) == "nic2p2 bond2 na fd48:504e:0:1::10 02:4e:10:00:00:02");

  s.links[3].up = false;
  auto down = plan_announcements(p.value(), s);
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().message == "member port nic2p2 of bond2 is down: nothing would leave it");
}

TEST_CASE("host announce: every round sends every frame, and the first error stops it", "[host]") {
  struct Recorder final : FrameSender {
    std::vector<std::string> sent;
    hpn::Status send(const std::string& port, const std::vector<std::uint8_t>& frame) override {
      sent.push_back(port + ":" + std::to_string(frame.size()));
      if (port == "bad") return hpn::Error{"send on bad: Network is down"};
      return {};
    }
  };
  std::vector<Announcement> a = {{"p1", "b", AnnounceKind::garp, "10.0.0.1", kMac}, {"p2", "b", AnnounceKind::na, "fd00::1", kMac}};
  Recorder r;
  REQUIRE(send_announcements(a, 2, r).ok());
  CHECK(r.sent == std::vector<std::string>{"p1:60", "p2:86", "p1:60", "p2:86"});
  a.insert(a.begin(), {"bad", "b", AnnounceKind::garp, "10.0.0.1", kMac});
  Recorder failing;
  auto sent = send_announcements(a, 1, failing);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().message == "send on bad: Network is down");
  CHECK(failing.sent.size() == 1);
}
