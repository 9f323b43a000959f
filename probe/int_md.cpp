#include "probe/int_md.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace hpn::probe {
namespace {

constexpr std::uint16_t kReservedBits = 0x007E;  // bits 9-14
constexpr std::size_t kMdHeaderBytes = 12;
constexpr std::size_t kShimBytes = 4;
// Flag bits in the first byte of the MD header: Ver(4) D E M R.
constexpr std::byte kFlagE{0x04};
constexpr std::byte kFlagM{0x02};

std::string_view shim_type_name(unsigned type) {
  switch (type) {
    case 1: return "INT-MD";
    case 2: return "INT-Destination";
    case 3: return "INT-MX";
    default: return "unassigned";
  }
}

// Baseline metadata sizes in words, in bitmap order (bit 15 handled apart).
struct Instruction { std::uint16_t bit; unsigned words; };
constexpr Instruction kBaseline[] = {
    {int_bit::node_id, 1},           {int_bit::l1_port_ids, 1},
    {int_bit::hop_latency, 1},       {int_bit::queue, 1},
    {int_bit::ingress_timestamp, 2}, {int_bit::egress_timestamp, 2},
    {int_bit::l2_port_ids, 2},       {int_bit::egress_tx_utilization, 1},
    {int_bit::buffer, 1},            {int_bit::checksum_complement, 1},
};

unsigned baseline_words(std::uint16_t bitmap) {
  unsigned words = 0;
  for (const auto& i : kBaseline) {
    if (bitmap & i.bit) words += i.words;
  }
  return words;
}

template <class T>
HopValue<T> hop_value(T v, bool na) { return HopValue<T>(v, na); }

template <class T>
T or_all_ones(const std::optional<HopValue<T>>& f, T all_ones) {
  return f && !f->unavailable ? f->value : all_ones;
}

// One hop's Hop ML words: baseline metadata in bitmap order, then
// domain-specific words, then the checksum complement (always last). For the
// wiring bitmap 0xC000 (hop ML 2):
//
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                           Switch ID                           |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |    L1 Ingress Port ID         |      L1 Egress Port ID        |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
Decoded<IntHopRecord> decode_hop(ByteReader& h, std::uint16_t bitmap, unsigned ds_words) {
  IntHopRecord rec;
  constexpr std::uint32_t kNa32 = 0xFFFFFFFF;
  constexpr std::uint64_t kNa64 = ~std::uint64_t{0};
  if (bitmap & int_bit::node_id) {
    HPN_TRY(auto w, h.be32("switch id"));
    rec.node_id = hop_value(w, w == kNa32);
  }
  if (bitmap & int_bit::l1_port_ids) {
    HPN_TRY(auto w, h.be32("L1 ingress/egress port ids"));
    rec.l1_ingress_port = hop_value(static_cast<std::uint16_t>(w >> 16), w == kNa32);
    rec.l1_egress_port = hop_value(static_cast<std::uint16_t>(w & 0xFFFF), w == kNa32);
  }
  if (bitmap & int_bit::hop_latency) {
    HPN_TRY(auto w, h.be32("hop latency"));
    rec.hop_latency = hop_value(w, w == kNa32);
  }
  if (bitmap & int_bit::queue) {
    HPN_TRY(auto w, h.be32("queue id and occupancy"));
    rec.queue_id = hop_value(static_cast<std::uint8_t>(w >> 24), w == kNa32);
    rec.queue_occupancy = hop_value(w & 0xFFFFFF, w == kNa32);
  }
  if (bitmap & int_bit::ingress_timestamp) {
    HPN_TRY(auto w, h.be64("ingress timestamp"));
    rec.ingress_timestamp = hop_value(w, w == kNa64);
  }
  if (bitmap & int_bit::egress_timestamp) {
    HPN_TRY(auto w, h.be64("egress timestamp"));
    rec.egress_timestamp = hop_value(w, w == kNa64);
  }
  if (bitmap & int_bit::l2_port_ids) {
    HPN_TRY(auto w, h.be64("L2 ingress/egress port ids"));
    rec.l2_ingress_port = hop_value(static_cast<std::uint32_t>(w >> 32), w == kNa64);
    rec.l2_egress_port = hop_value(static_cast<std::uint32_t>(w), w == kNa64);
  }
  if (bitmap & int_bit::egress_tx_utilization) {
    HPN_TRY(auto w, h.be32("egress tx utilization"));
    rec.egress_tx_utilization = hop_value(w, w == kNa32);
  }
  if (bitmap & int_bit::buffer) {
    HPN_TRY(auto w, h.be32("buffer id and occupancy"));
    rec.buffer_id = hop_value(static_cast<std::uint8_t>(w >> 24), w == kNa32);
    rec.buffer_occupancy = hop_value(w & 0xFFFFFF, w == kNa32);
  }
  for (unsigned i = 0; i < ds_words; ++i) {
    HPN_TRY(auto w, h.be32("domain-specific metadata"));
    rec.domain_specific.push_back(w);
  }
  if (bitmap & int_bit::checksum_complement) {
    HPN_TRY(auto w, h.be32("checksum complement"));
    rec.checksum_complement = hop_value(w, w == kNa32);
  }
  return rec;
}

// INT v2.1 "INT over TCP/UDP", shim header, then "INT-MD Metadata Header
// Format", header and stack:
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   | Type  |NPT|R|R|     Length    |  UDP port, IP Proto, or DSCP  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |Ver = 2|D|E|M|       Reserved        | Hop ML  |RemainingHopCnt|
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |      Instruction Bitmap       |        Domain Specific ID     |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |         DS Instruction        |            DS Flags           |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   | metadata of the newest hop (Hop ML * 4 bytes) ... oldest hop  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Length counts the MD header and the stack in words (the shim is excluded
// since v2.0).
Decoded<IntMdStack> decode_md(ByteReader& r) {
  IntMdStack out;
  const std::size_t start = r.offset();
  HPN_TRY(auto b0, r.u8("INT shim type/NPT"));
  HPN_TRY(out.shim.length, r.u8("INT shim length"));
  HPN_TRY(out.shim.npt_field, r.be16("INT shim NPT field"));
  out.shim.type = b0 >> 4;
  out.shim.npt = (b0 >> 2) & 0x3;

  // Dispatch on the version before trusting the rest: 0.5 and 1.0 headers
  // (8 bytes, length including the shim, a tail header) are a different
  // format, not a corrupt 2.x one.
  if (!r.empty()) {
    HPN_TRY(auto ver_byte, r.peek_u8("INT-MD version"));
    if (ver_byte >> 4 != 2) {
      return DecodeError::malformed(
          r.offset(), fmt::format("INT metadata header version {} is not supported: only "
                                  "version 2 (INT v2.0/v2.1); INT 0.5 and 1.0 use a different "
                                  "8-byte header with a tail header",
                                  ver_byte >> 4));
    }
  }
  if (out.shim.type != kIntShimTypeMd) {
    return DecodeError::malformed(
        start, fmt::format("INT shim type {} ({}) is not INT-MD (1)", out.shim.type,
                           shim_type_name(out.shim.type)));
  }
  if (out.shim.npt == 3) return DecodeError::malformed(start, "INT shim NPT 3 is reserved");
  if (std::size_t{out.shim.length} * 4 < kMdHeaderBytes) {
    return DecodeError::malformed(
        start + 1, fmt::format("INT shim length {} words is shorter than the 3-word INT-MD "
                               "header",
                               out.shim.length));
  }
  HPN_TRY(ByteReader body, r.sub(std::size_t{out.shim.length} * 4, "INT-MD header and stack"));
  body = body.complete();
  out.payload_offset = r.offset();

  auto& hd = out.header;
  const std::size_t header_at = body.offset();
  HPN_TRY(auto w0, body.be32("INT-MD flags, hop ML and remaining hop count"));
  hd.version = static_cast<std::uint8_t>(w0 >> 28);
  hd.discard = (w0 >> 27) & 1;
  hd.hop_count_exceeded = (w0 >> 26) & 1;
  hd.mtu_exceeded = (w0 >> 25) & 1;
  hd.hop_ml = static_cast<std::uint8_t>((w0 >> 8) & 0x1F);
  hd.remaining_hop_count = static_cast<std::uint8_t>(w0 & 0xFF);
  HPN_TRY(hd.instruction_bitmap, body.be16("INT instruction bitmap"));
  HPN_TRY(hd.domain_id, body.be16("INT domain specific id"));
  HPN_TRY(hd.ds_instruction, body.be16("INT DS instruction"));
  HPN_TRY(hd.ds_flags, body.be16("INT DS flags"));

  if (hd.instruction_bitmap & kReservedBits) {
    return DecodeError::malformed(
        header_at + 4, fmt::format("INT instruction bitmap {:#06x} sets reserved bits 9-14",
                                   hd.instruction_bitmap));
  }
  const unsigned baseline = baseline_words(hd.instruction_bitmap);
  if (hd.hop_ml < baseline) {
    return DecodeError::malformed(
        header_at + 2, fmt::format("INT hop ML {} words is less than the {} words instruction "
                                   "bitmap {:#06x} asks for",
                                   hd.hop_ml, baseline, hd.instruction_bitmap));
  }
  const std::size_t hop_bytes = std::size_t{hd.hop_ml} * 4;
  if (!body.empty() && (hop_bytes == 0 || body.remaining() % hop_bytes != 0)) {
    return DecodeError::malformed(
        body.offset(), fmt::format("INT stack of {} bytes is not a whole number of {}-byte "
                                   "hops (source-only domain-specific metadata is not "
                                   "supported)",
                                   body.remaining(), hop_bytes));
  }
  while (!body.empty()) {
    HPN_TRY(ByteReader h, body.sub(hop_bytes, "INT hop metadata"));
    HPN_TRY(auto hop, decode_hop(h, hd.instruction_bitmap, hd.hop_ml - baseline));
    out.hops.push_back(std::move(hop));
  }
  std::reverse(out.hops.begin(), out.hops.end());  // the stack is newest first
  return out;
}

std::vector<std::byte> encode_hop(const IntHopRecord& hop, std::uint16_t bitmap,
                                  unsigned ds_words) {
  constexpr std::uint32_t kNa32 = 0xFFFFFFFF;
  constexpr std::uint64_t kNa64 = ~std::uint64_t{0};
  ByteWriter w;
  if (bitmap & int_bit::node_id) w.be32(or_all_ones(hop.node_id, kNa32));
  if (bitmap & int_bit::l1_port_ids) {
    w.be16(or_all_ones<std::uint16_t>(hop.l1_ingress_port, 0xFFFF));
    w.be16(or_all_ones<std::uint16_t>(hop.l1_egress_port, 0xFFFF));
  }
  if (bitmap & int_bit::hop_latency) w.be32(or_all_ones(hop.hop_latency, kNa32));
  if (bitmap & int_bit::queue) {
    w.u8(or_all_ones<std::uint8_t>(hop.queue_id, 0xFF));
    w.be24(or_all_ones<std::uint32_t>(hop.queue_occupancy, 0xFFFFFF));
  }
  if (bitmap & int_bit::ingress_timestamp) w.be64(or_all_ones(hop.ingress_timestamp, kNa64));
  if (bitmap & int_bit::egress_timestamp) w.be64(or_all_ones(hop.egress_timestamp, kNa64));
  if (bitmap & int_bit::l2_port_ids) {
    w.be32(or_all_ones(hop.l2_ingress_port, kNa32));
    w.be32(or_all_ones(hop.l2_egress_port, kNa32));
  }
  if (bitmap & int_bit::egress_tx_utilization) {
    w.be32(or_all_ones(hop.egress_tx_utilization, kNa32));
  }
  if (bitmap & int_bit::buffer) {
    w.u8(or_all_ones<std::uint8_t>(hop.buffer_id, 0xFF));
    w.be24(or_all_ones<std::uint32_t>(hop.buffer_occupancy, 0xFFFFFF));
  }
  // Words of an unknown domain are padded with all ones, as the spec asks.
  for (unsigned i = 0; i < ds_words; ++i) {
    w.be32(i < hop.domain_specific.size() ? hop.domain_specific[i] : kNa32);
  }
  if (bitmap & int_bit::checksum_complement) w.be32(or_all_ones(hop.checksum_complement, kNa32));
  return std::move(w).take();
}

}  // namespace

Decoded<std::uint8_t> int_baseline_words(std::uint16_t bitmap) {
  if (bitmap & kReservedBits) {
    return DecodeError::invalid_argument(
        fmt::format("instruction bitmap {:#06x} sets reserved bits 9-14", bitmap));
  }
  return static_cast<std::uint8_t>(baseline_words(bitmap));
}

Decoded<std::vector<std::byte>> build_int_md(const IntMdSourceRequest& q) {
  HPN_TRY(auto baseline, int_baseline_words(q.instruction_bitmap));
  const unsigned hop_ml = q.hop_ml == 0 ? baseline : q.hop_ml;
  if (hop_ml < baseline || hop_ml > 31) {
    return DecodeError::invalid_argument(fmt::format(
        "hop ML {} must be between the bitmap's {} words and 31", hop_ml, baseline));
  }
  if (q.npt > 2) return DecodeError::invalid_argument(fmt::format("NPT {} is reserved", q.npt));
  const unsigned words = 3 + hop_ml * unsigned{q.max_hops};
  if (words > 255) {
    return DecodeError::invalid_argument(fmt::format(
        "{} hops of {} words make a {}-word INT header; the shim length field holds 255",
        q.max_hops, hop_ml, words));
  }
  ByteWriter w;
  w.u8(static_cast<std::uint8_t>(kIntShimTypeMd << 4 | q.npt << 2)).u8(3).be16(q.npt_field);
  w.be32(std::uint32_t{2} << 28 | std::uint32_t{q.discard} << 27 | hop_ml << 8 | q.max_hops);
  w.be16(q.instruction_bitmap).be16(q.domain_id).be16(q.ds_instruction).be16(q.ds_flags);
  return std::move(w).take();
}

Decoded<IntTransitOutcome> int_md_transit(std::vector<std::byte>& p, const IntHopRecord& hop,
                                         std::size_t room) {
  HPN_TRY(auto parsed, decode_int_md(p));
  const auto& hd = parsed.header;
  const std::size_t flags_at = kShimBytes;
  if (hd.remaining_hop_count == 0) {
    p[flags_at] |= kFlagE;
    return IntTransitOutcome::hop_count_exceeded;
  }
  const unsigned baseline = baseline_words(hd.instruction_bitmap);
  if (hop.domain_specific.size() > hd.hop_ml - baseline) {
    return DecodeError::invalid_argument(fmt::format(
        "{} domain-specific words given, hop ML {} leaves room for {}",
        hop.domain_specific.size(), hd.hop_ml, hd.hop_ml - baseline));
  }
  auto record = encode_hop(hop, hd.instruction_bitmap, hd.hop_ml - baseline);
  // A hop that cannot add all Hop ML words adds none (spec: MTU Settings).
  if (record.size() > room || parsed.shim.length + hd.hop_ml > 255) {
    p[flags_at] |= kFlagM;
    return IntTransitOutcome::mtu_exceeded;
  }
  p.insert(p.begin() + kShimBytes + kMdHeaderBytes, record.begin(), record.end());
  store_u8(p, 1, static_cast<std::uint8_t>(parsed.shim.length + hd.hop_ml));
  store_u8(p, kShimBytes + 3, static_cast<std::uint8_t>(hd.remaining_hop_count - 1));
  return IntTransitOutcome::pushed;
}

Decoded<IntMdStack> decode_int_md(std::span<const std::byte> l4_payload) {
  ByteReader r(l4_payload);
  return decode_md(r);
}

// RFC 768 UDP header:
//   |          Source Port          |       Destination Port        |
//   |            Length             |           Checksum            |
Decoded<IntMdStack> decode_int_udp(std::span<const std::byte> udp, std::uint16_t int_port) {
  ByteReader r(udp);
  HPN_CHECK(r.skip(2, "UDP source port"));
  HPN_TRY(auto dst, r.be16("UDP destination port"));
  HPN_TRY(auto len, r.be16("UDP length"));
  HPN_CHECK(r.skip(2, "UDP checksum"));
  if (dst != int_port) {
    return DecodeError::malformed(
        2, fmt::format("UDP destination port {} is not the INT port {}", dst, int_port));
  }
  if (len < 8) return DecodeError::malformed(4, fmt::format("UDP length {} is below 8", len));
  if (len - 8u > r.remaining()) {
    return DecodeError::truncated(
        r.offset(), fmt::format("UDP length is {} bytes, {} captured", len, r.remaining() + 8));
  }
  HPN_TRY(ByteReader payload, r.sub(len - 8u, "UDP payload"));
  payload = payload.complete();
  return decode_md(payload);
}

}  // namespace hpn::probe
