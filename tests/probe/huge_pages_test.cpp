// HugeVector: a vector like any other through growth, copies and frees,
// its large blocks mapped aligned to a huge page (but under ASan, which
// must see every block it checks).
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>

#include "probe/huge_pages.h"

using hpn::probe::HugeVector;
using hpn::probe::kHugePage;

TEST_CASE("probe/huge_pages: a HugeVector keeps its values through growth past a huge page, copy and shrink") {
  HugeVector<std::uint64_t> v;
  const std::size_t n = 3 * kHugePage / sizeof(std::uint64_t) + 12345;  // three huge pages and some
  for (std::size_t i = 0; i < n; ++i) v.push_back(i * 7);
  REQUIRE(v.size() == n);
  for (std::size_t i = 0; i < n; i += 4099) REQUIRE(v[i] == i * 7);
  CHECK(v.back() == (n - 1) * 7);
#ifndef HPN_HUGE_PAGES_OFF
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePage == 0);
#endif
  HugeVector<std::uint64_t> copy = v;
  CHECK(copy == v);
  v.resize(10);
  v.shrink_to_fit();
  CHECK(v.size() == 10);
  CHECK(v[9] == 63);
  CHECK(std::accumulate(copy.begin(), copy.end(), std::uint64_t{0}) == 7 * (n - 1) * n / 2);
}

TEST_CASE("probe/huge_pages: a HugeVector under a huge page, and an empty one, are ordinary vectors") {
  HugeVector<int> v(100, 5);
  CHECK(v.size() == 100);
  CHECK(v[99] == 5);
  HugeVector<int> empty;
  CHECK(empty.empty());
}
