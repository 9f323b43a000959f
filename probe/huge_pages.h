// An allocator for the diff's large arrays that live for one pass over a
// pod's records (a million and more entries each): a block of 2 MiB or
// more is mapped on its own, aligned to 2 MiB and advised to the kernel's
// transparent huge pages, so that filling it takes a page fault per 2 MiB
// instead of per 4 KiB. In a one-shot verify every such array is fresh
// from the kernel, and its 4 KiB faults were most of the difference
// between a first diff and a later one in the same process
// (diagnosis_bench: 27,000 faults and 0.2 s of system time on the first,
// 1,500 on the third). Where THP is off the advice is ignored and nothing
// else changes. Smaller blocks, and every block under AddressSanitizer
// (which must see them to check them), come from std::allocator.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace hpn::probe {

#if defined(__SANITIZE_ADDRESS__)
#define HPN_HUGE_PAGES_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HPN_HUGE_PAGES_OFF 1
#endif
#endif

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (!huge(n)) return std::allocator<T>().allocate(n);
    const std::size_t size = rounded(n);
    // One huge page more than needed, to cut an aligned block out of.
    void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
    if (aligned > start) munmap(mapped, aligned - start);
    if (const std::uintptr_t end = start + size + kHugePage; end > aligned + size) {
      munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    }
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<T*>(aligned);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (!huge(n)) return std::allocator<T>().deallocate(p, n);
    munmap(p, rounded(n));
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }

 private:
  static bool huge([[maybe_unused]] std::size_t n) {
#ifdef HPN_HUGE_PAGES_OFF
    return false;
#else
    return n >= kHugePage / sizeof(T);
#endif
  }
  static std::size_t rounded(std::size_t n) { return (n * sizeof(T) + kHugePage - 1) & ~(kHugePage - 1); }
};

// A vector of a pod's records' worth of entries.
template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace hpn::probe
