#include "probe/authenticated_network.h"

#include <algorithm>

namespace hpn::probe {

std::optional<Datagram> AuthenticatedNetwork::receive(std::int64_t timeout_ns) {
  const std::int64_t deadline = clock_.monotonic_ns() + std::max<std::int64_t>(timeout_ns, 0);
  while (true) {
    auto d = inner_.receive(deadline - clock_.monotonic_ns());
    if (!d) return std::nullopt;
    if (guard_.admit(*d, clock_.monotonic_ns()) == Verdict::accepted) return d;
    if (clock_.monotonic_ns() >= deadline) return std::nullopt;
  }
}

}  // namespace hpn::probe
