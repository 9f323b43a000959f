#include "probe/agent_clock.h"

#include <ctime>

namespace hpn::probe {

namespace {

std::int64_t read(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

}  // namespace

std::int64_t SystemClock::monotonic_ns() { return read(CLOCK_MONOTONIC); }
std::int64_t SystemClock::realtime_ns() { return read(CLOCK_REALTIME); }

}  // namespace hpn::probe
