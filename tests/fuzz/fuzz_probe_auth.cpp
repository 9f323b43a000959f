// The probe agent's gate (probe/probe_auth.h): every datagram a listener or
// sender receives goes through ProbeGuard::admit() before anything reads it.
// Arbitrary bytes from the network must be refused (a forged tag is never
// right by chance), and the same bytes sealed by a peer with the key must be
// accepted once, with the payload given back as it was sealed.
#include <memory>
#include <vector>

#include "probe/payload.h"
#include "probe/probe_auth.h"
#include "fuzz_util.h"

using namespace hpn::probe;

namespace {

std::unique_ptr<ProbeGuard> make_guard(std::uint64_t sender) {
  ProbeKey key;
  for (int i = 0; i < 32; ++i) key.bytes.push_back(static_cast<std::byte>(i * 7 + 1));
  GuardOptions options;
  options.run_id = run_id_of("fuzz-run");
  options.source_rate = 0;  // no rate limit: inputs come faster than any sender
  options.sender_id = sender;
  auto guard = ProbeGuard::create(key, options);
  if (!guard) std::abort();
  return std::move(guard.value());
}

Datagram datagram(std::span<const std::byte> payload) {
  Datagram d;
  d.interface = "etp1a";
  d.local = {"fd48:504e::10", 49152};
  d.remote = {"fd48:504e::110", kDefaultProbePort};
  d.payload.assign(payload.begin(), payload.end());
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto receiver = make_guard(1);
  const auto bytes = hpn::fuzz::bytes_of(data, size);

  // As received from the wire, claiming to come from the peer.
  Datagram forged = datagram(bytes);
  std::swap(forged.local, forged.remote);
  HPN_FUZZ_CHECK(receiver->admit(forged, 1) != Verdict::accepted);

  // The same bytes as a payload a peer sealed (a fresh sender each time, so
  // its sequence 1 is never a replay): accepted exactly when the payload
  // names the current run and has a length a payload can have.
  static std::uint64_t next_sender = 2;
  auto sender = make_guard(next_sender++);
  Datagram sealed = sender->seal(datagram(bytes));
  Datagram received = sealed;
  std::swap(received.local, received.remote);
  if (receiver->admit(received, 2) == Verdict::accepted) {
    HPN_FUZZ_CHECK(received.payload.size() == size &&
                   std::equal(received.payload.begin(), received.payload.end(), bytes.begin()));
  }
  return 0;
}
