// What the probe agent saw: one JSON line per probe and direction
// (schemas/observation.schema.json). The probe agent writes them; the
// validator turns them into witnessed links.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::probe {

// One hop's record as decoded from the trace; -1 where the node did not
// write the field or wrote "unavailable" (all ones).
struct ObservedHop {
  int64_t node_id = -1;
  int ingress_if = -1;
  int egress_if = -1;
  int hop_limit = -1;
};

struct Observation {
  std::string run;            // the run's identifier
  uint64_t probe = 0;         // probe number within the run
  // "forward" (probe), "reverse" (the listener's reply), or "expired": a
  // hop-limited probe, or one to a switch, that a switch answered with an
  // ICMPv6 error quoting it; its hops end at that switch.
  std::string direction;
  std::string src_device;     // the sending host, as the blueprint names it
  std::string src_port;       // the NIC port it was sent out of
  std::string src_address;
  int src_udp_port = 0;
  std::string dst_device;     // the host it was sent to
  std::string dst_address;
  int dst_udp_port = 0;
  bool received = false;
  std::string rx_port;        // the port it arrived on, when received
  std::vector<ObservedHop> hops;  // path order, first switch first
  int64_t sent_ns = 0;
  int64_t received_ns = 0;    // 0 when lost
  // Expired only: the probe's hop limit (0: not hop-limited, addressed to
  // a switch), and the error that came back.
  int hop_limit = 0;
  std::string reporter;       // the address the ICMPv6 error came from
  int icmp_type = 0;          // 3 Time Exceeded, 1 Destination Unreachable
  // The probe plan's entry the probe serves (`probe send --plan`); -1 none.
  std::int64_t entry = -1;
  // Which attempt of the probe (1 = the first, then one per retry) this
  // record is of: a sender's answered probe, the attempt answered (those
  // before it went unanswered); a sender's lost probe, the last attempt
  // made (every one unanswered); a receiver's record, the attempt that
  // arrived. Loss estimates count every attempt (probe/loss_tomography.h).
  int attempt = 1;
  // A train's record (probe/payload.h): the probe is its report request.
  // `train`: the datagrams the sender sent (a sender's record) or the
  // length the train declared (a receiver's); 0: not a train. `arrived`:
  // how many of them the listener counted, -1 when that is not known (no
  // report came back, or the listener could not count).
  std::int32_t train = 0;
  std::int32_t arrived = -1;
};

std::string to_json_line(const Observation& o);

// Bounds on what an observation file may hold, so endless or foreign
// input (a device, /dev/zero, a binary) is refused in bounded memory: a
// line is a few hundred bytes (kMaxObservationLine), and the default pod's
// whole probe plan is 261,120 records (kMaxObservations, per verify run).
inline constexpr std::size_t kMaxObservationLine = 64 * 1024;
inline constexpr std::size_t kMaxObservations = 4 * 1024 * 1024;

// Reads JSON lines; an error names the file and line. Blank lines are
// skipped; a file with no record at all is an error (it is no evidence).
// `limit`: the records the caller may still take.
hpn::Result<std::vector<Observation>> read_observations(std::istream& in, const std::string& name,
                                                        std::size_t limit = kMaxObservations);
// The same from a path, which must be a regular file or a pipe.
hpn::Result<std::vector<Observation>> read_observation_file(const std::string& path,
                                                            std::size_t limit = kMaxObservations);

}  // namespace hpn::probe
