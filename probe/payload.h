// The UDP payloads of the probe agent: the probe `hpnctl probe send` emits and
// the reply `hpnctl probe listen` returns. No standard defines these (INT and
// IOAM carry the per-hop data; this only carries what the two agents must tell
// each other), so the format is ours: big-endian, fixed fields first, every
// length checked, every byte read through a ByteReader. Pure: no I/O.
//
// Both start with the same 32-byte header:
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                  magic "HPNp" (0x48504E70)                    |
//   +---------------+---------------+---------------+---------------+
//   |  version (1)  | kind (1 or 2) |    attempt    |  reserved (0) |
//   +---------------+---------------+---------------+---------------+
//   |                     run id (64 bits)                          |
//   +                                                               +
//   |                                                               |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                     probe id (64 bits)                        |
//   +                                                               +
//   |                                                               |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |              sent ns (64 bits, sender's CLOCK_REALTIME)       |
//   +                                                               +
//   |                                                               |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A probe (kind 1) is that header and nothing else. A reply (kind 2) echoes
// the probe's header fields and goes on:
//
//   |           probe received ns (64, listener's CLOCK_REALTIME)   |
//   |           reply sent ns (64, listener's CLOCK_REALTIME)       |
//   +---------------+-----------------------------------------------+
//   | port name len | port name (1-255 bytes): where the probe came in
//   +---------------+---------------+-------------------------------+
//   |  trace length (16)            | forward trace: the probe's whole
//   +-------------------------------+ Hop-by-Hop header as it arrived
//                                     (a multiple of 8, at most 2048 bytes)
//
// The payload must end exactly there: trailing bytes are malformed.
//
// A train (kind 3) measures loss one way: `length` datagrams of one
// five-tuple, numbered by `seq`, that the listener counts and never
// answers, then the report request (seq = length, retried like a probe),
// which it answers with a train report (kind 4): how many of the train's
// datagrams arrived, beside what a reply carries.
//
//   train (kind 3):   header | seq (32) | length (32)
//   report (kind 4):  header | length (32) | arrived (32) | then a reply's
//                     fields from "probe received ns" on
//
// `arrived` is 0xFFFFFFFF when the listener could not count the train (its
// socket dropped datagrams meanwhile, or it had no room to track it): the
// sender then knows nothing of the train's loss, which is not a loss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probe/byte_reader.h"

namespace hpn::probe {

// The probe port: INT-over-UDP's common 0x4568 (FIELD.md §2; no IANA port).
inline constexpr std::uint16_t kDefaultProbePort = 17768;
inline constexpr std::uint32_t kProbeMagic = 0x48504E70;  // "HPNp"
inline constexpr std::uint8_t kProbeVersion = 1;
inline constexpr std::size_t kProbeHeaderSize = 32;
// The largest IPv6 extension header: (255 + 1) x 8 bytes (RFC 8200 §4.3).
inline constexpr std::size_t kMaxHopByHopSize = 2048;
inline constexpr std::size_t kMaxPortNameSize = 255;
// Every valid payload fits (a train report, the longest, is a reply and
// 8 bytes); a receive buffer this big tells an oversized datagram (cut to
// it by the kernel) from a valid one by its trailing bytes.
inline constexpr std::size_t kMaxPayloadSize = kProbeHeaderSize + 8 + 16 + 1 + kMaxPortNameSize + 2 + kMaxHopByHopSize;

enum class PayloadKind : std::uint8_t { probe = 1, reply = 2, train = 3, train_report = 4 };

// The longest train: a report's count must fit, and a listener's tally of
// which datagrams arrived (a bit each) stays small.
inline constexpr std::uint32_t kMaxTrainLength = 1'000'000;
// A report's `arrived` when the listener could not count the train.
inline constexpr std::uint32_t kTrainNotCounted = 0xFFFFFFFF;

struct ProbeHeader {
  std::uint64_t run_id = 0;    // run_id_of() of the run's identifier
  std::uint64_t probe_id = 0;  // probe number within the run
  std::uint8_t attempt = 0;    // 0 first, then 1 per retry: a reply names the attempt it answers
  std::int64_t sent_ns = 0;
  friend bool operator==(const ProbeHeader&, const ProbeHeader&) = default;
};

struct ProbeReply {
  ProbeHeader probe;  // as the probe carried it
  std::int64_t probe_received_ns = 0;
  std::int64_t reply_sent_ns = 0;
  std::string port;                     // the listener's port the probe arrived on (and the reply left by)
  std::vector<std::byte> forward_trace; // the probe's Hop-by-Hop header, raw
  friend bool operator==(const ProbeReply&, const ProbeReply&) = default;
};

// What a datagram claims to be, from its first 6 bytes only, so a receiver
// can count what it ignores without decoding it: `foreign` (too short for a
// header start or not our magic), `unknown_version`, or a kind; kinds other
// than probe and reply are `unknown_kind`.
enum class PayloadClass { foreign, unknown_version, unknown_kind, probe, reply, train, train_report };
PayloadClass classify_payload(std::span<const std::byte> payload);

std::vector<std::byte> encode_probe(const ProbeHeader& probe);
// Errors when the port name is empty or too long or the trace too long or not
// a multiple of 8: a reply this code could not read back is never sent.
Decoded<std::vector<std::byte>> encode_reply(const ProbeReply& reply);

// Exactly one probe / one reply: wrong magic, version or kind, a short buffer,
// out-of-range lengths and trailing bytes are errors (truncated when the bytes
// stop before a length the payload declares, malformed otherwise).
Decoded<ProbeHeader> decode_probe(std::span<const std::byte> payload);
Decoded<ProbeReply> decode_reply(std::span<const std::byte> payload);

// One datagram of a train, or (seq == length) its report request.
struct TrainDatagram {
  ProbeHeader probe;        // attempt: the report request's (0 on the train's own datagrams)
  std::uint32_t seq = 0;    // 0 .. length - 1; length: the report request
  std::uint32_t length = 0; // 1 .. kMaxTrainLength
  bool report_request() const { return seq == length; }
  friend bool operator==(const TrainDatagram&, const TrainDatagram&) = default;
};

struct TrainReport {
  ProbeReply reply;  // as to a probe: the request's header, times, port and forward trace
  std::uint32_t length = 0;
  std::uint32_t arrived = 0;  // distinct datagrams of the train heard, or kTrainNotCounted
  friend bool operator==(const TrainReport&, const TrainReport&) = default;
};

// Errors on a length of 0 or past kMaxTrainLength, or a seq past the length.
Decoded<std::vector<std::byte>> encode_train(const TrainDatagram& train);
Decoded<std::vector<std::byte>> encode_train_report(const TrainReport& report);
Decoded<TrainDatagram> decode_train(std::span<const std::byte> payload);
Decoded<TrainReport> decode_train_report(std::span<const std::byte> payload);

// The 64-bit run id carried for a run identifier: FNV-1a over its bytes, so
// any text names a run and both ends agree without exchanging it.
std::uint64_t run_id_of(std::string_view run);

// The run id a listener's record names: its run written as run_id_of() in
// 16 lowercase hex digits ({:016x}); nullopt for any other text, which no
// sender's run id matches.
std::optional<std::uint64_t> listener_run_id(std::string_view run);

}  // namespace hpn::probe
