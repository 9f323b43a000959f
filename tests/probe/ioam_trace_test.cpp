#include "probe/ioam_trace.h"

#include <catch2/catch.hpp>

#include <random>

#include "ipv6_packet.h"

using namespace hpn::probe;
using hpn::probe::testing::ipv6_udp_packet;

namespace {

IoamNode node(std::uint32_t id, std::uint16_t in, std::uint16_t out, std::uint16_t ns = 123) {
  IoamNode n;
  n.namespace_id = ns;
  n.data.node_id = id;
  n.data.ingress_if = in;
  n.data.egress_if = out;
  return n;
}

std::vector<std::byte> default_hbh(unsigned hops = 3) {
  IoamTraceRequest req;
  req.namespace_id = 123;
  req.hops = hops;
  return build_ioam_hbh(req).value();
}

std::vector<std::byte> filled_packet() {
  auto packet = ipv6_udp_packet(default_hbh(), to_bytes({'h', 'p', 'n', '!'}));
  for (std::uint32_t i = 1; i <= 3; ++i) {
    auto n = node(i, static_cast<std::uint16_t>(10 * i + 1),
                  static_cast<std::uint16_t>(10 * i + 2));
    REQUIRE(*ioam_transit_ipv6(packet, n) == IoamTransitOutcome::written);
  }
  return packet;
}

}  // namespace

TEST_CASE("probe/ioam: build_ioam_hbh lays out the header byte for byte", "[probe][ioam]") {
  // RFC 9486 option 0x31 after a 2-byte PadN; RFC 9197 trace header with
  // NodeLen 2 (bits 0+1), RemainingLen 6 words = 3 hops; 24 zero bytes.
  auto expected = to_bytes({0x11, 0x04, 0x01, 0x00,  //
                            0x31, 0x22, 0x00, 0x00,  //
                            0x00, 0x7b, 0x10, 0x06,  //
                            0xc0, 0x00, 0x00, 0x00});
  expected.resize(40);
  CHECK(default_hbh() == expected);
}

TEST_CASE("probe/ioam: build_ioam_hbh pads to a multiple of 8 with PadN", "[probe][ioam]") {
  IoamTraceRequest req;
  req.namespace_id = 7;
  req.trace_type = ioam_bit::hop_limit_node_id;  // 1 word per hop
  req.hops = 3;
  auto expected = to_bytes({0x11, 0x03, 0x01, 0x00, 0x31, 0x16, 0x00, 0x00,
                            0x00, 0x07, 0x08, 0x03, 0x80, 0x00, 0x00, 0x00});
  expected.resize(28);
  for (int b : {0x01, 0x02, 0x00, 0x00}) expected.push_back(std::byte(b));
  CHECK(*build_ioam_hbh(req) == expected);

  for (unsigned hops = 1; hops <= 61; ++hops) {
    req.hops = hops;
    auto hbh = build_ioam_hbh(req);
    REQUIRE(hbh);
    CHECK(hbh->size() % 8 == 0);
    CHECK(std::to_integer<int>((*hbh)[4]) == kHbhOptionIoam);  // 4n-aligned option
    auto traces = decode_ioam_hbh(*hbh);
    REQUIRE(traces);
    CHECK(traces->at(0).remaining_len == hops);
    CHECK(traces->at(0).hops.empty());
  }
}

TEST_CASE("probe/ioam: build_ioam_hbh refuses what the option cannot carry", "[probe][ioam]") {
  IoamTraceRequest req;
  req.hops = 31;  // 31 * 8 = 248 > 244
  auto r = build_ioam_hbh(req);
  REQUIRE_FALSE(r);
  CHECK(r.error().to_string() ==
        "invalid argument: room for 31 hops of 8 bytes needs 248 bytes of trace data; an IPv6 "
        "option holds at most 244 (30 hops)");
  req.hops = 0;
  CHECK(build_ioam_hbh(req).error().kind == ErrorKind::invalid_argument);
  req.hops = 4;
  req.trace_type = 0x000800;  // bit 12, undefined
  CHECK(build_ioam_hbh(req).error().kind == ErrorKind::invalid_argument);
  req.trace_type = 0;
  CHECK(build_ioam_hbh(req).error().kind == ErrorKind::invalid_argument);
  req.trace_type = kIoamDefaultTraceType;
  req.snapshot_words = 1;  // without bit 22
  CHECK(build_ioam_hbh(req).error().kind == ErrorKind::invalid_argument);
}

TEST_CASE("probe/ioam: ioam_node_len counts short and wide fields", "[probe][ioam]") {
  CHECK(*ioam_node_len(kIoamDefaultTraceType) == 2);
  CHECK(*ioam_node_len(0xFFF000) == 8 + 1 + 3 * 2);  // bits 0-11
  CHECK(*ioam_node_len(ioam_bit::opaque_state_snapshot) == 0);
  CHECK_FALSE(ioam_node_len(0x000001));  // reserved bit 23
}

TEST_CASE("probe/ioam: transit writes at the end of the free space, as Linux does",
          "[probe][ioam]") {
  auto hbh = default_hbh();
  auto n1 = node(1, 11, 12);
  n1.data.hop_limit = 63;
  auto n2 = node(2, 21, 22);
  n2.data.hop_limit = 62;
  REQUIRE(*ioam_transit_hbh(hbh, n1) == IoamTransitOutcome::written);
  REQUIRE(*ioam_transit_hbh(hbh, n2) == IoamTransitOutcome::written);
  const auto expected = to_bytes({0x11, 0x04, 0x01, 0x00, 0x31, 0x22, 0x00, 0x00,  //
                                  0x00, 0x7b, 0x10, 0x02, 0xc0, 0x00, 0x00, 0x00,  //
                                  0, 0, 0, 0, 0, 0, 0, 0,                          // free
                                  0x3e, 0x00, 0x00, 0x02, 0x00, 0x15, 0x00, 0x16,  // node 2
                                  0x3f, 0x00, 0x00, 0x01, 0x00, 0x0b, 0x00, 0x0c}); // node 1
  CHECK(hbh == expected);
}

TEST_CASE("probe/ioam: decoder returns hops in path order with the packet's hop limits",
          "[probe][ioam]") {
  const auto packet = filled_packet();
  auto traces = decode_ioam_ipv6(packet);
  REQUIRE(traces);
  REQUIRE(traces->size() == 1);
  const auto& t = traces->front();
  CHECK(t.offset == 44);
  CHECK(t.namespace_id == 123);
  CHECK(t.trace_type == kIoamDefaultTraceType);
  CHECK(t.node_len == 2);
  CHECK(t.remaining_len == 0);
  CHECK_FALSE(t.overflow());
  REQUIRE(t.hops.size() == 3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(t.hops[i].node_id->value == i + 1);
    CHECK(t.hops[i].ingress_if->value == 10 * (i + 1) + 1);
    CHECK(t.hops[i].egress_if->value == 10 * (i + 1) + 2);
    // The IPv6 hop limit is 64 at every node here: each writes 64 - 1.
    CHECK(t.hops[i].hop_limit->value == 63);
    CHECK_FALSE(t.hops[i].node_id->unavailable);
    CHECK_FALSE(t.hops[i].timestamp_secs.has_value());
  }
}

TEST_CASE("probe/ioam: a full trace sets Overflow and keeps its records", "[probe][ioam]") {
  auto packet = filled_packet();
  const auto before = decode_ioam_ipv6(packet)->front().hops;
  CHECK(*ioam_transit_ipv6(packet, node(4, 41, 42)) == IoamTransitOutcome::overflow);
  auto t = decode_ioam_ipv6(packet)->front();
  CHECK(t.overflow());
  CHECK(t.flags == kIoamFlagOverflow);
  CHECK(t.hops == before);
  CHECK(std::to_integer<int>(packet[40 + 10]) == 0x14);  // NodeLen 2 | O, RemainingLen 0
  // A later node sees Overflow already set and leaves the trace alone.
  const auto again = packet;
  CHECK(*ioam_transit_ipv6(packet, node(5, 51, 52)) == IoamTransitOutcome::overflow);
  CHECK(packet == again);
}

TEST_CASE("probe/ioam: transit leaves traces of other namespaces and non-HbH packets alone",
          "[probe][ioam]") {
  auto packet = ipv6_udp_packet(default_hbh(), {});
  const auto before = packet;
  CHECK(*ioam_transit_ipv6(packet, node(1, 1, 1, /*ns=*/9)) ==
        IoamTransitOutcome::not_for_this_node);
  CHECK(packet == before);

  auto no_hbh = packet;
  no_hbh[6] = std::byte{17};  // next header UDP: the HbH bytes are now payload
  CHECK(*ioam_transit_ipv6(no_hbh, node(1, 1, 1)) == IoamTransitOutcome::not_for_this_node);
  CHECK(decode_ioam_ipv6(no_hbh)->empty());
}

TEST_CASE("probe/ioam: all fixed-size fields of bits 0-11 round trip, unavailable ones flagged",
          "[probe][ioam]") {
  IoamTraceRequest req;
  req.trace_type = 0xFFF000;
  req.hops = 2;
  auto hbh = build_ioam_hbh(req).value();

  IoamNode full;
  auto& d = full.data;
  d.hop_limit = 9;
  d.node_id = 0xABCDEF;
  d.ingress_if = 1;
  d.egress_if = 2;
  d.timestamp_secs = 1700000000u;
  d.timestamp_frac = 123456u;
  d.transit_delay = 77u;
  d.namespace_data = 0xDEADBEEFu;
  d.queue_depth = 4096u;
  d.checksum_complement = 0x1234u;
  d.hop_limit_wide = 9;
  d.node_id_wide = 0x00112233445566ULL;
  d.ingress_if_wide = 100000u;
  d.egress_if_wide = 200000u;
  d.namespace_data_wide = 0x0102030405060708ULL;
  d.buffer_occupancy = 5u;
  REQUIRE(*ioam_transit_hbh(hbh, full) == IoamTransitOutcome::written);

  IoamNode blank;  // knows nothing: every field all ones, like a default Linux node
  REQUIRE(*ioam_transit_hbh(hbh, blank) == IoamTransitOutcome::written);

  auto t = decode_ioam_hbh(hbh)->front();
  REQUIRE(t.hops.size() == 2);
  CHECK(t.hops[0] == d);
  const auto& b = t.hops[1];
  CHECK(b.hop_limit->unavailable);
  CHECK(b.node_id == HopValue<std::uint32_t>::not_available(0xFFFFFF));
  CHECK(b.ingress_if == HopValue<std::uint16_t>::not_available(0xFFFF));
  CHECK(b.timestamp_secs->unavailable);
  CHECK(b.node_id_wide == HopValue<std::uint64_t>::not_available(0x00FFFFFFFFFFFFFF));
  CHECK(b.egress_if_wide->unavailable);
  CHECK(b.namespace_data_wide->unavailable);
  CHECK(b.buffer_occupancy->unavailable);
}

TEST_CASE("probe/ioam: opaque state snapshots make records of different lengths", "[probe][ioam]") {
  IoamTraceRequest req;
  req.trace_type = ioam_bit::hop_limit_node_id | ioam_bit::opaque_state_snapshot;
  req.hops = 2;
  req.snapshot_words = 1;  // 2 hops * (1 + 1 + 1) words
  auto hbh = build_ioam_hbh(req).value();
  IoamNode with;
  with.data.node_id = 1;
  with.data.opaque_snapshot = IoamOpaqueSnapshot{0x000042, to_bytes({1, 2, 3, 4})};
  IoamNode without;  // no schema: Linux writes only the 0x00FFFFFF header
  without.data.node_id = 2;
  REQUIRE(*ioam_transit_hbh(hbh, with) == IoamTransitOutcome::written);
  REQUIRE(*ioam_transit_hbh(hbh, without) == IoamTransitOutcome::written);
  auto t = decode_ioam_hbh(hbh)->front();
  CHECK(t.remaining_len == 1);
  REQUIRE(t.hops.size() == 2);
  CHECK(t.hops[0].opaque_snapshot == with.data.opaque_snapshot);
  CHECK(t.hops[1].opaque_snapshot->unavailable());
  CHECK(t.hops[1].node_id->value == 2);

  with.data.opaque_snapshot->data.pop_back();  // not whole words
  auto bad = ioam_transit_hbh(hbh, with);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == ErrorKind::invalid_argument);
}

TEST_CASE("probe/ioam: an incremental trace decodes all its data as records", "[probe][ioam]") {
  const auto hbh = to_bytes({0x11, 0x02, 0x01, 0x00, 0x31, 0x12, 0x00, 0x01,  //
                             0x00, 0x05, 0x08, 0x04, 0x80, 0x00, 0x00, 0x00,  //
                             0x3e, 0x00, 0x00, 0x02, 0x3f, 0x00, 0x00, 0x01});
  auto t = decode_ioam_hbh(hbh)->front();
  CHECK(t.mode == IoamTraceMode::incremental);
  REQUIRE(t.hops.size() == 2);
  CHECK(t.hops[0].node_id->value == 1);
  CHECK(t.hops[1].node_id->value == 2);
}

TEST_CASE("probe/ioam: every truncation of a valid packet is reported as truncated",
          "[probe][ioam]") {
  const auto packet = filled_packet();
  for (std::size_t n = 0; n < packet.size(); ++n) {
    auto r = decode_ioam_ipv6(std::span(packet).first(n));
    INFO("prefix of " << n << " bytes");
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == ErrorKind::truncated);
    CHECK(r.error().offset <= n);
  }
  const auto hbh = std::span(packet).subspan(40, 40);
  for (std::size_t n = 0; n < hbh.size(); ++n) {
    auto r = decode_ioam_hbh(hbh.first(n));
    INFO("HbH prefix of " << n << " bytes");
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == ErrorKind::truncated);
  }
}

TEST_CASE("probe/ioam: corrupt headers are malformed, with the spot named", "[probe][ioam]") {
  const auto good = filled_packet();
  auto corrupt = [&](std::size_t at, int value) {
    auto p = good;
    p[at] = std::byte(value);
    return decode_ioam_ipv6(p);
  };
  auto version = corrupt(0, 0x45);
  CHECK(version.error().to_string() == "malformed at byte 0: IP version 4 is not 6");

  auto nodelen = corrupt(50, 0x18);  // NodeLen 3 for a 2-word trace type
  CHECK(nodelen.error().to_string() ==
        "malformed at byte 50: IOAM NodeLen 3 does not match trace type 0xc00000, which "
        "needs 2 words per node");

  auto remlen = corrupt(51, 0x07);  // 7 words of free space in 24 bytes of data
  CHECK(remlen.error().kind == ErrorKind::malformed);
  CHECK(remlen.error().offset == 50);

  auto ragged = corrupt(51, 0x01);  // 4 free bytes leave 20: not whole 8-byte records
  CHECK(ragged.error().to_string() ==
        "malformed at byte 60: 20 bytes of IOAM node data are not a whole number of 8-byte "
        "records");

  auto undefined = corrupt(54, 0x08);  // bit 20, undefined
  CHECK(undefined.error().kind == ErrorKind::malformed);
  CHECK(undefined.error().offset == 52);

  auto option_len = corrupt(45, 0x40);
  CHECK(option_len.error().to_string() ==
        "malformed at byte 44: option 0x31 declares 64 data bytes, 34 remain in the "
        "Hop-by-Hop header");

  auto hbh_len = corrupt(41, 0x09);  // an 80-byte HbH in a 52-byte payload
  CHECK(hbh_len.error().kind == ErrorKind::malformed);

  // The IOAM option right after the HbH header (offset 2) is not 4n-aligned.
  auto misaligned = to_bytes({0x11, 0x01, 0x31, 0x0a, 0x00, 0x00, 0x00, 0x7b,
                              0x08, 0x00, 0x80, 0x00, 0x00, 0x00, 0x01, 0x00});
  CHECK(decode_ioam_hbh(misaligned).error().to_string() ==
        "malformed at byte 2: IOAM option at Hop-by-Hop offset 2 is not 4n-aligned (RFC 9486; "
        "Linux drops such packets)");

  // A transit node refuses a malformed packet and leaves it as it was.
  auto p = good;
  p[50] = std::byte{0x18};
  const auto before = p;
  CHECK_FALSE(ioam_transit_ipv6(p, node(9, 9, 9)));
  CHECK(p == before);
}

TEST_CASE("probe/ioam: random and mutated bytes never crash the decoder or the transit",
          "[probe][ioam][fuzz]") {
  std::mt19937 rng(0x5eed);
  const auto good = filled_packet();
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> p;
    if (i % 2 == 0) {
      p.resize(std::uniform_int_distribution<std::size_t>(0, 120)(rng));
      for (auto& b : p) b = std::byte(byte(rng));
      if (p.size() > 6 && i % 4 == 0) p[0] = std::byte{0x60}, p[6] = std::byte{0};
    } else {
      p = good;
      const int flips = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int f = 0; f < flips; ++f) {
        p[std::uniform_int_distribution<std::size_t>(0, p.size() - 1)(rng)] =
            std::byte(byte(rng));
      }
    }
    auto r = decode_ioam_ipv6(p);
    if (r) {
      for (const auto& t : *r) CHECK(t.hops.size() * 4 <= p.size());
    } else {
      CHECK(r.error().offset <= p.size());
      CHECK(r.error().kind != ErrorKind::invalid_argument);
    }
    auto h = decode_ioam_hbh(p);
    if (!h) CHECK(h.error().offset <= p.size());
    // Writing a record into a packet that decodes keeps it decodable.
    auto copy = p;
    auto t = ioam_transit_ipv6(copy, node(7, 7, 7));
    if (r && t && *t == IoamTransitOutcome::written) CHECK(decode_ioam_ipv6(copy));
    if (!t) CHECK(copy == p);
  }
}
