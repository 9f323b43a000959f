#include "probe/agent_listener.h"

#include <catch2/catch.hpp>

#include <random>

#include "fake_network.h"

using namespace hpn::probe;
using hpn::probe::testing::FakeClock;
using hpn::probe::testing::FakeNetwork;
using hpn::probe::testing::arriving;
using hpn::probe::testing::b1_port_names;
using hpn::probe::testing::filled_trace;
using hpn::probe::testing::probe_header;

namespace {

}  // namespace

TEST_CASE("agent/listener: a probe is answered out of its arrival port with its trace and port name",
          "[agent][listener]") {
  ProbeResponder responder(b1_port_names());
  const auto in = arriving(encode_probe(probe_header()));
  auto reply = responder.answer(in, 6'000);
  REQUIRE(reply);
  CHECK(reply->interface == "b1");
  CHECK(reply->local == in.local);    // from the address and port probed: the five-tuple mirrored
  CHECK(reply->remote == in.remote);  // to the sender's source port
  auto decoded = decode_reply(reply->payload);
  REQUIRE(decoded);
  CHECK(decoded->probe == probe_header());
  CHECK(decoded->port == "etp1a");
  CHECK(decoded->forward_trace == in.hop_by_hop);
  CHECK(decoded->probe_received_ns == 5'000);
  CHECK(decoded->reply_sent_ns == 6'000);
  CHECK(responder.counts() == ListenerCounts{.received = 1});  // `answered` is the loop's, once sent
}

TEST_CASE("agent/listener: anything but a well-formed probe with a trace is counted and ignored",
          "[agent][listener]") {
  ProbeResponder responder(b1_port_names());
  const auto probe = encode_probe(probe_header());
  ListenerCounts want;
  auto expect_ignored = [&](const Datagram& d) {
    ++want.received;
    CHECK_FALSE(responder.answer(d, 0));
    CHECK(responder.counts() == want);
  };
  ++want.foreign;
  expect_ignored(arriving({}));
  ++want.foreign;
  expect_ignored(arriving(to_bytes({'G', 'E', 'T', ' ', '/'})));
  auto other_version = probe;
  other_version[4] = std::byte{7};
  ++want.unknown_version;
  expect_ignored(arriving(other_version));
  ++want.not_a_probe;
  ProbeReply r;
  r.probe = probe_header();
  r.port = "x";
  expect_ignored(arriving(encode_reply(r).value()));  // a reflected reply must not loop
  for (std::size_t n = 6; n < probe.size(); ++n) {
    ++want.malformed;
    expect_ignored(arriving(std::vector<std::byte>(probe.begin(), probe.begin() + static_cast<long>(n))));
  }
  auto longer = probe;
  longer.push_back(std::byte{0});
  ++want.malformed;
  expect_ignored(arriving(longer));
  ++want.without_trace;
  expect_ignored(arriving(probe, {}));
  ++want.without_trace;
  expect_ignored(arriving(probe, to_bytes({17, 0, 1, 4, 0, 0, 0, 0})));  // a Hop-by-Hop header of padding only
  ++want.without_trace;
  expect_ignored(arriving(probe, to_bytes({17, 0, 0x31, 9, 0, 0, 0, 0})));  // an IOAM option cut short
}

TEST_CASE("agent/listener: random datagrams are each counted once and never crash it", "[agent][listener]") {
  ProbeResponder responder(b1_port_names());
  std::mt19937 random(7);
  const auto probe = encode_probe(probe_header());
  const auto trace = filled_trace({{7, 11, 12}, {8, 21, 22}});
  std::uint64_t answered = 0;
  for (int i = 0; i < 20000; ++i) {
    auto payload = probe;
    auto hbh = trace;
    auto& target = (i % 2 == 0) ? payload : hbh;
    for (int f = 0; f < 3; ++f) target[random() % target.size()] = std::byte(random() & 0xFF);
    if (i % 7 == 0) target.resize(random() % (target.size() + 1));
    if (responder.answer(arriving(payload, hbh), 0)) ++answered;
  }
  const auto& c = responder.counts();
  CHECK(c.received == 20000);
  CHECK(c.received == answered + c.foreign + c.unknown_version + c.not_a_probe + c.malformed + c.without_trace +
                          c.train_datagrams);
  CHECK(answered > 0);
  CHECK(c.malformed + c.without_trace > 0);
}

TEST_CASE("agent/listener: the loop answers until --duration, counting send errors", "[agent][listener]") {
  FakeClock clock;
  FakeNetwork network(clock);
  ListenerOptions o;
  o.interfaces = {"b1", "b2"};
  o.port_names = b1_port_names();
  o.duration_ns = 3 * kNsPerSecond;
  REQUIRE(open_listener(o, network));
  CHECK(network.opened == std::set<std::pair<std::string, std::uint16_t>>{{"b1", 17768}, {"b2", 17768}});
  CHECK(open_listener(o, network).error().message == "already open");

  network.deliver(1 * kNsPerSecond, arriving(encode_probe(probe_header(1))));
  auto on_b2 = arriving(encode_probe(probe_header(2)));
  on_b2.interface = "b2";
  network.deliver(2 * kNsPerSecond, on_b2);
  network.deliver(2 * kNsPerSecond + 1, arriving(to_bytes({1, 2, 3})));
  network.deliver(4 * kNsPerSecond, arriving(encode_probe(probe_header(3))));  // after the end
  network.fail_send = [](const Datagram& d) { return d.interface == "b2"; };

  const auto counts = run_listener(o, network, clock, [] { return false; });
  CHECK(counts == ListenerCounts{.received = 3, .answered = 1, .send_errors = 1, .foreign = 1});
  REQUIRE(network.sent.size() == 1);
  CHECK(decode_reply(network.sent[0].payload)->probe.probe_id == 1);
  CHECK(clock.mono == o.duration_ns);
  CHECK(network.queued() == 1);
}

TEST_CASE("agent/listener: the loop ends when asked to stop", "[agent][listener]") {
  FakeClock clock;
  FakeNetwork network(clock);
  ListenerOptions o;
  o.interfaces = {"b1"};
  REQUIRE(open_listener(o, network));
  int polls = 0;
  run_listener(o, network, clock, [&] { return ++polls > 3; });
  CHECK(clock.mono == 3 * 200 * kNsPerMs);  // no --duration: waits are capped so the stop flag is seen
  ListenerOptions none;
  CHECK(open_listener(none, network).error().message == "no interface to listen on");
}
