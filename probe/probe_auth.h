// Authentication of the probe agent's datagrams: every probe and every reply
// carries a trailer after its payload (payload.h) that names its sender, numbers
// it, and seals it, together with its five-tuple, under the run's key
// (probe_key.h). A receiver believes a datagram only once the seal checks,
// then takes it only for the current run, only once, and only at a bounded
// rate per source. No standard defines this; the layout is ours.
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  payload: a probe or a reply, whole (run id at bytes 8-15)     |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |          sender id (64): random, one per agent process         |
//   +                                                               +
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |       sequence (64): 1, 2, ... per datagram the sender sends    |
//   +                                                               +
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  tag (128): HMAC-SHA256 (RFC 2104, FIPS 180-4) truncated to its |
//   |  first 16 bytes (RFC 2104 §5 allows truncation to >= half)      |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The tag covers, in this order: the payload (magic, version, kind, attempt,
// run id, probe id, send time, and for a reply everything it reports), the
// sender id and sequence, then the flow as the network carries it: source
// address (16 bytes), source UDP port (2), destination address (16),
// destination UDP port (2). So a probe replayed from another address or port,
// or to another listener, does not check either.
//
// What a receiver refuses, in the order checked (each counted, then ignored):
//   bad-length    shorter than a probe header and trailer, or longer than
//                 any payload this build writes plus the trailer
//   bad-hmac      the tag does not match (CRYPTO_memcmp: constant time)
//   wrong-run     sealed with the key, but for another run
//   replay        a sequence this receiver took already from that sender, or
//                 one older than the last kReplayWindow it has seen
//   rate-limited  more than the per-source rate (token bucket per source
//                 address, after the seal checks: forged datagrams, whatever
//                 source address they claim, never use up a real sender's
//                 allowance)
// State is bounded: kMaxSenders replay windows (the least recently heard
// sender is forgotten first; counted) and kRateSlots rate buckets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "blueprint/result.h"
#include "probe/probe_key.h"
#include "probe/socket.h"

namespace hpn::probe {

inline constexpr std::size_t kAuthTagSize = 16;
inline constexpr std::size_t kAuthTrailerSize = 8 + 8 + kAuthTagSize;
inline constexpr std::size_t kReplayWindow = 1024;  // sequences per sender
inline constexpr std::size_t kMaxSenders = 16384;
inline constexpr std::size_t kRateSlots = 4096;

// HMAC-SHA256 with OpenSSL's EVP_MAC, the whole 32 bytes.
std::array<std::byte, 32> hmac_sha256(std::span<const std::byte> key, std::span<const std::byte> data);

struct AuthCounts {
  std::uint64_t accepted = 0;
  std::uint64_t bad_length = 0;
  std::uint64_t bad_hmac = 0;
  std::uint64_t wrong_run = 0;
  std::uint64_t replay = 0;
  std::uint64_t rate_limited = 0;
  std::uint64_t senders_forgotten = 0;  // replay windows dropped to stay within kMaxSenders
  std::uint64_t rejected() const { return bad_length + bad_hmac + wrong_run + replay + rate_limited; }
  friend bool operator==(const AuthCounts&, const AuthCounts&) = default;
};

enum class Verdict { accepted, bad_length, bad_hmac, wrong_run, replay, rate_limited };
const char* verdict_name(Verdict v);

struct GuardOptions {
  std::uint64_t run_id = 0;        // the current run: run_id_of() of its text
  double source_rate = 20000;      // datagrams per second per source address; 0: no limit
  double source_burst = 0;         // bucket size; 0: a tenth of a second's worth, at least 64
  std::uint64_t sender_id = 0;     // 0: random
};

// Seals what this agent sends and judges what it receives. Not thread-safe:
// one per agent, used from its one poll loop.
class ProbeGuard {
 public:
  // Errors when OpenSSL cannot set up HMAC-SHA256 or randomness is unavailable.
  static hpn::Result<std::unique_ptr<ProbeGuard>> create(const ProbeKey& key, const GuardOptions& options);
  ~ProbeGuard();
  ProbeGuard(const ProbeGuard&) = delete;
  ProbeGuard& operator=(const ProbeGuard&) = delete;

  // `d` with the trailer appended, sealed for its local -> remote flow (the
  // local address must be the concrete source, not "::").
  Datagram seal(Datagram d);
  // Judges a received datagram at `now_ns` (monotonic); on `accepted` the
  // trailer is removed from its payload. Counted either way.
  Verdict admit(Datagram& d, std::int64_t now_ns);

  const AuthCounts& counts() const { return counts_; }
  std::uint64_t sender_id() const { return sender_id_; }
  std::size_t senders_tracked() const { return windows_.size(); }

 private:
  struct Impl;
  ProbeGuard(std::unique_ptr<Impl> impl, const GuardOptions& options, std::uint64_t sender_id);
  std::array<std::byte, kAuthTagSize> tag(std::span<const std::byte> sealed_part, const Endpoint& source,
                                          const Endpoint& destination);
  bool fresh(std::uint64_t sender, std::uint64_t sequence);
  bool within_rate(const std::string& source, std::int64_t now_ns);

  struct Window {
    std::uint64_t top = 0;  // highest sequence taken
    std::array<std::uint64_t, kReplayWindow / 64> seen{};
    std::list<std::uint64_t>::iterator lru;
  };
  struct Bucket {
    std::string source;
    double tokens = 0;
    std::int64_t at_ns = 0;
  };

  std::unique_ptr<Impl> impl_;
  GuardOptions options_;
  std::uint64_t sender_id_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t hash_seed_;
  AuthCounts counts_;
  std::unordered_map<std::uint64_t, Window> windows_;
  std::list<std::uint64_t> lru_;  // front: most recently heard
  std::vector<Bucket> buckets_;
};

}  // namespace hpn::probe
