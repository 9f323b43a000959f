// The probe agent's authentication (probe/probe_auth.h): the HMAC primitive
// against RFC 4231's vectors, then the guard's verdicts on sealed, tampered,
// foreign-run, replayed, truncated and over-rate datagrams, and its bounds.
#include "probe/probe_auth.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>

#include "fake_network.h"
#include "probe/authenticated_network.h"
#include "probe/payload.h"

using namespace hpn::probe;
using hpn::probe::testing::FakeClock;
using hpn::probe::testing::FakeNetwork;

namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out;
  for (unsigned char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

std::string hex(std::span<const std::byte> b) {
  std::string s;
  for (std::byte x : b) s += fmt::format("{:02x}", std::to_integer<unsigned>(x));
  return s;
}

ProbeKey key_of(int fill) { return ProbeKey{std::vector<std::byte>(32, static_cast<std::byte>(fill))}; }

std::unique_ptr<ProbeGuard> guard(std::uint64_t run, const ProbeKey& key = key_of(7), double rate = 0,
                                  double burst = 0) {
  GuardOptions o;
  o.run_id = run;
  o.source_rate = rate;
  o.source_burst = burst;
  auto g = ProbeGuard::create(key, o);
  REQUIRE(g);
  return std::move(g.value());
}

// A probe as the sender hands it to the network: from host a to host b.
Datagram outgoing(std::uint64_t run, std::uint64_t id = 3) {
  ProbeHeader h;
  h.run_id = run;
  h.probe_id = id;
  h.attempt = 1;
  h.sent_ns = 123456789;
  Datagram d;
  d.interface = "a0";
  d.local = {"2001:db8:1::1", 49152};
  d.remote = {"2001:db8:2::2", kDefaultProbePort};
  d.payload = encode_probe(h);
  return d;
}

// The same datagram as the receiver's socket reports it: ends swapped.
Datagram arrived(Datagram d) {
  std::swap(d.local, d.remote);
  d.interface = "b0";
  return d;
}

constexpr std::uint64_t kRun = 0x1122334455667788ull;

}  // namespace

TEST_CASE("agent/auth: HMAC-SHA256 gives RFC 4231's test vectors", "[agent][auth]") {
  // RFC 4231 §4.2, test case 1.
  CHECK(hex(hmac_sha256(std::vector<std::byte>(20, std::byte{0x0b}), bytes_of("Hi There"))) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // §4.3, test case 2: a key shorter than the output.
  CHECK(hex(hmac_sha256(bytes_of("Jefe"), bytes_of("what do ya want for nothing?"))) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // §4.7, test case 6: a key longer than the block, hashed first.
  CHECK(hex(hmac_sha256(std::vector<std::byte>(131, std::byte{0xaa}),
                        bytes_of("Test Using Larger Than Block-Size Key - Hash Key First"))) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("agent/auth: a sealed probe is accepted once and given back as it was sent", "[agent][auth]") {
  auto sender = guard(kRun);
  auto listener = guard(kRun);
  const Datagram plain = outgoing(kRun);
  Datagram sealed = sender->seal(plain);
  CHECK(sealed.payload.size() == plain.payload.size() + kAuthTrailerSize);
  Datagram in = arrived(sealed);
  CHECK(listener->admit(in, 0) == Verdict::accepted);
  CHECK(in.payload == plain.payload);
  CHECK(decode_probe(in.payload));
  // Each datagram a sender seals has its own sequence: a second probe is fresh.
  Datagram next = arrived(sender->seal(plain));
  CHECK(listener->admit(next, 0) == Verdict::accepted);
  CHECK(listener->counts().accepted == 2);
  CHECK(listener->counts().rejected() == 0);
}

TEST_CASE("agent/auth: changing any byte of a probe, its trailer or its five-tuple breaks the seal",
          "[agent][auth]") {
  auto sender = guard(kRun);
  const Datagram sealed = arrived(sender->seal(outgoing(kRun)));
  // Every byte: magic, version, kind, attempt, reserved, run id, probe id,
  // send time, sender id, sequence, tag.
  for (std::size_t i = 0; i < sealed.payload.size(); ++i) {
    auto listener = guard(kRun);
    Datagram d = sealed;
    d.payload[i] ^= std::byte{0x01};
    INFO("byte " << i);
    CHECK(listener->admit(d, 0) == Verdict::bad_hmac);
  }
  struct Change {
    const char* what;
    std::function<void(Datagram&)> apply;
  };
  for (const Change& c : {Change{"source address", [](Datagram& d) { d.remote.address = "2001:db8:1::9"; }},
                          Change{"source port", [](Datagram& d) { d.remote.port = 49153; }},
                          Change{"destination address", [](Datagram& d) { d.local.address = "2001:db8:2::3"; }},
                          Change{"destination port", [](Datagram& d) { d.local.port = 17769; }}}) {
    auto listener = guard(kRun);
    Datagram d = sealed;
    c.apply(d);
    INFO(c.what);
    CHECK(listener->admit(d, 0) == Verdict::bad_hmac);
  }
  // And the untouched one still checks: the failures above are the changes'.
  auto listener = guard(kRun);
  Datagram d = sealed;
  CHECK(listener->admit(d, 0) == Verdict::accepted);
}

TEST_CASE("agent/auth: another key's seal, another run, a replay and a short datagram are each refused",
          "[agent][auth]") {
  auto listener = guard(kRun);
  SECTION("another key") {
    auto stranger = guard(kRun, key_of(8));
    Datagram d = arrived(stranger->seal(outgoing(kRun)));
    CHECK(listener->admit(d, 0) == Verdict::bad_hmac);
    CHECK(listener->counts().bad_hmac == 1);
  }
  SECTION("another run, same key") {
    auto other = guard(kRun + 1);
    Datagram d = arrived(other->seal(outgoing(kRun + 1)));
    CHECK(listener->admit(d, 0) == Verdict::wrong_run);
    CHECK(listener->counts().wrong_run == 1);
  }
  SECTION("a replay, right away or later, and a sequence too old to judge") {
    auto sender = guard(kRun);
    const Datagram first = arrived(sender->seal(outgoing(kRun)));
    Datagram d = first;
    CHECK(listener->admit(d, 0) == Verdict::accepted);
    d = first;
    CHECK(listener->admit(d, 0) == Verdict::replay);
    // Out of order within the window is fine, but only once.
    std::vector<Datagram> later;
    for (int i = 0; i < 10; ++i) later.push_back(arrived(sender->seal(outgoing(kRun, i))));
    for (int i = 9; i >= 0; --i) {
      d = later[i];
      CHECK(listener->admit(d, 0) == Verdict::accepted);
    }
    d = later[4];
    CHECK(listener->admit(d, 0) == Verdict::replay);
    for (std::size_t i = 0; i < kReplayWindow; ++i) {
      Datagram n = arrived(sender->seal(outgoing(kRun)));
      REQUIRE(listener->admit(n, 0) == Verdict::accepted);
    }
    d = later[9];  // now more than a window behind: refused, never taken twice
    CHECK(listener->admit(d, 0) == Verdict::replay);
    CHECK(listener->counts().replay == 3);
  }
  SECTION("too short, empty, too long") {
    auto sender = guard(kRun);
    Datagram d = arrived(sender->seal(outgoing(kRun)));
    d.payload.resize(kProbeHeaderSize + kAuthTrailerSize - 1);
    CHECK(listener->admit(d, 0) == Verdict::bad_length);
    d.payload.clear();
    CHECK(listener->admit(d, 0) == Verdict::bad_length);
    d.payload.assign(kMaxPayloadSize + kAuthTrailerSize + 1, std::byte{0});
    CHECK(listener->admit(d, 0) == Verdict::bad_length);
    CHECK(listener->counts().bad_length == 3);
  }
  CHECK(listener->counts().accepted + listener->counts().rejected() > 0);
}

TEST_CASE("agent/auth: a source past its rate is refused until its bucket refills, forgeries never drain it",
          "[agent][auth]") {
  auto sender = guard(kRun);
  auto listener = guard(kRun, key_of(7), 100, 10);  // 100/s, bursts of 10
  auto next = [&] { return arrived(sender->seal(outgoing(kRun))); };
  for (int i = 0; i < 10; ++i) {
    Datagram d = next();
    REQUIRE(listener->admit(d, 0) == Verdict::accepted);
  }
  Datagram d = next();
  CHECK(listener->admit(d, 0) == Verdict::rate_limited);
  d = next();
  CHECK(listener->admit(d, 50 * kNsPerMs) == Verdict::accepted);  // 5 tokens back after 50 ms
  // A flood of forgeries claiming the same source costs that source nothing.
  auto forger = guard(kRun, key_of(9));
  for (int i = 0; i < 1000; ++i) {
    Datagram f = arrived(forger->seal(outgoing(kRun)));
    REQUIRE(listener->admit(f, 50 * kNsPerMs) == Verdict::bad_hmac);
  }
  for (int i = 0; i < 4; ++i) {
    d = next();
    CHECK(listener->admit(d, 50 * kNsPerMs) == Verdict::accepted);
  }
  d = next();
  CHECK(listener->admit(d, 50 * kNsPerMs) == Verdict::rate_limited);
  CHECK(listener->counts().rate_limited == 2);
  CHECK(listener->counts().bad_hmac == 1000);
  // Another source has its own bucket.
  Datagram from_b = outgoing(kRun);
  from_b.local.address = "2001:db8:1::5";
  Datagram in = arrived(sender->seal(from_b));
  CHECK(listener->admit(in, 50 * kNsPerMs) == Verdict::accepted);
}

TEST_CASE("agent/auth: replay state stays within its bound, forgetting the least recently heard sender",
          "[agent][auth]") {
  auto listener = guard(kRun);
  const Datagram plain = outgoing(kRun);
  const std::size_t senders = kMaxSenders + 10;
  std::vector<Datagram> firsts;
  for (std::size_t s = 1; s <= senders; ++s) {
    GuardOptions o;
    o.run_id = kRun;
    o.source_rate = 0;
    o.sender_id = s;
    auto g = ProbeGuard::create(key_of(7), o);
    REQUIRE(g);
    Datagram d = arrived(g.value()->seal(plain));
    if (s <= 2 || s == senders) firsts.push_back(d);
    REQUIRE(listener->admit(d, 0) == Verdict::accepted);
    REQUIRE(listener->senders_tracked() <= kMaxSenders);
  }
  CHECK(listener->senders_tracked() == kMaxSenders);
  CHECK(listener->counts().senders_forgotten == 10);
  Datagram recent = firsts.back();
  CHECK(listener->admit(recent, 0) == Verdict::replay);  // still remembered
}

TEST_CASE("agent/auth: the authenticated network seals what it sends and hands up only what checks",
          "[agent][auth]") {
  FakeClock clock;
  FakeNetwork wire(clock);
  auto mine = guard(kRun);
  auto theirs = guard(kRun);
  AuthenticatedNetwork network(wire, *mine, clock);
  REQUIRE(network.open("b0", {"::", kDefaultProbePort}));
  // Garbage, a forgery and a replay arrive before the real probe.
  Datagram garbage = arrived(outgoing(kRun));
  garbage.payload = bytes_of("not a probe at all, but long enough to be looked at twice, surely");
  wire.deliver(1, garbage);
  auto forger = guard(kRun, key_of(1));
  wire.deliver(2, arrived(forger->seal(outgoing(kRun))));
  const Datagram real = arrived(theirs->seal(outgoing(kRun, 42)));
  wire.deliver(3, real);
  wire.deliver(4, real);
  auto got = network.receive(10 * kNsPerMs);
  REQUIRE(got);
  auto probe = decode_probe(got->payload);
  REQUIRE(probe);
  CHECK(probe->probe_id == 42);
  CHECK_FALSE(network.receive(10 * kNsPerMs));  // the replay is not handed up; the wait still ends
  CHECK(mine->counts().bad_hmac == 2);
  CHECK(mine->counts().replay == 1);
  CHECK(mine->counts().accepted == 1);
  // What goes out is sealed: the other end accepts it.
  Datagram reply = outgoing(kRun);
  std::swap(reply.local, reply.remote);
  reply.interface = "b0";
  reply.local.port = kDefaultProbePort;
  REQUIRE(network.send(reply));
  REQUIRE(wire.sent.size() == 1);
  Datagram back = arrived(wire.sent.front());
  CHECK(theirs->admit(back, 0) == Verdict::accepted);
}
