// `hpnctl probe listen`: answer every well-formed probe with a reply out of
// the port it arrived on, carrying the probe's forward trace and that port's
// name, and collecting the reverse path in a fresh trace of its own (which
// the DatagramNetwork adds to everything it sends).
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "probe/observation.h"
#include <optional>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "probe/agent_clock.h"
#include "probe/agent_options.h"
#include "probe/payload.h"
#include "probe/socket.h"

namespace hpn::probe {

// Every datagram the listener received lands in exactly one of the counts
// after `received`.
struct ListenerCounts {
  std::uint64_t received = 0;
  std::uint64_t answered = 0;
  std::uint64_t send_errors = 0;      // a reply could not be sent (interface down, no route)
  std::uint64_t foreign = 0;          // not an hpnctl payload (wrong magic, too short)
  std::uint64_t unknown_version = 0;  // ours, of a version this build does not read
  std::uint64_t not_a_probe = 0;      // ours, but a reply or an unknown kind
  std::uint64_t malformed = 0;        // a probe whose bytes do not decode (truncated, trailing bytes)
  std::uint64_t without_trace = 0;    // a probe without a readable IOAM trace: nothing to return
  std::uint64_t train_datagrams = 0;  // a train's own datagrams, counted and not answered
  friend bool operator==(const ListenerCounts&, const ListenerCounts&) = default;
};

// What a listener has counted of the trains sent to it (probe/payload.h):
// per train, which of its datagrams arrived. Bounded: a train idle for
// kTrainIdleNs is forgotten, and the tallies hold at most kMaxTallyBits; a
// train that finds no room is not counted, and its report says so rather
// than report a loss. A train whose datagrams may have been dropped by the
// listener's own socket (its overflow count rose meanwhile) is not counted
// either: that loss is this host's, not a cable's.
class TrainTallies {
 public:
  static constexpr std::int64_t kTrainIdleNs = 60'000'000'000;
  static constexpr std::size_t kMaxTallyBits = std::size_t{256} << 20;  // 32 MiB

  // A datagram of a train (not its report request) arrived at `now_ns`.
  void count(const TrainDatagram& t, const Datagram& d, std::int64_t now_ns);
  // What to report for the train of this report request: the distinct
  // datagrams counted, 0 when none arrived, or kTrainNotCounted.
  std::uint32_t arrived(const TrainDatagram& request, const Datagram& d, std::int64_t now_ns);
  std::size_t trains() const { return tallies_.size(); }

 private:
  struct Key {
    std::uint64_t run = 0, probe = 0;
    std::string address;
    std::uint16_t port = 0;
    friend auto operator<=>(const Key&, const Key&) = default;
  };
  struct Tally {
    std::uint32_t length = 0, arrived = 0;
    std::vector<bool> seen;
    std::string interface;
    std::uint32_t drops = 0;  // the socket's overflow count before the train's first datagram
    bool tainted = false;     // the count rose since, or the train changed its length
    bool refused = false;     // no room to count it
    std::int64_t last_ns = 0;
  };
  static Key key_of(const TrainDatagram& t, const Datagram& d) {
    return {t.probe.run_id, t.probe.probe_id, d.remote.address, d.remote.port};
  }
  void forget_idle(std::int64_t now_ns);

  std::map<Key, Tally> tallies_;
  std::map<std::string, std::uint32_t> drops_;  // per interface: the socket's overflow count last seen
  std::size_t bits_ = 0;
};

// The pure part: what to answer to one datagram, if anything.
class ProbeResponder {
 public:
  explicit ProbeResponder(PortNames port_names) : port_names_(std::move(port_names)) {}
  // The reply to `probe` (sent at `now_realtime_ns`), or nullopt when the
  // datagram is not a probe to answer; either way it is counted.
  std::optional<Datagram> answer(const Datagram& probe, std::int64_t now_realtime_ns);
  ListenerCounts& counts() { return counts_; }
  const ListenerCounts& counts() const { return counts_; }
  // The header of the probe answer() last accepted.
  const ProbeHeader& last_probe() const { return last_probe_; }
  // When the datagram answer() last accepted was a train's report request:
  // the train's length and what was reported of it (kTrainNotCounted as is).
  std::optional<std::pair<std::uint32_t, std::uint32_t>> last_train() const { return last_train_; }
  const PortNames& port_names() const { return port_names_; }
  const TrainTallies& trains() const { return trains_; }

 private:
  std::optional<Datagram> answer_train(const Datagram& in, std::int64_t now_realtime_ns);
  bool has_trace(const Datagram& in);

  PortNames port_names_;
  ListenerCounts counts_;
  ProbeHeader last_probe_;
  std::optional<std::pair<std::uint32_t, std::uint32_t>> last_train_;
  TrainTallies trains_;
};

struct ListenerOptions {
  std::uint16_t udp_port = kDefaultProbePort;
  std::vector<std::string> interfaces;  // one socket each
  PortNames port_names;                 // interface -> the blueprint port name replies report
  std::int64_t duration_ns = 0;         // 0: until stopped
  // Each accepted probe as this host saw it arrive (a forward observation
  // without the sender's port, which only the sender knows). The receiver's
  // own evidence: it survives a reply lost on a one-way broken link.
  std::function<void(const ObservationRecord&)> record;
  std::string device;                   // this host's blueprint name, for `record`
  std::uint16_t ioam_namespace = 123;
};

// Opens the probe port on every interface; the first failure is returned.
hpn::Status open_listener(const ListenerOptions& options, DatagramNetwork& network);

// Answers probes until `duration_ns` has passed or `stop()` is true (checked
// at least every 200 ms, so a signal that slipped past the wait is still
// seen promptly).
ListenerCounts run_listener(const ListenerOptions& options, DatagramNetwork& network, Clock& clock,
                            const std::function<bool()>& stop);

}  // namespace hpn::probe
