// Work over a pod's records on the machine's two cores: the first half
// here, the second on a thread of its own, when there are enough records
// to be worth a thread.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace hpn::probe {

// Below this many records one core does the work sooner than two start.
inline constexpr std::size_t kWorthAThread = 100'000;

// Calls fn(half, first, last) over [0, n): with n >= kWorthAThread as
// fn(0, 0, n/2) here and fn(1, n/2, n) on a second thread, else as
// fn(0, 0, n) alone. Each half must write only its own output (indexed by
// `half`); the caller combines them after. An exception from either half
// is rethrown here, after both have ended (the first half's first).
template <typename Fn>
void in_two_halves(std::size_t n, Fn&& fn) {
  if (n < kWorthAThread) {
    fn(0, std::size_t{0}, n);
    return;
  }
  const std::size_t half = n / 2;
  std::exception_ptr failed_there;
  std::thread other([&] {
    try {
      fn(1, half, n);
    } catch (...) {
      failed_there = std::current_exception();
    }
  });
  std::exception_ptr failed_here;
  try {
    fn(0, std::size_t{0}, half);
  } catch (...) {
    failed_here = std::current_exception();
  }
  other.join();
  if (failed_here) std::rethrow_exception(failed_here);
  if (failed_there) std::rethrow_exception(failed_there);
}

}  // namespace hpn::probe
