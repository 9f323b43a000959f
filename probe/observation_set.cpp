// ObservationSet: the compact storage behind Observation views.
#include <cstring>
#include <stdexcept>

#include "probe/observation.h"

namespace hpn::probe {

namespace {

template <class T>
T narrowed(std::int64_t v, std::int64_t lo, std::int64_t hi, const char* field) {
  if (v < lo || v > hi) throw std::invalid_argument(std::string("ObservationSet::add: ") + field + " out of range");
  return static_cast<T>(v);
}

// Records and hops are kept in chunks of fixed size that never move, so a
// set grows without the copy (and the doubled peak) of a vector's growth.
constexpr std::size_t kRecordChunk = 4096;
constexpr std::size_t kHopChunk = 65536;      // a record's hops never straddle two
constexpr std::size_t kTextBlock = 64 * 1024;  // interned text

}  // namespace

// 88 bytes: every text an index into the interned strings, the hops a
// place in the shared store and a count.
struct ObservationSet::Record {
  std::uint64_t probe;
  std::int64_t sent_ns, received_ns, entry;
  std::uint32_t run, src_device, src_port, src_address, dst_device, dst_address, rx_port, reporter;
  std::uint32_t first_hop;
  std::int32_t train, arrived;
  std::uint16_t src_udp_port, dst_udp_port, attempt;
  std::uint8_t hop_count;
  ProbeDirection direction;
  std::uint8_t hop_limit, icmp_type;
  bool received;
};

struct ObservationSet::Store {
  std::vector<std::unique_ptr<Record[]>> records;
  std::vector<std::unique_ptr<ObservedHop[]>> hops;
  std::size_t hops_in_last = kHopChunk;  // of the last chunk: full, so the first hop opens one
  std::vector<std::unique_ptr<char[]>> text_blocks, long_texts;
  std::size_t text_used = kTextBlock;
  std::size_t text_bytes = 0;
  std::vector<std::string_view> texts{std::string_view()};  // by id; 0 is ""
  std::unordered_map<std::string_view, std::uint32_t> ids;  // views the blocks

  std::uint32_t intern(std::string_view s) {
    if (s.empty()) return 0;
    if (auto it = ids.find(s); it != ids.end()) return it->second;
    char* at = nullptr;
    if (s.size() > kTextBlock / 4) {
      // A long one gets a block of its own; the current block stays open.
      long_texts.push_back(std::make_unique<char[]>(s.size()));
      at = long_texts.back().get();
      text_bytes += s.size();
    } else {
      if (text_used + s.size() > kTextBlock) {
        text_blocks.push_back(std::make_unique<char[]>(kTextBlock));
        text_used = 0;
        text_bytes += kTextBlock;
      }
      at = text_blocks.back().get() + text_used;
      text_used += s.size();
    }
    std::memcpy(at, s.data(), s.size());
    const auto id = static_cast<std::uint32_t>(texts.size());
    texts.emplace_back(at, s.size());
    ids.emplace(texts.back(), id);
    return id;
  }

  // Room for `n` hops in one chunk: their global index.
  std::size_t place_hops(std::size_t n) {
    if (hops_in_last + n > kHopChunk) {
      hops.push_back(std::make_unique<ObservedHop[]>(kHopChunk));
      hops_in_last = 0;
    }
    const std::size_t at = (hops.size() - 1) * kHopChunk + hops_in_last;
    hops_in_last += n;
    return at;
  }
};

ObservationSet::ObservationSet() : store_(std::make_unique<Store>()) {}
ObservationSet::ObservationSet(std::initializer_list<Observation> observations) : ObservationSet() {
  for (const auto& o : observations) add(o);
}
ObservationSet::ObservationSet(ObservationSet&&) noexcept = default;
ObservationSet& ObservationSet::operator=(ObservationSet&&) noexcept = default;
ObservationSet::~ObservationSet() = default;

void ObservationSet::add(const Observation& o) {
  static_assert(sizeof(Record) == 88);
  Store& s = *store_;
  if (o.hops.size() > kMaxObservedHops) throw std::invalid_argument("ObservationSet::add: more hops than a path has");
  if (size_ % kRecordChunk == 0) s.records.push_back(std::make_unique<Record[]>(kRecordChunk));
  Record& r = s.records.back()[size_ % kRecordChunk];
  r.probe = o.probe;
  r.sent_ns = o.sent_ns;
  r.received_ns = o.received_ns;
  r.entry = o.entry;
  r.run = s.intern(o.run);
  r.src_device = s.intern(o.src_device);
  r.src_port = s.intern(o.src_port);
  r.src_address = s.intern(o.src_address);
  r.dst_device = s.intern(o.dst_device);
  r.dst_address = s.intern(o.dst_address);
  r.rx_port = s.intern(o.rx_port);
  r.reporter = s.intern(o.reporter);
  r.train = o.train;
  r.arrived = o.arrived;
  r.src_udp_port = narrowed<std::uint16_t>(o.src_udp_port, 0, 65535, "src_udp_port");
  r.dst_udp_port = narrowed<std::uint16_t>(o.dst_udp_port, 0, 65535, "dst_udp_port");
  r.attempt = narrowed<std::uint16_t>(o.attempt, 0, 65535, "attempt");
  r.direction = o.direction;
  r.hop_limit = narrowed<std::uint8_t>(o.hop_limit, 0, 255, "hop_limit");
  r.icmp_type = narrowed<std::uint8_t>(o.icmp_type, 0, 255, "icmp_type");
  r.received = o.received;
  r.hop_count = static_cast<std::uint8_t>(o.hops.size());
  const std::size_t first = o.hops.empty() ? 0 : s.place_hops(o.hops.size());
  if (first > UINT32_MAX) throw std::length_error("ObservationSet::add: more hops than the store indexes");
  r.first_hop = static_cast<std::uint32_t>(first);
  if (!o.hops.empty()) {
    std::memcpy(&s.hops[first / kHopChunk][first % kHopChunk], o.hops.data(), o.hops.size() * sizeof(ObservedHop));
  }
  ++size_;
}

Observation ObservationSet::operator[](std::size_t i) const {
  const Store& s = *store_;
  const Record& r = s.records[i / kRecordChunk][i % kRecordChunk];
  Observation o;
  o.run = s.texts[r.run];
  o.probe = r.probe;
  o.direction = r.direction;
  o.src_device = s.texts[r.src_device];
  o.src_port = s.texts[r.src_port];
  o.src_address = s.texts[r.src_address];
  o.src_udp_port = r.src_udp_port;
  o.dst_device = s.texts[r.dst_device];
  o.dst_address = s.texts[r.dst_address];
  o.dst_udp_port = r.dst_udp_port;
  o.received = r.received;
  o.rx_port = s.texts[r.rx_port];
  if (r.hop_count > 0) o.hops = {&s.hops[r.first_hop / kHopChunk][r.first_hop % kHopChunk], r.hop_count};
  o.sent_ns = r.sent_ns;
  o.received_ns = r.received_ns;
  o.hop_limit = r.hop_limit;
  o.reporter = s.texts[r.reporter];
  o.icmp_type = r.icmp_type;
  o.entry = r.entry;
  o.attempt = r.attempt;
  o.train = r.train;
  o.arrived = r.arrived;
  o.position = static_cast<std::uint32_t>(i);
  return o;
}

Observation ObservationSet::at(std::size_t i) const {
  if (i >= size_) throw std::out_of_range("ObservationSet::at");
  return (*this)[i];
}

void ObservationSet::append(const ObservationSet& other) {
  for (std::size_t i = 0; i < other.size(); ++i) add(other[i]);
  skipped_long_ += other.skipped_long_;
  if (first_skipped_long_.empty()) first_skipped_long_ = other.first_skipped_long_;
}

void ObservationSet::note_skipped_long_path(const std::string& where) {
  if (skipped_long_++ == 0) first_skipped_long_ = where;
}

std::size_t ObservationSet::memory_bytes() const {
  const Store& s = *store_;
  // An unordered_map node: the key, the value and the next pointer, plus
  // its bucket.
  constexpr std::size_t kNode = sizeof(std::string_view) + 2 * sizeof(void*) + sizeof(void*);
  return s.records.size() * kRecordChunk * sizeof(Record) + s.hops.size() * kHopChunk * sizeof(ObservedHop) +
         s.text_bytes + s.texts.capacity() * sizeof(std::string_view) + s.ids.size() * kNode;
}

ObservationRecord::ObservationRecord(const Observation& o)
    : run(o.run), probe(o.probe), direction(o.direction), src_device(o.src_device), src_port(o.src_port),
      src_address(o.src_address), src_udp_port(o.src_udp_port), dst_device(o.dst_device),
      dst_address(o.dst_address), dst_udp_port(o.dst_udp_port), received(o.received), rx_port(o.rx_port),
      hops(o.hops.begin(), o.hops.end()), sent_ns(o.sent_ns), received_ns(o.received_ns), hop_limit(o.hop_limit),
      reporter(o.reporter), icmp_type(o.icmp_type), entry(o.entry), attempt(o.attempt), train(o.train),
      arrived(o.arrived) {}

Observation ObservationRecord::view() const {
  Observation o;
  o.run = run;
  o.probe = probe;
  o.direction = direction;
  o.src_device = src_device;
  o.src_port = src_port;
  o.src_address = src_address;
  o.src_udp_port = src_udp_port;
  o.dst_device = dst_device;
  o.dst_address = dst_address;
  o.dst_udp_port = dst_udp_port;
  o.received = received;
  o.rx_port = rx_port;
  o.hops = hops;
  o.sent_ns = sent_ns;
  o.received_ns = received_ns;
  o.hop_limit = hop_limit;
  o.reporter = reporter;
  o.icmp_type = icmp_type;
  o.entry = entry;
  o.attempt = attempt;
  o.train = train;
  o.arrived = arrived;
  return o;
}

}  // namespace hpn::probe
