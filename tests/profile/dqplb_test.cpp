// DQPLB sizing: hand-computed cases, and NCCLX's caps over a sweep.
#include "planner/dqplb.h"
#include "profile_fixture.h"

namespace {

using namespace hpn;

TransportSpec defaults() {
  auto spec = default_spec();
  REQUIRE(spec.ok());
  return spec->transport;
}

TEST_CASE("profile/dqplb: the default pod's classes by hand") {
  TransportSpec t = defaults();
  // same-segment: BDP 175,000 B; window = 2 x 175,000 = 350,000 B;
  // 16 QPs x 32,768 B = 524,288 B per message slot >= 350,000: 1 message.
  DqplbSetting near = dqplb_setting(175000, 1, t);
  CHECK(near.window_bytes == 350000);
  CHECK(near.qps == 16);
  CHECK(near.segment_bytes == 32768);
  CHECK(near.max_msgs == 1);
  CHECK(near.mode == VcMode::dqplb);
  CHECK(ncclx_qp_config(near) == "32768,16,dqplb,1");
  // same-pod: BDP 342,500 B; window 685,000 B; ceil(685,000 / 524,288) = 2.
  DqplbSetting far = dqplb_setting(342500, 3, t);
  CHECK(far.window_bytes == 685000);
  CHECK(far.max_msgs == 2);
  CHECK(far.outstanding_bytes() == 1048576);
  CHECK(far.mode == VcMode::spray);
  CHECK(ncclx_qp_config(far) == "32768,16,spray,2");
}

TEST_CASE("profile/dqplb: past 256 messages the segment grows instead") {
  TransportSpec t = defaults();
  // BDP 100 MB (2 ms at 400 Gb/s): window 200,000,000 B. 16 x 32 KiB x 256 =
  // 134,217,728 B is too little, so max_msgs = 256 and the segment is
  // ceil(200,000,000 / (16 x 256)) = 48,829 B, rounded up to 4 KiB: 49,152.
  DqplbSetting s = dqplb_setting(100'000'000, 5, t);
  CHECK(s.max_msgs == 256);
  CHECK(s.segment_bytes == 49152);
  CHECK(s.outstanding_bytes() >= s.window_bytes);
}

TEST_CASE("profile/dqplb: every setting stays inside NCCLX's limits and covers its window") {
  TransportSpec t = defaults();
  for (int qps : {1, 2, 16, 100, 128}) {
    for (int segment : {4096, 32768, 524288}) {
      for (double headroom : {1.0, 2.0, 16.0}) {
        t.qps = qps;
        t.segment_bytes = segment;
        t.bdp_headroom = headroom;
        int64_t last = 0;
        for (int64_t bdp = 1; bdp < 20'000'000'000; bdp = bdp * 3 + 7) {
          DqplbSetting s = dqplb_setting(bdp, 3, t);
          INFO("qps " << qps << " segment " << segment << " headroom " << headroom << " BDP " << bdp);
          REQUIRE(s.qps >= 1);
          REQUIRE(s.qps <= kNcclxMaxQps);
          REQUIRE(s.max_msgs >= 1);
          REQUIRE(s.max_msgs <= kNcclxMaxMsgs);
          REQUIRE(s.segment_bytes >= segment);
          REQUIRE(s.outstanding_bytes() >= s.window_bytes);
          REQUIRE(double(s.window_bytes) >= headroom * double(bdp) - 1);
          // More outstanding bytes on a longer path, never fewer.
          REQUIRE(s.outstanding_bytes() >= last);
          last = s.outstanding_bytes();
        }
      }
    }
  }
}

TEST_CASE("profile/dqplb: the mode follows dqplb_max_hops") {
  TransportSpec t = defaults();
  t.dqplb_max_hops = 3;
  CHECK(dqplb_setting(1000, 3, t).mode == VcMode::dqplb);
  CHECK(dqplb_setting(1000, 5, t).mode == VcMode::spray);
  t.dqplb_max_hops = 0;
  CHECK(dqplb_setting(1000, 1, t).mode == VcMode::spray);
}

}  // namespace
