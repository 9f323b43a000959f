#include "hostconfig/dqplb.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hpn {

std::string_view to_string(VcMode mode) { return mode == VcMode::dqplb ? "dqplb" : "spray"; }

namespace {

int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t kSegmentGrain = 4096;

// One quantity of the setting with its ceiling; `grain` rounds its growth.
struct Knob {
  int64_t value, ceiling, grain;
  bool at_ceiling() const { return value >= ceiling; }
  // Doubles, or grows only as far as `need` (rounded up to the grain),
  // never past the ceiling.
  void grow(int64_t need) {
    int64_t target = std::min(value * 2, ceil_div64(need, grain) * grain);
    value = std::min(ceiling, std::max(value + 1, target));
  }
};

}  // namespace

DqplbSetting dqplb_setting(int64_t bdp, int hops, const TransportSpec& t) {
  DqplbSetting s;
  s.window_bytes = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(t.bdp_headroom * double(bdp) - 1e-9)));
  // The spec loader keeps floors under ceilings and ceilings under NCCLX's
  // caps; the clamps only make a hand-built TransportSpec safe too.
  const int64_t max_qps = std::clamp(t.max_qps, 1, kNcclxMaxQps);
  const int64_t max_msgs = std::clamp(t.max_msgs, 1, kNcclxMaxMsgs);
  Knob qps{std::clamp<int64_t>(t.qps, 1, max_qps), max_qps, 1};
  Knob msgs{1, max_msgs, 1};
  Knob segment{t.segment_bytes, std::max<int64_t>(t.segment_bytes, t.max_segment_bytes), kSegmentGrain};
  Knob* turn[] = {&qps, &msgs, &segment};
  for (int i = 0; qps.value * msgs.value * segment.value < s.window_bytes; i = (i + 1) % 3) {
    if (qps.at_ceiling() && msgs.at_ceiling() && segment.at_ceiling()) break;
    Knob& k = *turn[i];
    if (k.at_ceiling()) continue;
    int64_t others = qps.value * msgs.value * segment.value / k.value;
    k.grow(ceil_div64(s.window_bytes, others));
  }
  s.qps = static_cast<int>(qps.value);
  s.max_msgs = static_cast<int>(msgs.value);
  s.segment_bytes = segment.value;
  s.mode = hops <= t.dqplb_max_hops ? VcMode::dqplb : VcMode::spray;
  return s;
}

std::string ncclx_qp_config(const DqplbSetting& s) {
  return fmt::format("{},{},{},{}", s.segment_bytes, s.qps, to_string(s.mode), s.max_msgs);
}

}  // namespace hpn
