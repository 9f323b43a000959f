#include "probe/payload.h"

#include <fmt/format.h>

namespace hpn::probe {

namespace {

const char* kind_name(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::probe: return "probe";
    case PayloadKind::reply: return "reply";
    case PayloadKind::train: return "train";
    case PayloadKind::train_report: return "train report";
  }
  return "?";
}

void write_header(ByteWriter& w, PayloadKind kind, const ProbeHeader& p) {
  w.be32(kProbeMagic).u8(kProbeVersion).u8(static_cast<std::uint8_t>(kind)).u8(p.attempt).u8(0);
  w.be64(p.run_id).be64(p.probe_id).be64(static_cast<std::uint64_t>(p.sent_ns));
}

// Magic, version and kind decide whether the rest is ours to read at all; the
// reserved byte is ignored (RFC-style: reserved on send, ignored on receive)
// so a later minor addition does not break this reader.
Decoded<ProbeHeader> read_header(ByteReader& r, PayloadKind want) {
  HPN_TRY(std::uint32_t magic, r.be32("magic"));
  if (magic != kProbeMagic) {
    return DecodeError::malformed(0, fmt::format("magic 0x{:08X} is not an hpnctl probe's", magic));
  }
  HPN_TRY(std::uint8_t version, r.u8("version"));
  if (version != kProbeVersion) {
    return DecodeError::malformed(4, fmt::format("version {} unknown (this reader knows {})", version,
                                                 kProbeVersion));
  }
  HPN_TRY(std::uint8_t kind, r.u8("kind"));
  if (kind != static_cast<std::uint8_t>(want)) {
    return DecodeError::malformed(5, fmt::format("kind {} where a {} ({}) was expected", kind, kind_name(want),
                                                 static_cast<int>(want)));
  }
  ProbeHeader p;
  HPN_TRY(p.attempt, r.u8("attempt"));
  HPN_CHECK(r.skip(1, "reserved"));
  HPN_TRY(p.run_id, r.be64("run id"));
  HPN_TRY(p.probe_id, r.be64("probe id"));
  HPN_TRY(std::uint64_t sent, r.be64("sent ns"));
  p.sent_ns = static_cast<std::int64_t>(sent);
  return p;
}

Status check_train(std::uint32_t length, std::uint32_t seq) {
  if (length == 0 || length > kMaxTrainLength) {
    return DecodeError::invalid_argument(fmt::format("a train is 1 to {} datagrams, not {}", kMaxTrainLength, length));
  }
  if (seq > length) return DecodeError::invalid_argument(fmt::format("seq {} is past the train's {}", seq, length));
  return success();
}

// A reply's fields after the header: times, port name, forward trace.
Status check_reply_body(const ProbeReply& reply) {
  if (reply.port.empty() || reply.port.size() > kMaxPortNameSize) {
    return DecodeError::invalid_argument(
        fmt::format("port name must be 1 to {} bytes, not {}", kMaxPortNameSize, reply.port.size()));
  }
  if (reply.forward_trace.size() > kMaxHopByHopSize || reply.forward_trace.size() % 8 != 0) {
    return DecodeError::invalid_argument(fmt::format(
        "forward trace must be a Hop-by-Hop header (a multiple of 8, at most {} bytes), not {} bytes",
        kMaxHopByHopSize, reply.forward_trace.size()));
  }
  return success();
}

void write_reply_body(ByteWriter& w, const ProbeReply& reply) {
  w.be64(static_cast<std::uint64_t>(reply.probe_received_ns));
  w.be64(static_cast<std::uint64_t>(reply.reply_sent_ns));
  w.u8(static_cast<std::uint8_t>(reply.port.size()));
  w.bytes(std::as_bytes(std::span(reply.port)));
  w.be16(static_cast<std::uint16_t>(reply.forward_trace.size()));
  w.bytes(reply.forward_trace);
}

Status read_reply_body(ByteReader& r, ProbeReply& reply) {
  HPN_TRY(std::uint64_t received, r.be64("probe received ns"));
  HPN_TRY(std::uint64_t sent, r.be64("reply sent ns"));
  reply.probe_received_ns = static_cast<std::int64_t>(received);
  reply.reply_sent_ns = static_cast<std::int64_t>(sent);
  const std::size_t name_at = r.offset();
  HPN_TRY(std::uint8_t name_len, r.u8("port name length"));
  if (name_len == 0) return DecodeError::malformed(name_at, "port name is empty");
  HPN_TRY(auto name, r.bytes(name_len, "port name"));
  for (std::byte b : name) reply.port.push_back(static_cast<char>(std::to_integer<unsigned char>(b)));
  const std::size_t trace_at = r.offset();
  HPN_TRY(std::uint16_t trace_len, r.be16("trace length"));
  if (trace_len > kMaxHopByHopSize || trace_len % 8 != 0) {
    return DecodeError::malformed(
        trace_at, fmt::format("trace length {} is not a Hop-by-Hop header's (a multiple of 8, at most {})",
                              trace_len, kMaxHopByHopSize));
  }
  HPN_TRY(auto trace, r.bytes(trace_len, "forward trace"));
  reply.forward_trace.assign(trace.begin(), trace.end());
  return success();
}

Status expect_end(const ByteReader& r, const char* what) {
  if (!r.empty()) {
    return DecodeError::malformed(r.offset(), fmt::format("{} trailing byte{} after the {}", r.remaining(),
                                                          r.remaining() == 1 ? "" : "s", what));
  }
  return success();
}

}  // namespace

PayloadClass classify_payload(std::span<const std::byte> payload) {
  ByteReader r(payload);
  auto magic = r.be32();
  if (!magic || *magic != kProbeMagic) return PayloadClass::foreign;
  auto version = r.u8();
  if (!version) return PayloadClass::foreign;
  if (*version != kProbeVersion) return PayloadClass::unknown_version;
  auto kind = r.u8();
  if (!kind) return PayloadClass::foreign;
  if (*kind == static_cast<std::uint8_t>(PayloadKind::probe)) return PayloadClass::probe;
  if (*kind == static_cast<std::uint8_t>(PayloadKind::reply)) return PayloadClass::reply;
  if (*kind == static_cast<std::uint8_t>(PayloadKind::train)) return PayloadClass::train;
  if (*kind == static_cast<std::uint8_t>(PayloadKind::train_report)) return PayloadClass::train_report;
  return PayloadClass::unknown_kind;
}

std::vector<std::byte> encode_probe(const ProbeHeader& probe) {
  ByteWriter w;
  write_header(w, PayloadKind::probe, probe);
  return std::move(w).take();
}

Decoded<std::vector<std::byte>> encode_reply(const ProbeReply& reply) {
  HPN_CHECK(check_reply_body(reply));
  ByteWriter w;
  write_header(w, PayloadKind::reply, reply.probe);
  write_reply_body(w, reply);
  return std::move(w).take();
}

Decoded<ProbeHeader> decode_probe(std::span<const std::byte> payload) {
  ByteReader r(payload);
  HPN_TRY(ProbeHeader p, read_header(r, PayloadKind::probe));
  HPN_CHECK(expect_end(r, "probe"));
  return p;
}

Decoded<ProbeReply> decode_reply(std::span<const std::byte> payload) {
  ByteReader r(payload);
  ProbeReply reply;
  HPN_TRY(reply.probe, read_header(r, PayloadKind::reply));
  HPN_CHECK(read_reply_body(r, reply));
  HPN_CHECK(expect_end(r, "reply"));
  return reply;
}

Decoded<std::vector<std::byte>> encode_train(const TrainDatagram& train) {
  HPN_CHECK(check_train(train.length, train.seq));
  ByteWriter w;
  write_header(w, PayloadKind::train, train.probe);
  w.be32(train.seq).be32(train.length);
  return std::move(w).take();
}

Decoded<TrainDatagram> decode_train(std::span<const std::byte> payload) {
  ByteReader r(payload);
  TrainDatagram t;
  HPN_TRY(t.probe, read_header(r, PayloadKind::train));
  const std::size_t at = r.offset();
  HPN_TRY(t.seq, r.be32("seq"));
  HPN_TRY(t.length, r.be32("train length"));
  if (!check_train(t.length, t.seq)) {
    return DecodeError::malformed(at, fmt::format("seq {} of a train of {}: a train is 1 to {} datagrams, seq at "
                                                  "most its length", t.seq, t.length, kMaxTrainLength));
  }
  HPN_CHECK(expect_end(r, "train datagram"));
  return t;
}

Decoded<std::vector<std::byte>> encode_train_report(const TrainReport& report) {
  HPN_CHECK(check_train(report.length, 0));
  if (report.arrived > report.length && report.arrived != kTrainNotCounted) {
    return DecodeError::invalid_argument(
        fmt::format("{} of a train of {} arrived: more than were sent", report.arrived, report.length));
  }
  HPN_CHECK(check_reply_body(report.reply));
  ByteWriter w;
  write_header(w, PayloadKind::train_report, report.reply.probe);
  w.be32(report.length).be32(report.arrived);
  write_reply_body(w, report.reply);
  return std::move(w).take();
}

Decoded<TrainReport> decode_train_report(std::span<const std::byte> payload) {
  ByteReader r(payload);
  TrainReport t;
  HPN_TRY(t.reply.probe, read_header(r, PayloadKind::train_report));
  const std::size_t at = r.offset();
  HPN_TRY(t.length, r.be32("train length"));
  HPN_TRY(t.arrived, r.be32("arrived"));
  if (t.length == 0 || t.length > kMaxTrainLength || (t.arrived > t.length && t.arrived != kTrainNotCounted)) {
    return DecodeError::malformed(at, fmt::format("{} of a train of {} arrived: a train is 1 to {} datagrams, "
                                                  "and no more arrive than were sent", t.arrived, t.length,
                                                  kMaxTrainLength));
  }
  HPN_CHECK(read_reply_body(r, t.reply));
  HPN_CHECK(expect_end(r, "train report"));
  return t;
}

std::uint64_t run_id_of(std::string_view run) {
  // FNV-1a, 64-bit: offset basis and prime from the FNV reference.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : run) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<std::uint64_t> listener_run_id(std::string_view run) {
  if (run.size() != 16) return std::nullopt;
  std::uint64_t id = 0;
  for (char c : run) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    id = id << 4 | static_cast<std::uint64_t>(digit);
  }
  return id;
}

}  // namespace hpn::probe
