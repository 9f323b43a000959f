// P4 INT-MD (in-band network telemetry, embed-data mode) v2.1 over UDP: the
// format of hardware fabrics (FIELD.md §2). Spec: "In-band Network Telemetry
// (INT) Dataplane Specification" v2.1, sections "INT over TCP/UDP" (shim) and
// "INT-MD Metadata Header Format" (header, bitmap, stack).
//
//   build_int_md()     an INT source: shim + header, empty stack,
//   int_md_transit()   a transit hop: push one hop's metadata,
//   decode_int_md()    the sink: header and hops in path order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "probe/byte_reader.h"
#include "probe/hop_value.h"

namespace hpn::probe {

// IANA assigned no port; 0x4568 is the common convention. Always a parameter.
inline constexpr std::uint16_t kIntUdpPort = 17768;

inline constexpr std::uint8_t kIntShimTypeMd = 1;           // 2: destination, 3: MX
inline constexpr std::uint8_t kIntNptOriginalUdpPort = 1;   // shim carries the UDP dst port
inline constexpr std::uint8_t kIntNptL4HeaderFollows = 2;   // shim carries the IP protocol

// Instruction bitmap bits: bit 0 is the most significant of the 16.
namespace int_bit {
constexpr std::uint16_t bit(unsigned n) { return static_cast<std::uint16_t>(1u << (15 - n)); }
inline constexpr std::uint16_t node_id = bit(0);                // 4 B switch id
inline constexpr std::uint16_t l1_port_ids = bit(1);            // 4 B: 16-bit ingress, egress
inline constexpr std::uint16_t hop_latency = bit(2);            // 4 B
inline constexpr std::uint16_t queue = bit(3);                  // 4 B: 8-bit id, 24-bit occupancy
inline constexpr std::uint16_t ingress_timestamp = bit(4);      // 8 B
inline constexpr std::uint16_t egress_timestamp = bit(5);       // 8 B
inline constexpr std::uint16_t l2_port_ids = bit(6);            // 8 B: 32-bit ingress, egress
inline constexpr std::uint16_t egress_tx_utilization = bit(7);  // 4 B
inline constexpr std::uint16_t buffer = bit(8);                 // 4 B: 8-bit id, 24-bit occupancy
inline constexpr std::uint16_t checksum_complement = bit(15);   // 4 B, always last
}  // namespace int_bit

// Switch id + L1 ports: what the wiring check needs (hop ML 2).
inline constexpr std::uint16_t kIntWiringBitmap = int_bit::node_id | int_bit::l1_port_ids;

struct IntShim {
  std::uint8_t type = kIntShimTypeMd;
  std::uint8_t npt = 0;
  std::uint8_t length = 0;      // words of MD header + stack, shim excluded
  std::uint16_t npt_field = 0;  // NPT 1: original UDP dst port; 2: IP protocol; 0: DSCP
  friend bool operator==(const IntShim&, const IntShim&) = default;
};

struct IntMdHeader {
  std::uint8_t version = 2;
  bool discard = false;             // D: sink drops the packet after extracting
  bool hop_count_exceeded = false;  // E
  bool mtu_exceeded = false;        // M
  std::uint8_t hop_ml = 0;          // words each hop pushes
  std::uint8_t remaining_hop_count = 0;
  std::uint16_t instruction_bitmap = 0;
  std::uint16_t domain_id = 0;
  std::uint16_t ds_instruction = 0;
  std::uint16_t ds_flags = 0;
  friend bool operator==(const IntMdHeader&, const IntMdHeader&) = default;
};

// One hop's metadata. A field is present exactly when its bitmap bit is set.
// The spec marks a value a hop cannot supply by filling the whole 4- or
// 8-byte metadata with ones, so both halves of a split metadata (ports,
// queue id + occupancy) are flagged together. As a transit input, an absent
// or unavailable field is written as all ones.
struct IntHopRecord {
  std::optional<HopValue<std::uint32_t>> node_id;            // bit 0
  std::optional<HopValue<std::uint16_t>> l1_ingress_port;    // bit 1
  std::optional<HopValue<std::uint16_t>> l1_egress_port;     // bit 1
  std::optional<HopValue<std::uint32_t>> hop_latency;        // bit 2
  std::optional<HopValue<std::uint8_t>> queue_id;            // bit 3
  std::optional<HopValue<std::uint32_t>> queue_occupancy;    // bit 3, 24 bits
  std::optional<HopValue<std::uint64_t>> ingress_timestamp;  // bit 4
  std::optional<HopValue<std::uint64_t>> egress_timestamp;   // bit 5
  std::optional<HopValue<std::uint32_t>> l2_ingress_port;    // bit 6
  std::optional<HopValue<std::uint32_t>> l2_egress_port;     // bit 6
  std::optional<HopValue<std::uint32_t>> egress_tx_utilization;  // bit 7
  std::optional<HopValue<std::uint8_t>> buffer_id;           // bit 8
  std::optional<HopValue<std::uint32_t>> buffer_occupancy;   // bit 8, 24 bits
  // Hop ML words beyond the baseline ones: domain-specific metadata, kept raw.
  std::vector<std::uint32_t> domain_specific;
  std::optional<HopValue<std::uint32_t>> checksum_complement;  // bit 15

  friend bool operator==(const IntHopRecord&, const IntHopRecord&) = default;
};

struct IntMdStack {
  IntShim shim;
  IntMdHeader header;
  std::vector<IntHopRecord> hops;  // path order: hops[0] pushed first
  std::size_t payload_offset = 0;  // first byte after the stack, in the decoded buffer
};

// Words one hop pushes for the baseline instructions of `bitmap`, or
// invalid_argument when it sets reserved bits 9-14.
Decoded<std::uint8_t> int_baseline_words(std::uint16_t bitmap);

struct IntMdSourceRequest {
  std::uint16_t instruction_bitmap = kIntWiringBitmap;
  std::uint8_t max_hops = 8;   // initial Remaining Hop Count
  bool discard = true;         // a probe: the sink drops it
  std::uint8_t hop_ml = 0;     // 0: the baseline words of the bitmap
  std::uint16_t domain_id = 0;
  std::uint16_t ds_instruction = 0;
  std::uint16_t ds_flags = 0;
  std::uint8_t npt = kIntNptOriginalUdpPort;
  std::uint16_t npt_field = 0;  // e.g. the original UDP destination port
};

// Shim + 12-byte MD header with an empty stack: the bytes a source puts
// right after the UDP header, before the original payload.
Decoded<std::vector<std::byte>> build_int_md(const IntMdSourceRequest& request);

enum class IntTransitOutcome {
  pushed,              // hop metadata prepended, Remaining Hop Count decremented
  hop_count_exceeded,  // Remaining Hop Count was 0: E set, nothing pushed
  mtu_exceeded         // no room (egress MTU or the 8-bit shim length): M set
};

// A transit hop on `l4_payload` (starting at the shim): prepend hop_ml words
// of metadata built from `hop` after the MD header, update the shim length
// and Remaining Hop Count. `room` is how many bytes the packet may grow.
// The caller owns the UDP length and checksum around it.
Decoded<IntTransitOutcome> int_md_transit(
    std::vector<std::byte>& l4_payload, const IntHopRecord& hop,
    std::size_t room = std::numeric_limits<std::size_t>::max());

// The sink side. decode_int_md() takes the bytes after the L4 header (the
// shim first); decode_int_udp() a UDP datagram, header first, whose
// destination port must be `int_port`.
Decoded<IntMdStack> decode_int_md(std::span<const std::byte> l4_payload);
Decoded<IntMdStack> decode_int_udp(std::span<const std::byte> udp_datagram,
                                  std::uint16_t int_port = kIntUdpPort);

}  // namespace hpn::probe
