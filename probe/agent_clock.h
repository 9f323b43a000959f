// Time for the probe agent's run loops, injectable so timeouts, retries,
// rate limits and time budgets are tested without waiting for them.
#pragma once

#include <cstdint>

namespace hpn::probe {

class Clock {
 public:
  virtual ~Clock() = default;
  // For intervals: never jumps (CLOCK_MONOTONIC).
  virtual std::int64_t monotonic_ns() = 0;
  // For the timestamps observations carry (CLOCK_REALTIME, as the schema says).
  virtual std::int64_t realtime_ns() = 0;
};

class SystemClock final : public Clock {
 public:
  std::int64_t monotonic_ns() override;
  std::int64_t realtime_ns() override;
};

inline constexpr std::int64_t kNsPerMs = 1'000'000;
inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;

}  // namespace hpn::probe
