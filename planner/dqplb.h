// DQPLB sizing: how many data QPs, how large a segment and how many
// outstanding messages per QP a connection of a path class gets in NCCLX
// (meta-pytorch/torchcomms comms/ctran; FIELD.md section 4).
//
// A put is cut into segments spread round-robin over the data QPs; a QP takes
// a new segment only while it has fewer than max_msgs outstanding. So at most
// segment x QPs x max_msgs bytes are in flight per connection, and that must
// cover the class's bandwidth-delay product with headroom, or the connection
// stalls waiting for ACKs below line rate:
//
//   window   = ceil(headroom x BDP)
//   qps      = transport.qps                      (the same for every class)
//   segment  = transport.segment_bytes
//   max_msgs = ceil(window / (qps x segment))     (at least 1)
//   if max_msgs > 256: max_msgs = 256 and segment = ceil(window / (qps x 256))
//                      rounded up to 4 KiB
//   mode     = dqplb if hops <= transport.dqplb_max_hops, else spray
//
// QPs stay fixed because NCCLX connects QP i to QP i of the peer: every host
// must create the same number for a class, and a longer path needs more bytes
// in flight, not more paths. Segments stay small so a put spreads over all
// QPs (a 512 KiB put covers 16 QPs of 32 KiB); the window grows through
// max_msgs, and through the segment only past NCCLX's cap of 256.
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
};

DqplbSetting dqplb_setting(int64_t bdp_bytes, int hops, const TransportSpec& transport);

// NCCLX's per-class string: "<segment bytes>,<qps>,<mode>,<max msgs>".
std::string ncclx_qp_config(const DqplbSetting& setting);

}  // namespace hpn
