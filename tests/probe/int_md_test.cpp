#include "probe/int_md.h"

#include <catch2/catch.hpp>

#include <random>

using namespace hpn::probe;

namespace {

// INT v2.1, "Examples" / "Example with INT in-between UDP header and UDP
// payload", as received by the sink Switch3: shim Type=1 NPT=1 Length=7
// (3 header words + 2 hops x hop ML 2), original port XYZ (here 5000);
// Ver=2, HopML=2, RemainingHopC=6 (8 minus two hops); bitmap 1001 0000...
// = 0x9000 = bit 0 (switch id) + bit 3 (queue id + occupancy); then hop 2's
// metadata, then hop 1's, then the UDP payload. The spec leaves the metadata
// values open; these are ours.
const std::vector<std::byte> kSpecExample = to_bytes({
    0x14, 0x07, 0x13, 0x88,  // shim
    0x20, 0x00, 0x02, 0x06,  // Ver 2, D E M 0, hop ML 2, RHC 6
    0x90, 0x00, 0x00, 0x00,  // instruction bitmap, domain id
    0x00, 0x00, 0x00, 0x00,  // DS instruction, DS flags
    0x00, 0x00, 0x00, 0x22,  // sw id of hop2
    0x02, 0x00, 0x00, 0x40,  // queue id 2, occupancy 0x40 of hop2
    0x00, 0x00, 0x00, 0x11,  // sw id of hop1
    0x01, 0x00, 0x00, 0x20,  // queue id 1, occupancy 0x20 of hop1
    'p', 'a', 'y'});

IntHopRecord queue_hop(std::uint32_t id, std::uint8_t queue, std::uint32_t occupancy) {
  IntHopRecord h;
  h.node_id = id;
  h.queue_id = queue;
  h.queue_occupancy = occupancy;
  return h;
}

IntHopRecord wiring_hop(std::uint32_t id, std::uint16_t in, std::uint16_t out) {
  IntHopRecord h;
  h.node_id = id;
  h.l1_ingress_port = in;
  h.l1_egress_port = out;
  return h;
}

std::vector<std::byte> udp_datagram(std::span<const std::byte> payload,
                                    std::uint16_t dst = kIntUdpPort) {
  ByteWriter w;
  w.be16(40000).be16(dst).be16(static_cast<std::uint16_t>(8 + payload.size())).be16(0);
  w.bytes(payload);
  return std::move(w).take();
}

std::vector<std::byte> wiring_probe(unsigned hops) {
  auto p = build_int_md({}).value();
  for (unsigned i = 1; i <= hops; ++i) {
    auto out = int_md_transit(p, wiring_hop(i, static_cast<std::uint16_t>(100 + i),
                                            static_cast<std::uint16_t>(200 + i)));
    REQUIRE(*out == IntTransitOutcome::pushed);
  }
  return p;
}

}  // namespace

TEST_CASE("probe/int: the spec's INT-MD over UDP example decodes in path order", "[probe][int]") {
  auto s = decode_int_md(kSpecExample);
  REQUIRE(s);
  CHECK(s->shim == IntShim{kIntShimTypeMd, kIntNptOriginalUdpPort, 7, 5000});
  CHECK(s->header.version == 2);
  CHECK_FALSE(s->header.discard);
  CHECK(s->header.hop_ml == 2);
  CHECK(s->header.remaining_hop_count == 6);
  CHECK(s->header.instruction_bitmap == (int_bit::node_id | int_bit::queue));
  CHECK(s->payload_offset == 32);
  REQUIRE(s->hops.size() == 2);
  CHECK(s->hops[0] == queue_hop(0x11, 1, 0x20));
  CHECK(s->hops[1] == queue_hop(0x22, 2, 0x40));
}

TEST_CASE("probe/int: a source and two transits rebuild the spec's example byte for byte",
          "[probe][int]") {
  IntMdSourceRequest src;
  src.instruction_bitmap = 0x9000;
  src.max_hops = 8;
  src.discard = false;
  src.npt_field = 5000;
  auto p = build_int_md(src).value();
  CHECK(p == to_bytes({0x14, 0x03, 0x13, 0x88, 0x20, 0x00, 0x02, 0x08,  //
                       0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}));
  for (int c : {'p', 'a', 'y'}) p.push_back(std::byte(c));
  REQUIRE(*int_md_transit(p, queue_hop(0x11, 1, 0x20)) == IntTransitOutcome::pushed);
  REQUIRE(*int_md_transit(p, queue_hop(0x22, 2, 0x40)) == IntTransitOutcome::pushed);
  CHECK(p == kSpecExample);
}

TEST_CASE("probe/int: a wiring probe over UDP carries switch id and ports per hop",
          "[probe][int]") {
  auto empty = build_int_md({}).value();
  // Default: bitmap 0xC000, hop ML 2, RHC 8, D set so the sink drops the probe.
  CHECK(empty == to_bytes({0x14, 0x03, 0x00, 0x00, 0x28, 0x00, 0x02, 0x08,  //
                           0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}));
  const auto udp = udp_datagram(wiring_probe(3));
  auto s = decode_int_udp(udp);
  REQUIRE(s);
  CHECK(s->header.discard);
  CHECK(s->shim.length == 3 + 3 * 2);
  CHECK(s->header.remaining_hop_count == 5);
  REQUIRE(s->hops.size() == 3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(s->hops[i] == wiring_hop(i + 1, static_cast<std::uint16_t>(101 + i),
                                   static_cast<std::uint16_t>(201 + i)));
  }
  // The port is a parameter: the same datagram is not INT on another port.
  auto other = decode_int_udp(udp, 4790);
  CHECK(other.error().to_string() ==
        "malformed at byte 2: UDP destination port 17768 is not the INT port 4790");
  CHECK(decode_int_udp(udp_datagram(wiring_probe(1), 4790), 4790));
}

TEST_CASE("probe/int: an exhausted hop count sets E and pushes nothing", "[probe][int]") {
  IntMdSourceRequest src;
  src.max_hops = 2;
  auto p = build_int_md(src).value();
  REQUIRE(*int_md_transit(p, wiring_hop(1, 1, 1)) == IntTransitOutcome::pushed);
  REQUIRE(*int_md_transit(p, wiring_hop(2, 2, 2)) == IntTransitOutcome::pushed);
  const auto size = p.size();
  CHECK(*int_md_transit(p, wiring_hop(3, 3, 3)) == IntTransitOutcome::hop_count_exceeded);
  CHECK(p.size() == size);
  auto s = decode_int_md(p).value();
  CHECK(s.header.hop_count_exceeded);
  CHECK(s.header.remaining_hop_count == 0);
  CHECK(s.hops.size() == 2);
  CHECK(std::to_integer<int>(p[4]) == 0x2c);  // Ver 2 | D | E
}

TEST_CASE("probe/int: no room for a hop's metadata sets M and pushes nothing", "[probe][int]") {
  auto p = build_int_md({}).value();
  CHECK(*int_md_transit(p, wiring_hop(1, 1, 1), /*room=*/7) == IntTransitOutcome::mtu_exceeded);
  auto s = decode_int_md(p).value();
  CHECK(s.header.mtu_exceeded);
  CHECK(s.header.remaining_hop_count == 8);
  CHECK(s.hops.empty());
}

TEST_CASE("probe/int: every supported instruction round trips, unavailable ones flagged",
          "[probe][int]") {
  IntMdSourceRequest src;
  src.instruction_bitmap = 0xFF81;  // bits 0-8 and 15
  src.hop_ml = 15;                  // 13 baseline words + 2 domain-specific
  src.max_hops = 4;
  auto p = build_int_md(src).value();

  IntHopRecord full;
  full.node_id = 7u;
  full.l1_ingress_port = 1;
  full.l1_egress_port = 2;
  full.hop_latency = 850u;
  full.queue_id = 3;
  full.queue_occupancy = 0x123456u;
  full.ingress_timestamp = 0x0102030405060708ULL;
  full.egress_timestamp = 0x1112131415161718ULL;
  full.l2_ingress_port = 70000u;
  full.l2_egress_port = 80000u;
  full.egress_tx_utilization = 42u;
  full.buffer_id = 9;
  full.buffer_occupancy = 0xABCDEFu;
  full.domain_specific = {0xD5};  // the second word is padded with ones
  full.checksum_complement = 0xCAFEu;
  REQUIRE(*int_md_transit(p, full) == IntTransitOutcome::pushed);
  REQUIRE(*int_md_transit(p, IntHopRecord{}) == IntTransitOutcome::pushed);

  auto s = decode_int_md(p).value();
  REQUIRE(s.hops.size() == 2);
  auto expected = full;
  expected.domain_specific = {0xD5, 0xFFFFFFFF};
  CHECK(s.hops[0] == expected);
  const auto& b = s.hops[1];
  CHECK(b.node_id == HopValue<std::uint32_t>::not_available(0xFFFFFFFF));
  CHECK(b.l1_ingress_port == HopValue<std::uint16_t>::not_available(0xFFFF));
  CHECK(b.queue_id == HopValue<std::uint8_t>::not_available(0xFF));
  CHECK(b.queue_occupancy == HopValue<std::uint32_t>::not_available(0xFFFFFF));
  CHECK(b.egress_timestamp->unavailable);
  CHECK(b.l2_egress_port->unavailable);
  CHECK(b.checksum_complement->unavailable);

  // Queue id 0xFF with a real occupancy is a value, not "unavailable".
  auto q = build_int_md({.instruction_bitmap = int_bit::queue}).value();
  REQUIRE(*int_md_transit(q, queue_hop(0, 0xFF, 5)) == IntTransitOutcome::pushed);
  CHECK_FALSE(decode_int_md(q)->hops[0].queue_id->unavailable);
}

TEST_CASE("probe/int: INT versions other than 2 are refused by name", "[probe][int]") {
  auto v1 = kSpecExample;
  v1[4] = std::byte{0x10};
  CHECK(decode_int_md(v1).error().to_string() ==
        "malformed at byte 4: INT metadata header version 1 is not supported: only version 2 "
        "(INT v2.0/v2.1); INT 0.5 and 1.0 use a different 8-byte header with a tail header");
  auto v0 = kSpecExample;
  v0[4] = std::byte{0x00};
  CHECK(decode_int_md(v0).error().kind == ErrorKind::malformed);

  auto mx = kSpecExample;
  mx[0] = std::byte{0x34};
  CHECK(decode_int_md(mx).error().to_string() ==
        "malformed at byte 0: INT shim type 3 (INT-MX) is not INT-MD (1)");
}

TEST_CASE("probe/int: every truncation of a valid INT probe is reported as truncated",
          "[probe][int]") {
  const auto udp = udp_datagram(kSpecExample);
  for (std::size_t n = 0; n < udp.size(); ++n) {
    auto r = decode_int_udp(std::span(udp).first(n));
    INFO("prefix of " << n << " bytes");
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == ErrorKind::truncated);
  }
  for (std::size_t n = 0; n < 32; ++n) {  // the payload after the stack is optional
    auto r = decode_int_md(std::span(kSpecExample).first(n));
    INFO("INT prefix of " << n << " bytes");
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == ErrorKind::truncated);
  }
  CHECK(decode_int_md(std::span(kSpecExample).first(32)));
}

TEST_CASE("probe/int: corrupt INT headers are malformed, with the spot named", "[probe][int]") {
  auto corrupt = [](std::size_t at, int value) {
    auto p = kSpecExample;
    p[at] = std::byte(value);
    return decode_int_md(p);
  };
  CHECK(corrupt(1, 2).error().to_string() ==
        "malformed at byte 1: INT shim length 2 words is shorter than the 3-word INT-MD "
        "header");
  CHECK(corrupt(0, 0x1c).error().to_string() == "malformed at byte 0: INT shim NPT 3 is reserved");
  CHECK(corrupt(9, 0x40).error().to_string() ==
        "malformed at byte 8: INT instruction bitmap 0x9040 sets reserved bits 9-14");
  CHECK(corrupt(6, 0x01).error().to_string() ==
        "malformed at byte 6: INT hop ML 1 words is less than the 2 words instruction bitmap "
        "0x9000 asks for");
  CHECK(corrupt(1, 6).error().to_string() ==
        "malformed at byte 16: INT stack of 12 bytes is not a whole number of 8-byte hops "
        "(source-only domain-specific metadata is not supported)");
  // A shim length past the end of a complete UDP datagram is malformed too.
  auto udp = udp_datagram(kSpecExample);
  udp[8 + 1] = std::byte{0x20};
  CHECK(decode_int_udp(udp).error().kind == ErrorKind::malformed);
  udp = udp_datagram(kSpecExample);
  udp[5] = std::byte{4};  // UDP length 4
  CHECK(decode_int_udp(udp).error().to_string() == "malformed at byte 4: UDP length 4 is below 8");
}

TEST_CASE("probe/int: build_int_md refuses what the header cannot carry", "[probe][int]") {
  CHECK(build_int_md({.hop_ml = 32}).error().kind == ErrorKind::invalid_argument);
  CHECK(build_int_md({.hop_ml = 1}).error().kind == ErrorKind::invalid_argument);
  CHECK(build_int_md({.instruction_bitmap = 0x0002}).error().kind == ErrorKind::invalid_argument);
  CHECK(build_int_md({.npt = 3}).error().kind == ErrorKind::invalid_argument);
  CHECK(build_int_md({.max_hops = 200}).error().to_string() ==
        "invalid argument: 200 hops of 2 words make a 403-word INT header; the shim length "
        "field holds 255");
  CHECK(*int_baseline_words(0xFF81) == 13);
}

TEST_CASE("probe/int: random and mutated bytes never crash the INT decoder or transit",
          "[probe][int][fuzz]") {
  std::mt19937 rng(0x17768);
  const auto good = udp_datagram(kSpecExample);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> p;
    if (i % 2 == 0) {
      p.resize(std::uniform_int_distribution<std::size_t>(0, 96)(rng));
      for (auto& b : p) b = std::byte(byte(rng));
      if (p.size() > 8 && i % 4 == 0) p[4] = std::byte{0x20};  // a plausible version
    } else {
      p = good;
      const int flips = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int f = 0; f < flips; ++f) {
        p[std::uniform_int_distribution<std::size_t>(0, p.size() - 1)(rng)] =
            std::byte(byte(rng));
      }
    }
    auto r = decode_int_md(p);
    if (!r) {
      CHECK(r.error().offset <= p.size());
    } else {
      CHECK(r->payload_offset <= p.size());
    }
    auto u = decode_int_udp(p);
    if (!u) CHECK(u.error().offset <= p.size());
    auto copy = p;
    auto t = int_md_transit(copy, wiring_hop(1, 2, 3));
    if (t && *t == IntTransitOutcome::pushed) {
      auto after = decode_int_md(copy);
      REQUIRE(after);
      CHECK(after->hops.size() == r->hops.size() + 1);
    }
  }
}
