// The probe agent's UDP payloads (probe/payload.h), what a listener and a
// sender read off the wire, and the forward trace a reply carries as the
// sender reads it (probe/agent_trace.h); trains and their reports likewise. A payload that decodes encodes back
// to the same bytes (the reserved byte aside: ignored on receive).
#include <vector>

#include "probe/agent_trace.h"
#include "probe/payload.h"
#include "fuzz_util.h"

using namespace hpn::probe;

namespace {

bool same_but_reserved(std::span<const std::byte> a, std::span<const std::byte> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i != 7 && a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = hpn::fuzz::bytes_of(data, size);
  const PayloadClass cls = classify_payload(bytes);
  if (auto probe = decode_probe(bytes)) {
    HPN_FUZZ_CHECK(cls == PayloadClass::probe);
    HPN_FUZZ_CHECK(same_but_reserved(encode_probe(probe.value()), bytes));
  }
  if (auto reply = decode_reply(bytes)) {
    HPN_FUZZ_CHECK(cls == PayloadClass::reply);
    auto encoded = encode_reply(reply.value());
    HPN_FUZZ_CHECK(encoded.ok() && same_but_reserved(encoded.value(), bytes));
    (void)observed_hops(reply->forward_trace, 123);
  }
  if (auto train = decode_train(bytes)) {
    HPN_FUZZ_CHECK(cls == PayloadClass::train);
    HPN_FUZZ_CHECK(train->seq <= train->length && train->length <= kMaxTrainLength);
    auto encoded = encode_train(train.value());
    HPN_FUZZ_CHECK(encoded.ok() && same_but_reserved(encoded.value(), bytes));
  }
  if (auto report = decode_train_report(bytes)) {
    HPN_FUZZ_CHECK(cls == PayloadClass::train_report);
    auto encoded = encode_train_report(report.value());
    HPN_FUZZ_CHECK(encoded.ok() && same_but_reserved(encoded.value(), bytes));
  }
  return 0;
}
