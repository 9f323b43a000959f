// The INT-MD v2.1 sink decoder and transit (probe/int_md.h) on arbitrary
// bytes: the L4 payload (shim first) and a whole UDP datagram. A stack that
// decodes, pushed by a transit, decodes again with one hop more.
#include <vector>

#include "probe/int_md.h"
#include "fuzz_util.h"

using namespace hpn::probe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = hpn::fuzz::bytes_of(data, size);
  const auto stack = decode_int_md(bytes);
  if (stack) HPN_FUZZ_CHECK(stack->payload_offset <= size);
  (void)decode_int_udp(bytes);
  if (size >= 4) {
    // The datagram's own destination port, so the port check is passed too.
    const auto port = static_cast<std::uint16_t>((data[2] << 8) | data[3]);
    (void)decode_int_udp(bytes, port);
  }

  IntHopRecord hop;
  hop.node_id = 0x22u;
  hop.l1_ingress_port = std::uint16_t{3};
  hop.l1_egress_port = std::uint16_t{4};
  hop.queue_id = std::uint8_t{1};
  hop.queue_occupancy = 0x20u;
  std::vector<std::byte> packet(bytes.begin(), bytes.end());
  auto out = int_md_transit(packet, hop, 64);
  // Hop ML 0 (an empty bitmap) is a valid header whose hops leave no trace,
  // so only a stack with metadata can be counted.
  if (stack && stack->header.hop_ml > 0 && out && *out == IntTransitOutcome::pushed) {
    HPN_FUZZ_CHECK(packet.size() == size + stack->header.hop_ml * 4u);
    auto again = decode_int_md(packet);
    HPN_FUZZ_CHECK(again.ok());
    HPN_FUZZ_CHECK(again->hops.size() == stack->hops.size() + 1);
  }
  return 0;
}
