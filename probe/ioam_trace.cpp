#include "probe/ioam_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <string>

namespace hpn::probe {
namespace {

// Trace-type masks (RFC 9197 §4.4.1): 4-byte fields are bits 0-7 and 11,
// 8-byte ones bits 8-10; 12-21 are undefined, 23 reserved. The same split as
// Linux's ioam6_trace_compute_nodelen().
constexpr std::uint32_t kShortFields = 0xFF1000;
constexpr std::uint32_t kWideFields = 0x00E000;
constexpr std::uint32_t kUndefinedBits = 0x000FFC;
constexpr std::uint32_t kReservedBit23 = 0x000001;

constexpr std::uint16_t kInfoOverflow = std::uint16_t{kIoamFlagOverflow} << 7;

std::optional<std::string> unsupported_bits(std::uint32_t type) {
  if (type == 0) return "IOAM trace type is 0: no data fields";
  if (type > 0xFFFFFF) return fmt::format("IOAM trace type {:#x} is wider than 24 bits", type);
  if (type & kUndefinedBits) {
    return fmt::format("IOAM trace type {:#08x} sets undefined bits 12-21 ({:#08x}), "
                       "which are not supported",
                       type, type & kUndefinedBits);
  }
  if (type & kReservedBit23) {
    return fmt::format("IOAM trace type {:#08x} sets reserved bit 23", type);
  }
  return std::nullopt;
}

std::uint8_t node_len_of(std::uint32_t type) {
  return static_cast<std::uint8_t>(std::popcount(type & kShortFields) +
                                   2 * std::popcount(type & kWideFields));
}

template <class T>
HopValue<T> hop_value(T v, T all_ones) { return HopValue<T>(v, v == all_ones); }

template <class T>
T or_all_ones(const std::optional<HopValue<T>>& field, T all_ones) {
  return field && !field->unavailable ? field->value : all_ones;
}

// One IOAM trace option located in a Hop-by-Hop header.
struct TraceOption {
  std::size_t option_offset = 0;
  IoamTraceMode mode = IoamTraceMode::preallocated;
  std::uint16_t namespace_id = 0;
  std::uint16_t info = 0;  // NodeLen | Flags | RemainingLen, as on the wire
  std::size_t info_offset = 0;
  std::uint32_t trace_type = 0;
  ByteReader data{{}};     // the data space, free space included

  std::uint8_t node_len() const { return static_cast<std::uint8_t>(info >> 11); }
  std::uint8_t flags() const { return static_cast<std::uint8_t>((info >> 7) & 0xF); }
  std::uint8_t remaining_len() const { return static_cast<std::uint8_t>(info & 0x7F); }
};

// RFC 9486 (IOAM option) + RFC 9197 §4.4.1 (trace header). `body` is the
// option data, after the type and length bytes:
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  Option Type  |  Opt Data Len |   Reserved    | IOAM Opt-Type |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |         Namespace-ID          |NodeLen  | Flags | RemainingLen|
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |               IOAM-Trace-Type                 |  Reserved     |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  free space (RemainingLen * 4 bytes, pre-allocated only)      |
//   |  node data [n] (newest) ... node data [0] (first writer)      |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Returns nullopt for IOAM option types that are not traces (POT, E2E, DEX).
Decoded<std::optional<TraceOption>> parse_ioam_option(ByteReader body, std::size_t at,
                                                     std::size_t hbh_offset) {
  if (hbh_offset % 4 != 0) {
    return DecodeError::malformed(
        at, fmt::format("IOAM option at Hop-by-Hop offset {} is not 4n-aligned "
                        "(RFC 9486; Linux drops such packets)",
                        hbh_offset));
  }
  HPN_CHECK(body.skip(1, "IOAM option reserved byte"));
  HPN_TRY(auto ioam_type, body.u8("IOAM option-type"));
  if (ioam_type > 1) return std::optional<TraceOption>{};

  TraceOption t;
  t.option_offset = at;
  t.mode = static_cast<IoamTraceMode>(ioam_type);
  HPN_TRY(t.namespace_id, body.be16("IOAM namespace ID"));
  t.info_offset = body.offset();
  HPN_TRY(t.info, body.be16("IOAM NodeLen/Flags/RemainingLen"));
  const std::size_t type_at = body.offset();
  HPN_TRY(t.trace_type, body.be24("IOAM trace type"));
  HPN_CHECK(body.skip(1, "IOAM trace reserved byte"));
  t.data = body;

  if (auto why = unsupported_bits(t.trace_type)) return DecodeError::malformed(type_at, *why);
  if (t.node_len() != node_len_of(t.trace_type)) {
    return DecodeError::malformed(
        t.info_offset, fmt::format("IOAM NodeLen {} does not match trace type {:#08x}, "
                                   "which needs {} words per node",
                                   t.node_len(), t.trace_type, node_len_of(t.trace_type)));
  }
  if (t.mode == IoamTraceMode::preallocated &&
      std::size_t{t.remaining_len()} * 4 > t.data.remaining()) {
    return DecodeError::malformed(
        t.info_offset, fmt::format("IOAM RemainingLen {} words ({} bytes) exceeds the {} "
                                   "bytes of trace data",
                                   t.remaining_len(), t.remaining_len() * 4,
                                   t.data.remaining()));
  }
  return std::optional<TraceOption>(std::move(t));
}

// RFC 8200 §4.3, Hop-by-Hop Options header ((Hdr Ext Len + 1) * 8 bytes):
//
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  Next Header  |  Hdr Ext Len  |  options: Pad1 = one 0 byte,  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  others type | len | data     |
//   .                                                               .
Decoded<std::vector<TraceOption>> scan_hbh(ByteReader& r) {
  const std::size_t start = r.offset();
  HPN_CHECK(r.skip(1, "Hop-by-Hop next header"));
  HPN_TRY(auto ext_len, r.u8("Hop-by-Hop length"));
  const std::size_t total = (std::size_t{ext_len} + 1) * 8;
  HPN_TRY(ByteReader options, r.sub(total - 2, "Hop-by-Hop options"));
  options = options.complete();

  std::vector<TraceOption> traces;
  while (!options.empty()) {
    const std::size_t at = options.offset();
    HPN_TRY(auto type, options.u8("option type"));
    if (type == 0) continue;  // Pad1
    HPN_TRY(auto len, options.u8("option length"));
    if (len > options.remaining()) {
      return DecodeError::malformed(
          at, fmt::format("option {:#04x} declares {} data bytes, {} remain in the "
                          "Hop-by-Hop header",
                          type, len, options.remaining()));
    }
    HPN_TRY(ByteReader body, options.sub(len, "option data"));
    if (type != kHbhOptionIoam) continue;
    HPN_TRY(auto trace, parse_ioam_option(body, at, at - start));
    if (trace) traces.push_back(std::move(*trace));
  }
  return traces;
}

// RFC 8200 §3, IPv6 fixed header (40 bytes):
//
//   |Version| Traffic Class |              Flow Label               |
//   |        Payload Length         |  Next Header  |   Hop Limit   |
//   |            Source Address (16), Destination Address (16)      |
struct Ipv6View {
  std::uint8_t next_header = 0;
  std::uint8_t hop_limit = 0;
  ByteReader payload{{}};
};

Decoded<Ipv6View> parse_ipv6(ByteReader& r) {
  const std::size_t start = r.offset();
  HPN_TRY(auto first, r.be32("IPv6 version/class/flow label"));
  if (first >> 28 != 6) {
    return DecodeError::malformed(start, fmt::format("IP version {} is not 6", first >> 28));
  }
  HPN_TRY(auto payload_len, r.be16("IPv6 payload length"));
  Ipv6View v;
  HPN_TRY(v.next_header, r.u8("IPv6 next header"));
  HPN_TRY(v.hop_limit, r.u8("IPv6 hop limit"));
  HPN_CHECK(r.skip(32, "IPv6 addresses"));
  if (payload_len > r.remaining()) {
    return DecodeError::truncated(
        r.offset(), fmt::format("IPv6 payload length is {} bytes, {} captured", payload_len,
                                r.remaining()));
  }
  HPN_TRY(ByteReader payload, r.sub(payload_len, "IPv6 payload"));
  v.payload = payload.complete();
  return v;
}

// RFC 9197 §4.4.2: one node's record, its fields in trace-type bit order.
// For the default type 0xC00000 (bits 0 and 1, NodeLen 2):
//
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |   Hop_Lim     |                  node_id                      |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |     ingress_if_id             |         egress_if_id          |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Bits 2-7 and 11 add one 4-byte word each, 8-10 two; with bit 22 the
// opaque snapshot follows the record (decode_trace reads it).
Decoded<IoamHopRecord> decode_record(ByteReader& f, std::uint32_t type) {
  IoamHopRecord rec;
  if (type & ioam_bit::hop_limit_node_id) {
    HPN_TRY(auto w, f.be32("hop limit and node id"));
    rec.hop_limit = hop_value<std::uint8_t>(w >> 24, 0xFF);
    rec.node_id = hop_value<std::uint32_t>(w & 0xFFFFFF, 0xFFFFFF);
  }
  if (type & ioam_bit::interface_ids) {
    HPN_TRY(auto in, f.be16("ingress interface id"));
    HPN_TRY(auto out, f.be16("egress interface id"));
    rec.ingress_if = hop_value<std::uint16_t>(in, 0xFFFF);
    rec.egress_if = hop_value<std::uint16_t>(out, 0xFFFF);
  }
  const auto word = [&](std::uint32_t bit, auto& field, const char* what) -> Status {
    if (!(type & bit)) return success();
    HPN_TRY(auto w, f.be32(what));
    field = hop_value<std::uint32_t>(w, 0xFFFFFFFF);
    return success();
  };
  HPN_CHECK(word(ioam_bit::timestamp_secs, rec.timestamp_secs, "timestamp seconds"));
  HPN_CHECK(word(ioam_bit::timestamp_frac, rec.timestamp_frac, "timestamp fraction"));
  HPN_CHECK(word(ioam_bit::transit_delay, rec.transit_delay, "transit delay"));
  HPN_CHECK(word(ioam_bit::namespace_data, rec.namespace_data, "namespace data"));
  HPN_CHECK(word(ioam_bit::queue_depth, rec.queue_depth, "queue depth"));
  HPN_CHECK(word(ioam_bit::checksum_complement, rec.checksum_complement, "checksum complement"));
  if (type & ioam_bit::hop_limit_node_id_wide) {
    HPN_TRY(auto w, f.be64("hop limit and wide node id"));
    rec.hop_limit_wide = hop_value<std::uint8_t>(static_cast<std::uint8_t>(w >> 56), 0xFF);
    rec.node_id_wide = hop_value<std::uint64_t>(w & 0x00FFFFFFFFFFFFFF, 0x00FFFFFFFFFFFFFF);
  }
  if (type & ioam_bit::interface_ids_wide) {
    HPN_TRY(auto in, f.be32("wide ingress interface id"));
    HPN_TRY(auto out, f.be32("wide egress interface id"));
    rec.ingress_if_wide = hop_value<std::uint32_t>(in, 0xFFFFFFFF);
    rec.egress_if_wide = hop_value<std::uint32_t>(out, 0xFFFFFFFF);
  }
  if (type & ioam_bit::namespace_data_wide) {
    HPN_TRY(auto w, f.be64("wide namespace data"));
    rec.namespace_data_wide = hop_value<std::uint64_t>(w, ~std::uint64_t{0});
  }
  HPN_CHECK(word(ioam_bit::buffer_occupancy, rec.buffer_occupancy, "buffer occupancy"));
  return rec;
}

Decoded<IoamTrace> decode_trace(const TraceOption& t) {
  IoamTrace trace;
  trace.offset = t.option_offset;
  trace.mode = t.mode;
  trace.namespace_id = t.namespace_id;
  trace.node_len = t.node_len();
  trace.flags = t.flags();
  trace.remaining_len = t.remaining_len();
  trace.trace_type = t.trace_type;

  ByteReader r = t.data;
  if (t.mode == IoamTraceMode::preallocated) {
    HPN_CHECK(r.skip(std::size_t{t.remaining_len()} * 4, "IOAM free space"));
  }
  const std::size_t record_bytes = std::size_t{t.node_len()} * 4;
  const bool snapshot = (t.trace_type & ioam_bit::opaque_state_snapshot) != 0;
  if (!snapshot && r.remaining() % record_bytes != 0) {
    return DecodeError::malformed(
        r.offset(), fmt::format("{} bytes of IOAM node data are not a whole number of "
                                "{}-byte records",
                                r.remaining(), record_bytes));
  }
  while (!r.empty()) {
    HPN_TRY(ByteReader fixed, r.sub(record_bytes, "IOAM node data"));
    HPN_TRY(IoamHopRecord rec, decode_record(fixed, t.trace_type));
    if (snapshot) {
      HPN_TRY(auto header, r.be32("opaque state snapshot header"));
      HPN_TRY(auto data, r.bytes(std::size_t{header >> 24} * 4, "opaque state snapshot data"));
      rec.opaque_snapshot = IoamOpaqueSnapshot{header & 0xFFFFFF, {data.begin(), data.end()}};
    }
    trace.hops.push_back(std::move(rec));
  }
  std::reverse(trace.hops.begin(), trace.hops.end());  // newest first on the wire
  return trace;
}

Decoded<std::vector<IoamTrace>> decode_all(ByteReader& hbh) {
  HPN_TRY(auto options, scan_hbh(hbh));
  std::vector<IoamTrace> traces;
  for (const auto& t : options) {
    HPN_TRY(auto trace, decode_trace(t));
    traces.push_back(std::move(trace));
  }
  return traces;
}

// The bytes one node writes for `type`, as __ioam6_fill_trace_data() lays them
// out: fields in bit order, the opaque snapshot last.
Decoded<std::vector<std::byte>> encode_record(const IoamHopRecord& rec, std::uint32_t type,
                                             std::uint8_t hop_limit) {
  ByteWriter w;
  if (type & ioam_bit::hop_limit_node_id) {
    w.be32(std::uint32_t{hop_limit} << 24 |
           (or_all_ones<std::uint32_t>(rec.node_id, 0xFFFFFF) & 0xFFFFFF));
  }
  if (type & ioam_bit::interface_ids) {
    w.be16(or_all_ones<std::uint16_t>(rec.ingress_if, 0xFFFF));
    w.be16(or_all_ones<std::uint16_t>(rec.egress_if, 0xFFFF));
  }
  const auto word = [&](std::uint32_t bit, const std::optional<HopValue<std::uint32_t>>& f) {
    if (type & bit) w.be32(or_all_ones<std::uint32_t>(f, 0xFFFFFFFF));
  };
  word(ioam_bit::timestamp_secs, rec.timestamp_secs);
  word(ioam_bit::timestamp_frac, rec.timestamp_frac);
  word(ioam_bit::transit_delay, rec.transit_delay);
  word(ioam_bit::namespace_data, rec.namespace_data);
  word(ioam_bit::queue_depth, rec.queue_depth);
  word(ioam_bit::checksum_complement, rec.checksum_complement);
  if (type & ioam_bit::hop_limit_node_id_wide) {
    const std::uint8_t hl =
        rec.hop_limit_wide ? or_all_ones<std::uint8_t>(rec.hop_limit_wide, 0xFF) : hop_limit;
    constexpr std::uint64_t kId56 = 0x00FFFFFFFFFFFFFF;
    w.be64(std::uint64_t{hl} << 56 | (or_all_ones<std::uint64_t>(rec.node_id_wide, kId56) & kId56));
  }
  if (type & ioam_bit::interface_ids_wide) {
    w.be32(or_all_ones<std::uint32_t>(rec.ingress_if_wide, 0xFFFFFFFF));
    w.be32(or_all_ones<std::uint32_t>(rec.egress_if_wide, 0xFFFFFFFF));
  }
  if (type & ioam_bit::namespace_data_wide) {
    w.be64(or_all_ones<std::uint64_t>(rec.namespace_data_wide, ~std::uint64_t{0}));
  }
  word(ioam_bit::buffer_occupancy, rec.buffer_occupancy);
  if (type & ioam_bit::opaque_state_snapshot) {
    const auto& s = rec.opaque_snapshot;
    if (!s || s->unavailable()) {
      w.be32(0x00FFFFFF);  // no schema: length 0, schema id unavailable (as Linux)
    } else {
      if (s->data.size() % 4 != 0 || s->data.size() / 4 > 255) {
        return DecodeError::invalid_argument(fmt::format(
            "opaque snapshot data of {} bytes is not a multiple of 4 up to 1020",
            s->data.size()));
      }
      w.be32(static_cast<std::uint32_t>(s->data.size() / 4) << 24 | (s->schema_id & 0xFFFFFF));
      w.bytes(s->data);
    }
  }
  return std::move(w).take();
}

Decoded<IoamTransitOutcome> transit(std::span<std::byte> buf, ByteReader& hbh,
                                   const IoamNode& node, std::uint8_t hop_limit) {
  HPN_TRY(auto options, scan_hbh(hbh));
  // Plan every write first so that an error leaves the packet unchanged.
  struct Write {
    std::size_t info_offset;
    std::uint16_t info;
    std::size_t at;
    std::vector<std::byte> record;  // empty: only the flags change
  };
  std::vector<Write> writes;
  auto outcome = IoamTransitOutcome::not_for_this_node;
  for (const auto& t : options) {
    if (t.mode != IoamTraceMode::preallocated || t.namespace_id != node.namespace_id) continue;
    HPN_TRY(auto record, encode_record(node.data, t.trace_type, hop_limit));
    const std::size_t words = record.size() / 4;
    if (t.flags() & kIoamFlagOverflow) {
      if (outcome != IoamTransitOutcome::written) outcome = IoamTransitOutcome::overflow;
      continue;
    }
    if (t.remaining_len() < words) {
      writes.push_back({t.info_offset, static_cast<std::uint16_t>(t.info | kInfoOverflow), 0, {}});
      if (outcome != IoamTransitOutcome::written) outcome = IoamTransitOutcome::overflow;
      continue;
    }
    const std::size_t at = t.data.offset() + (t.remaining_len() - words) * 4;
    const auto info = static_cast<std::uint16_t>((t.info & ~0x7F) | (t.remaining_len() - words));
    writes.push_back({t.info_offset, info, at, std::move(record)});
    outcome = IoamTransitOutcome::written;
  }
  for (const auto& w : writes) {
    store_be16(buf, w.info_offset, w.info);
    if (!w.record.empty()) store_bytes(buf, w.at, w.record);
  }
  return outcome;
}

}  // namespace

Decoded<std::uint8_t> ioam_node_len(std::uint32_t trace_type) {
  if (auto why = unsupported_bits(trace_type)) return DecodeError::invalid_argument(*why);
  return node_len_of(trace_type);
}

// Layout built (offsets inside the Hop-by-Hop header):
//    0  Next Header | Hdr Ext Len  | PadN 0x01     | len 0
//    4  0x31        | Opt Data Len | Reserved 0    | IOAM type 0 (pre-allocated)
//    8  Namespace-ID               | NodeLen | Flags 0 | RemainingLen
//   12  IOAM-Trace-Type (24)                       | Reserved 0
//   16  data space: hops * words per hop * 4 zero bytes
//       [PadN 0x01 | len 2 | 0 | 0] when 16 + data is not a multiple of 8
Decoded<std::vector<std::byte>> build_ioam_hbh(const IoamTraceRequest& request) {
  HPN_TRY(auto node_len, ioam_node_len(request.trace_type));
  const bool snapshot = (request.trace_type & ioam_bit::opaque_state_snapshot) != 0;
  if (request.snapshot_words > 0 && !snapshot) {
    return DecodeError::invalid_argument("snapshot_words needs trace-type bit 22");
  }
  if (request.snapshot_words > 255) {
    return DecodeError::invalid_argument(fmt::format(
        "an opaque snapshot holds at most 255 words, not {}", request.snapshot_words));
  }
  if (request.hops == 0) {
    return DecodeError::invalid_argument("a trace needs room for 1 hop or more");
  }
  const std::size_t per_hop = node_len + (snapshot ? 1 + request.snapshot_words : 0);
  const std::size_t data = std::size_t{request.hops} * per_hop * 4;
  if (data > kIoamMaxTraceData) {
    return DecodeError::invalid_argument(fmt::format(
        "room for {} hops of {} bytes needs {} bytes of trace data; an IPv6 option holds at "
        "most {} ({} hops)",
        request.hops, per_hop * 4, data, kIoamMaxTraceData, kIoamMaxTraceData / (per_hop * 4)));
  }
  const std::size_t unpadded = 16 + data;
  const std::size_t total = (unpadded + 7) / 8 * 8;

  ByteWriter w;
  w.u8(request.next_header).u8(static_cast<std::uint8_t>(total / 8 - 1));
  w.u8(1).u8(0);  // PadN of 2 bytes: the IOAM option starts at offset 4
  w.u8(kHbhOptionIoam).u8(static_cast<std::uint8_t>(2 + 8 + data)).u8(0).u8(0);
  w.be16(request.namespace_id);
  w.be16(static_cast<std::uint16_t>(node_len << 11 | (data / 4)));
  w.be24(request.trace_type).u8(0);
  w.zeros(data);
  if (total != unpadded) w.u8(1).u8(2).zeros(2);
  return std::move(w).take();
}

Decoded<std::vector<IoamTrace>> decode_ioam_hbh(std::span<const std::byte> hbh) {
  ByteReader r(hbh);
  return decode_all(r);
}

Decoded<std::vector<IoamTrace>> decode_ioam_ipv6(std::span<const std::byte> packet) {
  ByteReader r(packet);
  HPN_TRY(Ipv6View ip, parse_ipv6(r));
  if (ip.next_header != kIpv6NextHeaderHopByHop) return std::vector<IoamTrace>{};
  return decode_all(ip.payload);
}

Decoded<IoamTransitOutcome> ioam_transit_hbh(std::span<std::byte> hbh, const IoamNode& node) {
  ByteReader r(hbh);
  return transit(hbh, r, node, or_all_ones<std::uint8_t>(node.data.hop_limit, 0xFF));
}

Decoded<IoamTransitOutcome> ioam_transit_ipv6(std::span<std::byte> packet, const IoamNode& node) {
  ByteReader r(packet);
  HPN_TRY(Ipv6View ip, parse_ipv6(r));
  if (ip.next_header != kIpv6NextHeaderHopByHop) return IoamTransitOutcome::not_for_this_node;
  // Linux's input path writes the hop limit the packet will leave with.
  const std::uint8_t hop_limit =
      node.data.hop_limit ? or_all_ones<std::uint8_t>(node.data.hop_limit, 0xFF)
                          : static_cast<std::uint8_t>(ip.hop_limit == 0 ? 0 : ip.hop_limit - 1);
  return transit(packet, ip.payload, node, hop_limit);
}

}  // namespace hpn::probe
