// The IOAM trace decoder and transit writer (probe/ioam_trace.h) on arbitrary
// bytes, read both as a Hop-by-Hop header and as an IPv6 packet: anyone on
// the wire can send these. A transit that refuses a header must leave it as
// it was (the header documents this; Linux drops such packets).
#include <vector>

#include "probe/agent_trace.h"
#include "probe/ioam_trace.h"
#include "fuzz_util.h"

using namespace hpn::probe;

namespace {

// The lab's IOAM namespace and a node writing the fields the wiring check
// reads, plus a timestamp so records of more than two words are written too.
IoamNode transit_node(std::uint16_t ns) {
  IoamNode node;
  node.namespace_id = ns;
  node.data.node_id = 0x123456u;
  node.data.ingress_if = std::uint16_t{7};
  node.data.egress_if = std::uint16_t{9};
  node.data.timestamp_secs = 1u;
  return node;
}

void check_transit(std::span<const std::byte> input, bool ipv6, std::uint16_t ns) {
  std::vector<std::byte> packet(input.begin(), input.end());
  auto out = ipv6 ? ioam_transit_ipv6(packet, transit_node(ns)) : ioam_transit_hbh(packet, transit_node(ns));
  if (!out) {
    HPN_FUZZ_CHECK(std::equal(packet.begin(), packet.end(), input.begin(), input.end()));
    return;
  }
  const bool decoded = ipv6 ? decode_ioam_ipv6(input).ok() : decode_ioam_hbh(input).ok();
  if (decoded && *out == IoamTransitOutcome::written) {
    // Into a trace the sink could read, a transit writes a record the sink
    // can read too. (A transit, like Linux's, checks only what it needs to
    // write, so it may fill a trace the sink refuses, e.g. one whose filled
    // part is not a whole number of records.)
    auto again = ipv6 ? decode_ioam_ipv6(packet) : decode_ioam_hbh(packet);
    HPN_FUZZ_CHECK(again.ok());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = hpn::fuzz::bytes_of(data, size);
  const auto hbh = decode_ioam_hbh(bytes);
  if (hbh) {
    for (const auto& trace : hbh.value()) {
      HPN_FUZZ_CHECK(trace.offset < size);
    }
  }
  (void)decode_ioam_ipv6(bytes);
  // What the probe agent does with a received header (namespace of the lab
  // seeds, 123, and of the first trace found when there is one).
  std::uint16_t ns = 123;
  if (hbh && !hbh->empty()) ns = hbh->front().namespace_id;
  (void)observed_hops(bytes, ns);
  check_transit(bytes, false, ns);
  check_transit(bytes, true, ns);
  return 0;
}
