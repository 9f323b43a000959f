// DQPLB sizing: how many data QPs, how large a segment and how many
// outstanding messages per QP a connection of a path class gets in NCCLX
// (meta-pytorch/torchcomms comms/ctran; FIELD.md section 4).
//
// A put is cut into segments spread round-robin over the data QPs; a QP takes
// a new segment only while it has fewer than max_msgs outstanding. So at most
// segment x QPs x max_msgs bytes are in flight per connection, and that must
// cover the class's bandwidth-delay product with headroom, or the connection
// stalls waiting for ACKs below line rate. The CCLX paper sizes all three by
// the path's BDP: a near path gets a conservative setting (few bytes in
// flight, little switch buffer), a distant one more QPs and more data in
// flight. So every class starts from the spec's floors and grows:
//
//   window = ceil(headroom x BDP)
//   start at qps = transport.qps, segment = transport.segment_bytes, max_msgs = 1
//   while segment x qps x max_msgs < window:
//     grow the next of qps, max_msgs, segment (in that turn, skipping one at
//     its ceiling): double it, or less if less covers the window
//     (segments in 4 KiB steps); stop when all three are at their ceilings
//   mode = dqplb if hops <= transport.dqplb_max_hops, else spray
//
// Ceilings: transport.max_qps (at most NCCLX's 128), max_msgs (at most
// NCCLX's 256), max_segment_bytes. The setting is a function of the class
// alone, and the class of a pair of hosts is the same seen from either end
// (path_class.h): both ends of a connection create the same number of QPs,
// which NCCLX needs, since it connects QP i to the peer's QP i.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "planner/spec.h"

namespace hpn {

inline constexpr int kNcclxMaxQps = 128;   // CTRAN_HARDCODED_MAX_QPS
inline constexpr int kNcclxMaxMsgs = 256;  // MAX_SEND_WR, the cap on max messages per QP

enum class VcMode { dqplb, spray };
std::string_view to_string(VcMode mode);

struct DqplbSetting {
  int qps = 0;
  int64_t segment_bytes = 0;
  int max_msgs = 0;
  VcMode mode = VcMode::spray;
  int64_t window_bytes = 0;       // what had to be covered: headroom x BDP
  int64_t outstanding_bytes() const { return segment_bytes * qps * max_msgs; }
  // False only when every ceiling was reached short of the window.
  bool covers_window() const { return outstanding_bytes() >= window_bytes; }
};

DqplbSetting dqplb_setting(int64_t bdp_bytes, int hops, const TransportSpec& transport);

// NCCLX's per-class string: "<segment bytes>,<qps>,<mode>,<max msgs>".
std::string ncclx_qp_config(const DqplbSetting& setting);

}  // namespace hpn
