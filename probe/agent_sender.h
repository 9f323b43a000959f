// `hpnctl probe send`: probes out of chosen NIC ports to chosen hosts,
// varying the UDP source port (so ECMP spreads them over the fabric's paths),
// paced, retried, and bounded by a time budget; one observation per probe
// and direction (observation.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "probe/agent_clock.h"
#include "probe/agent_options.h"
#include "probe/observation.h"
#include "probe/payload.h"
#include "probe/socket.h"

namespace hpn::probe {

// Bounds that keep one run's memory and file descriptors small and its
// attempt number within the payload's byte.
inline constexpr std::uint64_t kMaxProbesPerRun = 100'000;
inline constexpr std::uint64_t kMaxTrainDatagramsPerRun = 100'000'000;
// Trains sent at once, their datagrams in turn: each train is spread over
// time (a burst on one path is one moment's loss), and done, and reported,
// long before the run ends.
inline constexpr std::size_t kTrainWindow = 16;
// A train's report request leaves this long after the train's last
// datagram, not one interval after it: datagrams of one flow can be
// overtaken on a host whose sender moves to another CPU (the kernel queues
// each packet on the CPU that sent it), and the listener reports what had
// arrived when the request did. A straggler counted lost is a false
// finding; waiting costs a train nothing but the wait.
inline constexpr std::int64_t kReportGraceNs = 50'000'000;
// A train whose report counts a loss is asked again this long after the
// answer, and the later count stands: a datagram held longer than the grace
// (a CPU whose queue the scheduler left waiting, seen on a loaded 2-core
// CI machine under the sanitizers) arrives meanwhile and is no loss. Only
// trains that lost anything pay it, once.
inline constexpr std::int64_t kRecountNs = 500'000'000;
inline constexpr std::uint64_t kMaxSenderSockets = 512;  // ports x source ports; the default fd limit is 1024
inline constexpr unsigned kMaxRetries = 10;

struct SenderPort {
  std::string interface;  // the Linux interface probes leave by
  std::string port;       // its blueprint name
  std::string address;    // the source address (canonical IPv6)
};

// One probe of a probe plan (`probe send --plan`): out of ports[port] to
// destinations[destination] from this source port; `entry` is the plan's
// entry it serves, which its observations record.
// `train` > 0: instead of one probe, a train of that many datagrams of the
// five-tuple, then its report request, retried as a probe is
// (probe/payload.h); its observation counts what arrived.
struct PlannedSend {
  std::size_t port = 0, destination = 0;
  std::uint16_t source_port = 0;
  std::int64_t entry = -1;
  std::uint32_t train = 0;
};

struct SenderOptions {
  std::string run;     // the run's identifier (its run_id_of() goes on the wire)
  std::string device;  // this host, as the blueprint names it
  std::vector<SenderPort> ports;
  std::vector<Destination> destinations;
  unsigned probes = 16;  // per port and destination
  PortRange source_ports{49152, 49167};
  std::uint16_t udp_port = kDefaultProbePort;
  unsigned rate = 1000;  // datagrams per second, retries included
  std::int64_t timeout_ns = 500 * kNsPerMs;
  unsigned retries = 2;
  std::uint16_t ioam_namespace = 123;
  PortNames port_names;  // names the interface a reply arrives on
  // When given: exactly these probes, in this order, and `probes` and
  // `source_ports` are not used.
  std::vector<PlannedSend> planned;
};

struct SenderCounts {
  std::uint64_t probes = 0;     // planned
  std::uint64_t sent = 0;       // datagrams, retries and trains included
  std::uint64_t train_datagrams = 0;  // of them, trains' own datagrams
  std::uint64_t retries = 0;
  std::uint64_t send_errors = 0;
  std::uint64_t answered = 0;
  std::uint64_t icmp_answers = 0;  // of them, a switch's ICMPv6 error quoting the probe
  std::uint64_t late = 0;       // answered after being given up, within the run
  std::uint64_t recounts = 0;   // trains whose report counted a loss, asked again (kRecountNs)
  std::uint64_t stragglers = 0; // their datagrams the second count found that the first had not
  std::uint64_t lost = 0;       // no reply after every attempt: a received=false observation
  std::uint64_t unsent = 0;     // never sent (interrupted): no observation
  std::uint64_t abandoned = 0;  // interrupted while waiting: no observation, nothing is known
  std::uint64_t bad_traces = 0; // a direction whose trace could not be read: no observation for it
  // Datagrams that are not an answer to this run, ignored: not a reply at
  // all, another run's, or naming a probe, attempt or peer this run never sent.
  std::uint64_t foreign = 0;
  std::uint64_t other_run = 0;
  std::uint64_t unexpected = 0;
  std::uint64_t duplicates = 0;
  friend bool operator==(const SenderCounts&, const SenderCounts&) = default;
};

struct SenderResult {
  std::vector<ObservationRecord> observations;  // by probe id, forward before reverse
  SenderCounts counts;
  bool interrupted = false;
};

// The probes the run sends: `planned`, or probes x ports x destinations.
std::uint64_t planned_probes(const SenderOptions& options);
// The trains' own datagrams among them.
std::uint64_t planned_train_datagrams(const SenderOptions& options);

// Refuses what the run cannot do: no port or destination, zero probes or
// rate, a run past the bounds above, an empty run id or device name.
hpn::Status check_sender_options(const SenderOptions& options);

// How long a run waits: every attempt at the paced rate, plus one timeout
// per attempt a probe may make. A run ends by itself then at the latest,
// whatever the network does; a host too slow for the pace sends what it
// has left first (it never waits past this for an answer).
std::int64_t sender_budget_ns(const SenderOptions& options);

// Opens one socket per port and source port.
hpn::Status open_sender(const SenderOptions& options, DatagramNetwork& network);

SenderResult run_sender(const SenderOptions& options, DatagramNetwork& network, Clock& clock,
                        const std::function<bool()>& stop);

}  // namespace hpn::probe
