// IOAM pre-allocated trace carried in an IPv6 Hop-by-Hop option: the lab's
// per-hop telemetry format (FIELD.md §2). Data fields: RFC 9197 §4.4;
// IPv6 carriage: RFC 9486; transit behaviour: Linux net/ipv6/ioam6.c.
//
// Three roles, one file pair:
//   build_ioam_hbh()     the prober: an empty trace with room for N hops,
//   ioam_transit_*()     a transit node: write one hop record in place,
//   decode_ioam_*()      the receiver: hop records in path order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "probe/byte_reader.h"
#include "probe/hop_value.h"

namespace hpn::probe {

inline constexpr std::uint8_t kIpv6NextHeaderHopByHop = 0;
inline constexpr std::uint8_t kIpv6NextHeaderUdp = 17;
inline constexpr std::uint8_t kHbhOptionIoam = 0x31;  // RFC 9486 (IANA): act 00, chg 1
// An option's data is at most 255 bytes; 255 - 2 (IOAM option header)
// - 8 (trace header), rounded down to whole 4-byte words (Linux:
// IOAM6_TRACE_DATA_SIZE_MAX).
inline constexpr std::size_t kIoamMaxTraceData = 244;

// IOAM-Trace-Type bits, RFC 9197 §4.4.1. Bit 0 is the most significant of the
// 24; each constant is the mask of that bit in the 24-bit field.
namespace ioam_bit {
constexpr std::uint32_t bit(unsigned n) { return 1u << (23 - n); }
inline constexpr std::uint32_t hop_limit_node_id = bit(0);        // 4 B
inline constexpr std::uint32_t interface_ids = bit(1);            // 4 B: 16-bit ingress, egress
inline constexpr std::uint32_t timestamp_secs = bit(2);           // 4 B
inline constexpr std::uint32_t timestamp_frac = bit(3);           // 4 B
inline constexpr std::uint32_t transit_delay = bit(4);            // 4 B
inline constexpr std::uint32_t namespace_data = bit(5);           // 4 B
inline constexpr std::uint32_t queue_depth = bit(6);              // 4 B
inline constexpr std::uint32_t checksum_complement = bit(7);      // 4 B
inline constexpr std::uint32_t hop_limit_node_id_wide = bit(8);   // 8 B: 56-bit node id
inline constexpr std::uint32_t interface_ids_wide = bit(9);       // 8 B: 32-bit ingress, egress
inline constexpr std::uint32_t namespace_data_wide = bit(10);     // 8 B
inline constexpr std::uint32_t buffer_occupancy = bit(11);        // 4 B
inline constexpr std::uint32_t opaque_state_snapshot = bit(22);   // variable, last
}  // namespace ioam_bit

// Bits 0 and 1: node id and interface ids, what the wiring check needs.
inline constexpr std::uint32_t kIoamDefaultTraceType =
    ioam_bit::hop_limit_node_id | ioam_bit::interface_ids;

// Trace flags (the 4-bit field; RFC 9197 §4.4.1 defines Overflow, RFC 9322
// Loopback and Active).
inline constexpr std::uint8_t kIoamFlagOverflow = 0x8;
inline constexpr std::uint8_t kIoamFlagLoopback = 0x4;
inline constexpr std::uint8_t kIoamFlagActive = 0x2;

enum class IoamTraceMode : std::uint8_t { preallocated = 0, incremental = 1 };

// RFC 9197 §4.4.2, opaque state snapshot:
//   Length (8, 4-byte words of data) | Schema ID (24) | data.
struct IoamOpaqueSnapshot {
  std::uint32_t schema_id = 0xFFFFFF;  // all ones: no schema (what Linux writes)
  std::vector<std::byte> data;         // a multiple of 4 bytes
  bool unavailable() const { return schema_id == 0xFFFFFF && data.empty(); }
  friend bool operator==(const IoamOpaqueSnapshot&, const IoamOpaqueSnapshot&) = default;
};

// One node's record. A field is present exactly when its trace-type bit is
// set. As a transit input, an absent or unavailable field is written as all
// ones.
struct IoamHopRecord {
  std::optional<HopValue<std::uint8_t>> hop_limit;        // bit 0
  std::optional<HopValue<std::uint32_t>> node_id;         // bit 0, 24 bits
  std::optional<HopValue<std::uint16_t>> ingress_if;      // bit 1
  std::optional<HopValue<std::uint16_t>> egress_if;       // bit 1
  std::optional<HopValue<std::uint32_t>> timestamp_secs;  // bit 2
  std::optional<HopValue<std::uint32_t>> timestamp_frac;  // bit 3
  std::optional<HopValue<std::uint32_t>> transit_delay;   // bit 4
  std::optional<HopValue<std::uint32_t>> namespace_data;  // bit 5
  std::optional<HopValue<std::uint32_t>> queue_depth;     // bit 6
  std::optional<HopValue<std::uint32_t>> checksum_complement;  // bit 7
  // Bit 8. As a transit input, an absent hop_limit_wide takes hop_limit.
  std::optional<HopValue<std::uint8_t>> hop_limit_wide;
  std::optional<HopValue<std::uint64_t>> node_id_wide;    // bit 8, 56 bits
  std::optional<HopValue<std::uint32_t>> ingress_if_wide;  // bit 9
  std::optional<HopValue<std::uint32_t>> egress_if_wide;   // bit 9
  std::optional<HopValue<std::uint64_t>> namespace_data_wide;  // bit 10
  std::optional<HopValue<std::uint32_t>> buffer_occupancy;     // bit 11
  std::optional<IoamOpaqueSnapshot> opaque_snapshot;           // bit 22

  friend bool operator==(const IoamHopRecord&, const IoamHopRecord&) = default;
};

struct IoamTrace {
  std::size_t offset = 0;  // of the option's type byte in the decoded buffer
  IoamTraceMode mode = IoamTraceMode::preallocated;
  std::uint16_t namespace_id = 0;
  std::uint8_t node_len = 0;       // words per record, opaque snapshot excluded
  std::uint8_t flags = 0;          // kIoamFlag*
  std::uint8_t remaining_len = 0;  // words of free space left
  std::uint32_t trace_type = 0;
  std::vector<IoamHopRecord> hops;  // path order: hops[0] is the first writer

  bool overflow() const { return (flags & kIoamFlagOverflow) != 0; }
};

// NodeLen for a trace type (words each node writes, RFC 9197 §4.4.1), or
// invalid_argument for a type this code does not support: 0, the undefined
// bits 12-21 and the reserved bit 23.
Decoded<std::uint8_t> ioam_node_len(std::uint32_t trace_type);

struct IoamTraceRequest {
  std::uint16_t namespace_id = 0;
  std::uint32_t trace_type = kIoamDefaultTraceType;
  unsigned hops = 8;                 // records to pre-allocate room for
  std::uint8_t next_header = kIpv6NextHeaderUdp;
  unsigned snapshot_words = 0;       // opaque data per hop, with bit 22
};

// The whole Hop-by-Hop extension header of a probe: PadN(2) so the option
// starts 4n-aligned (as RFC 9486 asks; Linux drops the packet otherwise),
// the IOAM option with zeroed data space, then PadN so the header is a
// multiple of 8 bytes.
Decoded<std::vector<std::byte>> build_ioam_hbh(const IoamTraceRequest& request);

// The IOAM traces (pre-allocated and incremental) in a Hop-by-Hop header, or
// in an IPv6 packet starting at its fixed header (empty when the packet has
// no Hop-by-Hop header). Other IOAM option types and other options are
// skipped.
Decoded<std::vector<IoamTrace>> decode_ioam_hbh(std::span<const std::byte> hbh);
Decoded<std::vector<IoamTrace>> decode_ioam_ipv6(std::span<const std::byte> packet);

// What a transit node knows about itself.
struct IoamNode {
  std::uint16_t namespace_id = 0;  // it writes only into traces of this namespace
  IoamHopRecord data;              // fields it writes; hop_limit: see below
};

enum class IoamTransitOutcome {
  written,           // a record was written into a trace of the node's namespace
  overflow,          // no room (Overflow flag now set, or already set)
  not_for_this_node  // no pre-allocated trace in the node's namespace
};

// Write this node's record as Linux's ioam6_fill_trace_data() does: at the
// end of the free space, RemainingLen decremented by the record's words; when
// the record does not fit, set Overflow and write nothing. Every
// pre-allocated trace of the node's namespace is written. The ipv6 variant
// takes a packet starting at its IPv6 header and, when data.hop_limit is
// absent, writes the packet's hop limit minus one (the Linux input path);
// the hbh variant writes 0xFF then. Malformed headers are errors (Linux
// drops such packets); the packet is unchanged then.
Decoded<IoamTransitOutcome> ioam_transit_hbh(std::span<std::byte> hbh, const IoamNode& node);
Decoded<IoamTransitOutcome> ioam_transit_ipv6(std::span<std::byte> packet, const IoamNode& node);

}  // namespace hpn::probe
