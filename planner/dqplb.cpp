#include "planner/dqplb.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hpn {

std::string_view to_string(VcMode mode) { return mode == VcMode::dqplb ? "dqplb" : "spray"; }

namespace {
int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t kSegmentGrain = 4096;
}  // namespace

DqplbSetting dqplb_setting(int64_t bdp, int hops, const TransportSpec& t) {
  DqplbSetting s;
  s.window_bytes = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(t.bdp_headroom * double(bdp) - 1e-9)));
  s.qps = std::clamp(t.qps, 1, kNcclxMaxQps);
  s.segment_bytes = t.segment_bytes;
  int64_t msgs = std::max<int64_t>(1, ceil_div64(s.window_bytes, s.qps * s.segment_bytes));
  if (msgs > kNcclxMaxMsgs) {
    msgs = kNcclxMaxMsgs;
    int64_t segment = ceil_div64(s.window_bytes, int64_t{s.qps} * kNcclxMaxMsgs);
    s.segment_bytes = ceil_div64(segment, kSegmentGrain) * kSegmentGrain;
  }
  s.max_msgs = static_cast<int>(msgs);
  s.mode = hops <= t.dqplb_max_hops ? VcMode::dqplb : VcMode::spray;
  return s;
}

std::string ncclx_qp_config(const DqplbSetting& s) {
  return fmt::format("{},{},{},{}", s.segment_bytes, s.qps, to_string(s.mode), s.max_msgs);
}

}  // namespace hpn
