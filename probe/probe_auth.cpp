#include "probe/probe_auth.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "probe/byte_reader.h"
#include "probe/payload.h"

namespace hpn::probe {

namespace {

// An HMAC-SHA256 context keyed once; every message re-initialises it with
// the same key (EVP_MAC_init with a null key keeps the key set before).
class Hmac {
 public:
  ~Hmac() {
    EVP_MAC_CTX_free(ctx_);
    EVP_MAC_free(mac_);
  }
  bool init(std::span<const std::byte> key) {
    mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (mac_ == nullptr) return false;
    ctx_ = EVP_MAC_CTX_new(mac_);
    if (ctx_ == nullptr) return false;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_END};
    return EVP_MAC_init(ctx_, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) == 1;
  }
  // Start, feed parts, finish: 32 bytes.
  void start() { EVP_MAC_init(ctx_, nullptr, 0, nullptr); }
  void feed(std::span<const std::byte> part) {
    EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  std::array<std::byte, 32> finish() {
    std::array<std::byte, 32> out{};
    std::size_t len = 0;
    EVP_MAC_final(ctx_, reinterpret_cast<unsigned char*>(out.data()), &len, out.size());
    return out;
  }

 private:
  EVP_MAC* mac_ = nullptr;
  EVP_MAC_CTX* ctx_ = nullptr;
};

std::uint64_t random_u64() {
  std::uint64_t v = 0;
  while (v == 0) {
    if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v) && errno != EINTR) return 0;
  }
  return v;
}

// splitmix64's finaliser: spreads a string hash over the rate slots.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The flow as the tag covers it: 16-byte address, 2-byte port.
void feed_endpoint(Hmac& h, const Endpoint& e) {
  std::array<std::byte, 18> bytes{};
  in6_addr a{};
  if (inet_pton(AF_INET6, e.address.c_str(), &a) == 1) std::memcpy(bytes.data(), &a, 16);
  bytes[16] = static_cast<std::byte>(e.port >> 8);
  bytes[17] = static_cast<std::byte>(e.port & 0xff);
  h.feed(bytes);
}

}  // namespace

struct ProbeGuard::Impl {
  Hmac hmac;
};

std::array<std::byte, 32> hmac_sha256(std::span<const std::byte> key, std::span<const std::byte> data) {
  Hmac h;
  if (!h.init(key)) return {};
  h.start();
  h.feed(data);
  return h.finish();
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::accepted: return "accepted";
    case Verdict::bad_length: return "bad-length";
    case Verdict::bad_hmac: return "bad-hmac";
    case Verdict::wrong_run: return "wrong-run";
    case Verdict::replay: return "replay";
    case Verdict::rate_limited: return "rate-limited";
  }
  return "?";
}

hpn::Result<std::unique_ptr<ProbeGuard>> ProbeGuard::create(const ProbeKey& key, const GuardOptions& options) {
  if (key.bytes.size() < kMinProbeKeyBytes) return Error{"the probe key is too short"};
  auto impl = std::make_unique<Impl>();
  if (!impl->hmac.init(key.bytes)) return Error{"OpenSSL: HMAC-SHA256 is not available"};
  const std::uint64_t sender = options.sender_id != 0 ? options.sender_id : random_u64();
  if (sender == 0) return Error{"getrandom: no randomness for the sender id"};
  return std::unique_ptr<ProbeGuard>(new ProbeGuard(std::move(impl), options, sender));
}

ProbeGuard::ProbeGuard(std::unique_ptr<Impl> impl, const GuardOptions& options, std::uint64_t sender_id)
    : impl_(std::move(impl)), options_(options), sender_id_(sender_id), hash_seed_(random_u64()),
      buckets_(kRateSlots) {
  if (options_.source_burst <= 0) options_.source_burst = std::max(64.0, options_.source_rate / 10);
}

ProbeGuard::~ProbeGuard() = default;

std::array<std::byte, kAuthTagSize> ProbeGuard::tag(std::span<const std::byte> sealed_part, const Endpoint& source,
                                                    const Endpoint& destination) {
  Hmac& h = impl_->hmac;
  h.start();
  h.feed(sealed_part);
  feed_endpoint(h, source);
  feed_endpoint(h, destination);
  const auto full = h.finish();
  std::array<std::byte, kAuthTagSize> out{};
  std::copy_n(full.begin(), kAuthTagSize, out.begin());
  return out;
}

Datagram ProbeGuard::seal(Datagram d) {
  ByteWriter w;
  w.bytes(d.payload).be64(sender_id_).be64(next_sequence_++);
  auto sealed = std::move(w).take();
  const auto t = tag(sealed, d.local, d.remote);
  sealed.insert(sealed.end(), t.begin(), t.end());
  d.payload = std::move(sealed);
  return d;
}

Verdict ProbeGuard::admit(Datagram& d, std::int64_t now_ns) {
  auto judged = [&](Verdict v, std::uint64_t& count) {
    ++count;
    return v;
  };
  const std::size_t size = d.payload.size();
  if (size < kProbeHeaderSize + kAuthTrailerSize || size > kMaxPayloadSize + kAuthTrailerSize) {
    return judged(Verdict::bad_length, counts_.bad_length);
  }
  const std::span<const std::byte> all(d.payload);
  const auto sealed = all.first(size - kAuthTagSize);
  // The flow as it arrived: from the remote end to this one.
  const auto expected = tag(sealed, d.remote, d.local);
  if (CRYPTO_memcmp(expected.data(), all.data() + sealed.size(), kAuthTagSize) != 0) {
    return judged(Verdict::bad_hmac, counts_.bad_hmac);
  }
  ByteReader header(all.subspan(8, 8));
  ByteReader trailer(all.subspan(size - kAuthTrailerSize, 16));
  const std::uint64_t run = header.be64().value();
  const std::uint64_t sender = trailer.be64().value();
  const std::uint64_t sequence = trailer.be64().value();
  if (run != options_.run_id) return judged(Verdict::wrong_run, counts_.wrong_run);
  if (!fresh(sender, sequence)) return judged(Verdict::replay, counts_.replay);
  if (!within_rate(d.remote.address, now_ns)) return judged(Verdict::rate_limited, counts_.rate_limited);
  d.payload.resize(size - kAuthTrailerSize);
  ++counts_.accepted;
  return Verdict::accepted;
}

// The anti-replay window of IPsec (RFC 4303 §3.4.3, as a ring bitmap after
// RFC 6479): the highest sequence taken, and which of the kReplayWindow below
// it were taken. Only called for sealed datagrams, so only real senders get
// a window.
bool ProbeGuard::fresh(std::uint64_t sender, std::uint64_t sequence) {
  if (sequence == 0) return false;  // never sent
  auto it = windows_.find(sender);
  if (it == windows_.end()) {
    if (windows_.size() >= kMaxSenders) {
      windows_.erase(lru_.back());
      lru_.pop_back();
      ++counts_.senders_forgotten;
    }
    lru_.push_front(sender);
    it = windows_.emplace(sender, Window{}).first;
    it->second.lru = lru_.begin();
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  Window& w = it->second;
  auto bit = [&](std::uint64_t s) -> std::uint64_t& { return w.seen[(s / 64) % w.seen.size()]; };
  const std::uint64_t mask_of = 1;
  if (sequence > w.top) {
    if (sequence - w.top >= kReplayWindow) {
      w.seen.fill(0);
    } else {
      for (std::uint64_t s = w.top + 1; s <= sequence; ++s) bit(s) &= ~(mask_of << (s % 64));
    }
    w.top = sequence;
    bit(sequence) |= mask_of << (sequence % 64);
    return true;
  }
  if (w.top - sequence >= kReplayWindow) return false;  // too old to tell: refused
  std::uint64_t& word = bit(sequence);
  if ((word & (mask_of << (sequence % 64))) != 0) return false;
  word |= mask_of << (sequence % 64);
  return true;
}

bool ProbeGuard::within_rate(const std::string& source, std::int64_t now_ns) {
  if (options_.source_rate <= 0) return true;
  Bucket& b = buckets_[mix(std::hash<std::string>{}(source) ^ hash_seed_) % buckets_.size()];
  // A slot taken by another source starts afresh: a collision can only ever
  // give a source more allowance, never take a real sender's.
  if (b.source != source) b = Bucket{source, options_.source_burst, now_ns};
  const double elapsed = static_cast<double>(std::max<std::int64_t>(now_ns - b.at_ns, 0)) / 1e9;
  b.tokens = std::min(options_.source_burst, b.tokens + elapsed * options_.source_rate);
  b.at_ns = now_ns;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace hpn::probe
