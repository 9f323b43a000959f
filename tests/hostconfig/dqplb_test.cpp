// DQPLB sizing: hand-computed cases, and NCCLX's caps over a sweep.
#include <algorithm>

#include "hostconfig/dqplb.h"
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
  // Floors 16 QPs x 32,768 B x 1 message = 524,288 B in flight.
  // same-segment: BDP 175,000 B; window = 2 x 175,000 = 350,000 B <= 524,288:
  // the floors, nothing grows.
  DqplbSetting near = dqplb_setting(175000, 1, t);
  CHECK(near.window_bytes == 350000);
  CHECK(near.qps == 16);
  CHECK(near.segment_bytes == 32768);
  CHECK(near.max_msgs == 1);
  CHECK(near.mode == VcMode::dqplb);
  CHECK(ncclx_qp_config(near) == "32768,16,dqplb,1");
  // cross-rail: BDP 345,000 B; window 690,000 B. QPs grow first: doubling
  // would give 32, but ceil(690,000 / 32,768) = 22 already covers it.
  DqplbSetting cross = dqplb_setting(345000, 3, t);
  CHECK(cross.window_bytes == 690000);
  CHECK(ncclx_qp_config(cross) == "32768,22,dqplb,1");
  CHECK(cross.outstanding_bytes() == 720896);
  // same-pod: BDP 342,500 B; window 685,000 B; ceil(685,000 / 32,768) = 21.
  DqplbSetting far = dqplb_setting(342500, 3, t);
  CHECK(far.window_bytes == 685000);
  CHECK(far.qps == 21);
  CHECK(far.max_msgs == 1);
  CHECK(far.outstanding_bytes() == 688128);
  CHECK(far.mode == VcMode::dqplb);  // dqplb on every class by default
  CHECK(ncclx_qp_config(far) == "32768,21,dqplb,1");
}

TEST_CASE("profile/dqplb: a distant class grows QPs, messages and segment in turn") {
  TransportSpec t = defaults();
  // BDP 100 MB (2 ms at 400 Gb/s): window 200,000,000 B. In turn, doubling:
  //   qps 32 (1 MiB), msgs 2 (2 MiB), segment 64 KiB (4 MiB), qps 64 (8 MiB),
  //   msgs 4 (16 MiB), segment 128 KiB (32 MiB), qps 128 (64 MiB, the cap),
  //   msgs 8 (128 MiB), then the segment only as far as needed:
  //   ceil(200,000,000 / (128 x 8)) = 195,313 B, in 4 KiB steps 196,608 B.
  DqplbSetting s = dqplb_setting(100'000'000, 5, t);
  CHECK(s.qps == 128);
  CHECK(s.max_msgs == 8);
  CHECK(s.segment_bytes == 196608);
  CHECK(s.outstanding_bytes() == 201326592);
  CHECK(s.covers_window());
  // Past every ceiling (128 QPs x 128 messages x 512 KiB = 8 GiB) the
  // setting stops at the ceilings and says it falls short.
  DqplbSetting huge = dqplb_setting(10'000'000'000, 5, t);
  CHECK(ncclx_qp_config(huge) == "524288,128,dqplb,128");
  CHECK_FALSE(huge.covers_window());
}

TEST_CASE("profile/dqplb: every setting stays inside its bounds and NCCLX's limits, and grows with the BDP") {
  TransportSpec t = defaults();
  for (int qps : {1, 2, 16, 100, 128}) {
    for (int segment : {4096, 32768, 524288}) {
      for (double headroom : {1.0, 2.0, 16.0}) {
        t.qps = qps;
        t.segment_bytes = segment;
        t.max_segment_bytes = std::max(segment, 524288);
        t.bdp_headroom = headroom;
        DqplbSetting last = dqplb_setting(1, 3, t);
        for (int64_t bdp = 1; bdp < 20'000'000'000; bdp = bdp * 3 + 7) {
          DqplbSetting s = dqplb_setting(bdp, 3, t);
          INFO("qps " << qps << " segment " << segment << " headroom " << headroom << " BDP " << bdp);
          REQUIRE(s.qps >= qps);
          REQUIRE(s.qps <= t.max_qps);
          REQUIRE(s.qps <= kNcclxMaxQps);
          REQUIRE(s.max_msgs >= 1);
          REQUIRE(s.max_msgs <= t.max_msgs);
          REQUIRE(s.segment_bytes >= segment);
          REQUIRE(s.segment_bytes <= t.max_segment_bytes);
          REQUIRE(double(s.window_bytes) >= headroom * double(bdp) - 1);
          // Covered, unless every ceiling is reached.
          bool capped = s.qps == t.max_qps && s.max_msgs == t.max_msgs && s.segment_bytes == t.max_segment_bytes;
          REQUIRE((s.covers_window() || capped));
          // All three grow with the BDP, never shrink.
          REQUIRE(s.qps >= last.qps);
          REQUIRE(s.max_msgs >= last.max_msgs);
          REQUIRE(s.segment_bytes >= last.segment_bytes);
          last = s;
        }
      }
    }
  }
}

TEST_CASE("profile/dqplb: the mode follows dqplb_max_hops") {
  TransportSpec t = defaults();
  CHECK(dqplb_setting(1000, 5, t).mode == VcMode::dqplb);  // the default: every class
  t.dqplb_max_hops = 3;
  CHECK(dqplb_setting(1000, 3, t).mode == VcMode::dqplb);
  CHECK(dqplb_setting(1000, 5, t).mode == VcMode::spray);
  t.dqplb_max_hops = 0;
  CHECK(dqplb_setting(1000, 1, t).mode == VcMode::spray);
}

}  // namespace
