// What the probe agent saw: one JSON line per probe and direction
// (schemas/observation.schema.json). The probe agent writes them; the
// validator turns them into witnessed links.
//
// Two forms. A producer (the agent, the fabric model) fills in an
// ObservationRecord, which owns its text and hops. A reader gets
// Observations out of an ObservationSet: views whose text and hops live in
// the set, which stores each record compactly (text interned once per
// distinct string, hops in one shared store; bench/observation_memory.sh
// measures the bytes per record). A pod's verify holds millions of them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <istream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blueprint/result.h"

namespace hpn::probe {

// Which record of a probe this is: the probe as sent ("forward"), the
// listener's reply ("reverse"), or "expired": a hop-limited probe, or one
// to a switch, that a switch answered with an ICMPv6 error quoting it; its
// hops end at that switch.
enum class ProbeDirection : std::uint8_t { forward, reverse, expired };
std::string_view to_string(ProbeDirection direction);  // "forward", as the JSON line has it
bool parse_probe_direction(std::string_view text, ProbeDirection& out);
std::ostream& operator<<(std::ostream& out, ProbeDirection direction);

// One hop's record as decoded from the trace; -1 where the node did not
// write the field or wrote "unavailable" (all ones).
struct ObservedHop {
  std::int32_t node_id = -1;  // 24 bits (RFC 9197 §4.4.2.1)
  std::int32_t ingress_if = -1;
  std::int32_t egress_if = -1;
  std::int32_t hop_limit = -1;

  ObservedHop() = default;
  // From the wider integers decoders and the blueprint hold (a node ID is
  // a uint32_t there): every value fits, being at most 24 bits.
  constexpr ObservedHop(std::int64_t node, std::int64_t ingress, std::int64_t egress, std::int64_t limit)
      : node_id(static_cast<std::int32_t>(node)), ingress_if(static_cast<std::int32_t>(ingress)),
        egress_if(static_cast<std::int32_t>(egress)), hop_limit(static_cast<std::int32_t>(limit)) {}
  friend bool operator==(const ObservedHop&, const ObservedHop&) = default;
};

// One observation as code reads it. Its text and hops are views: of the
// ObservationSet it came from, or of the ObservationRecord it was made of,
// and valid as long as that is.
struct Observation {
  std::string_view run;       // the run's identifier
  std::uint64_t probe = 0;    // probe number within the run
  ProbeDirection direction = ProbeDirection::forward;
  std::string_view src_device;  // the sending host, as the blueprint names it
  std::string_view src_port;    // the NIC port it was sent out of
  std::string_view src_address;
  int src_udp_port = 0;
  std::string_view dst_device;  // the host it was sent to
  std::string_view dst_address;
  int dst_udp_port = 0;
  bool received = false;
  std::string_view rx_port;     // the port it arrived on, when received
  std::span<const ObservedHop> hops;  // path order, first switch first
  std::int64_t sent_ns = 0;
  std::int64_t received_ns = 0;  // 0 when lost
  // Expired only: the probe's hop limit (0: not hop-limited, addressed to
  // a switch), and the error that came back.
  int hop_limit = 0;
  std::string_view reporter;  // the address the ICMPv6 error came from
  int icmp_type = 0;          // 3 Time Exceeded, 1 Destination Unreachable
  // The probe plan's entry the probe serves (`probe send --plan`); -1 none.
  std::int64_t entry = -1;
  // Which attempt of the probe (1 = the first, then one per retry) this
  // record is of: a sender's answered probe, the attempt answered (those
  // before it went unanswered); a sender's lost probe, the last attempt
  // made (every one unanswered); a receiver's record, the attempt that
  // arrived. Loss estimates count every attempt (validator/loss_evidence.h).
  int attempt = 1;
  // A train's record (probe/payload.h): the probe is its report request.
  // `train`: the datagrams the sender sent (a sender's record) or the
  // length the train declared (a receiver's); 0: not a train. `arrived`:
  // how many of them the listener counted, -1 when that is not known (no
  // report came back, or the listener could not count).
  std::int32_t train = 0;
  std::int32_t arrived = -1;
  // Its place in the ObservationSet it was read from (0 otherwise).
  std::uint32_t position = 0;
};

// The same fields, owned: what a producer fills in before writing the
// record (to_json_line) or adding it to a set.
struct ObservationRecord {
  std::string run;
  std::uint64_t probe = 0;
  ProbeDirection direction = ProbeDirection::forward;
  std::string src_device, src_port, src_address;
  int src_udp_port = 0;
  std::string dst_device, dst_address;
  int dst_udp_port = 0;
  bool received = false;
  std::string rx_port;
  std::vector<ObservedHop> hops;
  std::int64_t sent_ns = 0, received_ns = 0;
  int hop_limit = 0;
  std::string reporter;
  int icmp_type = 0;
  std::int64_t entry = -1;
  int attempt = 1;
  std::int32_t train = 0, arrived = -1;

  ObservationRecord() = default;
  explicit ObservationRecord(const Observation& o);
  Observation view() const;
  operator Observation() const { return view(); }  // NOLINT: a record reads as its view
};

std::string to_json_line(const Observation& o);

// Bounds on what an observation file may hold, so endless or foreign
// input (a device, /dev/zero, a binary) is refused in bounded memory: a
// line is a few hundred bytes (kMaxObservationLine), and the default pod's
// whole probe plan is 261,120 records (kMaxObservations, per verify run).
// A record's hops are at most an IPv6 hop limit's worth (RFC 8200 §3);
// verify bounds them further by the plan's longest path.
inline constexpr std::size_t kMaxObservationLine = 64 * 1024;
inline constexpr std::size_t kMaxObservations = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxObservedHops = 255;

// Observations held compactly: each distinct string once, every record's
// hops in one store, a record of fixed size (about 90 bytes) in chunks
// that never move (no reallocation doubling the peak). Reads give
// Observation views; an index gives the record at that place.
class ObservationSet {
 public:
  ObservationSet();
  ObservationSet(std::initializer_list<Observation> observations);
  ObservationSet(ObservationSet&&) noexcept;
  ObservationSet& operator=(ObservationSet&&) noexcept;
  ObservationSet(const ObservationSet&) = delete;
  ObservationSet& operator=(const ObservationSet&) = delete;
  ~ObservationSet();

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Observation operator[](std::size_t i) const;
  Observation at(std::size_t i) const;  // std::out_of_range past the end, as a vector's
  Observation front() const { return (*this)[0]; }
  Observation back() const { return (*this)[size_ - 1]; }

  // Copies `o` in (its text interned, its hops appended to the store).
  void add(const Observation& o);
  void push_back(const Observation& o) { add(o); }  // filled as a vector is
  // Each of a range of Observations or ObservationRecords.
  template <class Range>
  void add_all(const Range& range) {
    for (const auto& o : range) add(o);
  }
  void append(const ObservationSet& other);

  // Records a reader skipped as malformed for having more hops than it
  // allowed: how many, and where the first was ("FILE:LINE").
  std::size_t skipped_long_paths() const { return skipped_long_; }
  const std::string& first_skipped_long_path() const { return first_skipped_long_; }
  void note_skipped_long_path(const std::string& where);

  // Bytes held: records, hops, text and the interning index.
  std::size_t memory_bytes() const;

  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Observation;
    using difference_type = std::ptrdiff_t;
    using reference = Observation;
    using pointer = void;
    iterator() = default;
    iterator(const ObservationSet* set, std::size_t i) : set_(set), i_(i) {}
    Observation operator*() const { return (*set_)[i_]; }
    Observation operator[](difference_type n) const { return (*set_)[i_ + static_cast<std::size_t>(n)]; }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { auto t = *this; ++i_; return t; }
    iterator& operator--() { --i_; return *this; }
    iterator operator--(int) { auto t = *this; --i_; return t; }
    iterator& operator+=(difference_type n) { i_ += static_cast<std::size_t>(n); return *this; }
    iterator& operator-=(difference_type n) { i_ -= static_cast<std::size_t>(n); return *this; }
    friend iterator operator+(iterator a, difference_type n) { return a += n; }
    friend iterator operator+(difference_type n, iterator a) { return a += n; }
    friend iterator operator-(iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }

   private:
    const ObservationSet* set_ = nullptr;
    std::size_t i_ = 0;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

 private:
  struct Record;
  struct Store;
  std::unique_ptr<Store> store_;
  std::size_t size_ = 0;
  std::size_t skipped_long_ = 0;
  std::string first_skipped_long_;
};

// How much a read may take.
struct ObservationLimits {
  std::size_t records = kMaxObservations;  // the records the set may still take
  // A record with more hops is malformed: skipped, counted in the set
  // (skipped_long_paths()), not an error that ends the read.
  std::size_t hops = kMaxObservedHops;
};

// Reads JSON lines into `into`; an error names the file and line. Blank
// lines are skipped; a file with no record at all is an error (it is no
// evidence). Memory: only the set grows, by one compact record a line.
hpn::Status read_observations_into(std::istream& in, const std::string& name, ObservationSet& into,
                                   const ObservationLimits& limits = {});
hpn::Result<ObservationSet> read_observations(std::istream& in, const std::string& name,
                                              std::size_t limit = kMaxObservations);
// The same from a path: a regular file or a pipe (blueprint/input_file.h).
hpn::Status read_observation_file_into(const std::string& path, ObservationSet& into,
                                       const ObservationLimits& limits = {});
hpn::Result<ObservationSet> read_observation_file(const std::string& path, std::size_t limit = kMaxObservations);

// Observation files, or directories of them (their *.jsonl in name order,
// empty ones skipped), read up to kMaxObservations in all.
// `max_hops`: a record with more hops is skipped as malformed and counted
// (ObservationSet::skipped_long_paths()); verify passes the plan's longest
// path (probe/probe_plan.h, longest_path_hops()).
hpn::Result<ObservationSet> read_observation_inputs(const std::vector<std::string>& inputs,
                                                    std::size_t max_hops = kMaxObservedHops);

}  // namespace hpn::probe
