// in_two_halves(): every record in exactly one half, two threads only when
// worth it, and a failure on either thread comes back to the caller.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "probe/two_halves.h"

using hpn::probe::in_two_halves;
using hpn::probe::kWorthAThread;

TEST_CASE("probe/two_halves: every index once, in the half that says it") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, kWorthAThread - 1, kWorthAThread, kWorthAThread + 1}) {
    INFO(n);
    std::vector<int> seen(n, 0);
    std::vector<std::thread::id> thread(2);
    std::vector<int> calls(2, 0);
    in_two_halves(n, [&](int half, std::size_t first, std::size_t last) {
      ++calls[half];
      thread[half] = std::this_thread::get_id();
      for (std::size_t i = first; i < last; ++i) seen[i] += 1 + half;
    });
    const bool split = n >= kWorthAThread;
    CHECK(calls[0] == 1);
    CHECK(calls[1] == (split ? 1 : 0));
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(seen[i] == (split && i >= n / 2 ? 2 : 1));
    }
    CHECK(thread[0] == std::this_thread::get_id());
    if (split) CHECK(thread[1] != std::this_thread::get_id());
  }
}

TEST_CASE("probe/two_halves: a throw on either half reaches the caller after both ended") {
  for (const int failing : {0, 1}) {
    INFO(failing);
    std::atomic<int> ended{0};
    auto run = [&] {
      in_two_halves(kWorthAThread, [&](int half, std::size_t, std::size_t) {
        ++ended;
        if (half == failing) throw std::runtime_error(failing ? "second" : "first");
      });
    };
    CHECK_THROWS_WITH(run(), failing ? "second" : "first");
    CHECK(ended == 2);
  }
}
