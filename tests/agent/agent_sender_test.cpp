#include "probe/agent_sender.h"

#include <catch2/catch.hpp>

#include "fake_network.h"
#include "probe/agent_listener.h"

using namespace hpn::probe;
using hpn::probe::ProbeDirection;
using hpn::probe::testing::FakeClock;
using hpn::probe::testing::FakeNetwork;
using hpn::probe::testing::filled_trace;

namespace {

constexpr std::int64_t kLatency = 2 * kNsPerMs;

SenderOptions options() {
  SenderOptions o;
  o.run = "run-7";
  o.device = "host-a";
  o.ports = {{"a0", "etp1a", "2001:db8:1::1"}};
  o.destinations = {{"host-b", "2001:db8:2::2"}};
  o.probes = 3;
  o.source_ports = {49152, 49153};
  o.rate = 100;
  o.timeout_ns = 100 * kNsPerMs;
  o.retries = 2;
  REQUIRE(parse_port_names("a0=etp1a", o.port_names));
  return o;
}

// host-a a0 -- (11) router 7 (12) -- b1 host-b: a probe gets router 7's
// record on the way out, the reply the reverse one on the way back, and a
// real ProbeResponder answers in between. `drop(probe id, attempt)` loses a
// probe on the wire.
struct OneRouterPath {
  FakeClock clock;
  FakeNetwork network{clock};
  ProbeResponder listener;
  std::function<bool(std::uint64_t, int)> drop = [](std::uint64_t, int) { return false; };
  std::int64_t reply_delay = kLatency;

  OneRouterPath() : listener(make_names()) {
    network.on_send = [this](const Datagram& sent) {
      const auto probe = decode_probe(sent.payload).value();
      if (drop(probe.probe_id, probe.attempt)) return;
      Datagram at_b;
      at_b.interface = "b1";
      at_b.local = sent.remote;
      at_b.remote = sent.local;
      at_b.payload = sent.payload;
      at_b.hop_by_hop = filled_trace({{7, 11, 12}});
      at_b.realtime_ns = clock.realtime_ns() + kLatency / 2;
      auto reply = listener.answer(at_b, at_b.realtime_ns);
      REQUIRE(reply);
      Datagram at_a;
      at_a.interface = sent.interface;
      at_a.local = reply->remote;
      at_a.remote = reply->local;
      at_a.payload = reply->payload;
      at_a.hop_by_hop = filled_trace({{7, 12, 11}});
      network.deliver(clock.mono + reply_delay, at_a);
    };
  }
  static PortNames make_names() {
    PortNames n;
    (void)parse_port_names("b1=etp5b", n);
    return n;
  }
  SenderResult run(const SenderOptions& o, std::function<bool()> stop = [] { return false; }) {
    REQUIRE(open_sender(o, network));
    return run_sender(o, network, clock, stop);
  }
};

std::vector<ObservedHop> hop(int node, int in, int out, int hop_limit = 63) {
  ObservedHop h;
  h.node_id = node;
  h.ingress_if = in;
  h.egress_if = out;
  h.hop_limit = hop_limit;
  return {h};
}

bool same_hops(std::span<const ObservedHop> a, std::span<const ObservedHop> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].node_id != b[i].node_id || a[i].ingress_if != b[i].ingress_if || a[i].egress_if != b[i].egress_if ||
        a[i].hop_limit != b[i].hop_limit) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("agent/sender: each answered probe gives a forward and a reverse observation", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 3, .sent = 3, .answered = 3});
  CHECK_FALSE(result.interrupted);
  REQUIRE(result.observations.size() == 6);
  for (std::uint64_t id = 0; id < 3; ++id) {
    const Observation& f = result.observations[2 * id];
    const Observation& r = result.observations[2 * id + 1];
    INFO("probe " << id);
    CHECK(f.run == "run-7");
    CHECK(f.probe == id);
    CHECK(f.direction == ProbeDirection::forward);
    CHECK(f.src_device == "host-a");
    CHECK(f.src_port == "etp1a");
    CHECK(f.src_address == "2001:db8:1::1");
    CHECK(f.src_udp_port == 49152 + static_cast<int>(id % 2));  // steps through --source-ports
    CHECK(f.dst_device == "host-b");
    CHECK(f.dst_address == "2001:db8:2::2");
    CHECK(f.dst_udp_port == 17768);
    CHECK(f.received);
    CHECK(f.rx_port == "etp5b");  // the listener's blueprint name for b1
    CHECK(same_hops(f.hops, hop(7, 11, 12)));
    CHECK(f.sent_ns == path.clock.realtime_base + path.network.sent_at[id]);
    CHECK(f.received_ns == f.sent_ns + kLatency / 2);

    CHECK(r.direction == ProbeDirection::reverse);
    CHECK(r.probe == id);
    CHECK(r.src_device == "host-b");
    CHECK(r.src_port == "etp5b");  // the reply left by the port the probe came in on
    CHECK(r.src_address == "2001:db8:2::2");
    CHECK(r.src_udp_port == 17768);
    CHECK(r.dst_device == "host-a");
    CHECK(r.dst_address == "2001:db8:1::1");
    CHECK(r.dst_udp_port == f.src_udp_port);
    CHECK(r.rx_port == "etp1a");  // a0, mapped
    CHECK(same_hops(r.hops, hop(7, 12, 11)));
    CHECK(r.sent_ns == f.received_ns);
    CHECK(r.received_ns == f.sent_ns + kLatency);
  }
}

TEST_CASE("agent/sender: probes round-robin over ports and destinations at the paced rate", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.ports.push_back({"a1", "etp1b", "2001:db8:1::1"});
  o.destinations.push_back({"host-c", "2001:db8:3::3"});
  o.probes = 2;
  o.rate = 50;  // 20 ms apart
  const auto result = path.run(o);
  CHECK(result.counts.answered == 8);
  REQUIRE(path.network.sent.size() == 8);
  const std::vector<std::pair<std::string, std::string>> order = {
      {"a0", "2001:db8:2::2"}, {"a0", "2001:db8:3::3"}, {"a1", "2001:db8:2::2"}, {"a1", "2001:db8:3::3"}};
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("datagram " << i);
    CHECK(path.network.sent[i].interface == order[i % 4].first);
    CHECK(path.network.sent[i].remote.address == order[i % 4].second);
    CHECK(path.network.sent[i].local.port == 49152 + i / 4);
    if (i > 0) CHECK(path.network.sent_at[i] - path.network.sent_at[i - 1] >= 20 * kNsPerMs);
  }
  // Only the source ports used are opened, per port.
  CHECK(path.network.opened.size() == 4);
}

TEST_CASE("agent/sender: a probe never answered is retried, then lost, within the budget", "[agent][sender]") {
  OneRouterPath path;
  path.drop = [](std::uint64_t, int) { return true; };
  auto o = options();
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 3, .sent = 9, .retries = 6, .lost = 3});
  REQUIRE(result.observations.size() == 3);
  for (std::uint64_t id = 0; id < 3; ++id) {
    const Observation& lost = result.observations[id];
    CHECK(lost.probe == id);
    CHECK(lost.direction == ProbeDirection::forward);
    CHECK_FALSE(lost.received);
    CHECK(lost.rx_port.empty());
    CHECK(lost.hops.empty());
    CHECK(lost.received_ns == 0);
    CHECK(lost.sent_ns == path.clock.realtime_base + path.network.sent_at[id]);  // the first attempt
  }
  // Each attempt waited its full timeout, and the run ended by itself.
  CHECK(path.clock.mono >= 3 * o.timeout_ns);
  CHECK(path.clock.mono <= sender_budget_ns(o));
  const auto attempts = decode_probe(path.network.sent.back().payload).value();
  CHECK(attempts.attempt == 2);
}

TEST_CASE("agent/sender: a retry's reply is matched to the attempt it answers", "[agent][sender]") {
  OneRouterPath path;
  path.drop = [](std::uint64_t id, int attempt) { return id == 1 && attempt == 0; };
  auto o = options();
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 3, .sent = 4, .retries = 1, .answered = 3});
  REQUIRE(result.observations.size() == 6);
  const Observation& f = result.observations[2];
  CHECK(f.probe == 1);
  CHECK(f.received);
  CHECK(f.sent_ns == path.clock.realtime_base + path.network.sent_at[3]);  // the retry, sent last
}

TEST_CASE("agent/sender: a reply after the probe was given up still counts, as late", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.probes = 2;
  o.retries = 0;
  o.rate = 1000;
  // Probe 0's reply comes after its 100 ms timeout, while probe 1 still waits.
  path.drop = [](std::uint64_t id, int) { return id == 1; };
  path.reply_delay = o.timeout_ns + kNsPerMs / 2;
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 2, .sent = 2, .answered = 1, .late = 1, .lost = 1});
  REQUIRE(result.observations.size() == 3);
  CHECK(result.observations[0].received);
  CHECK(result.observations[1].direction == ProbeDirection::reverse);
  CHECK_FALSE(result.observations[2].received);
}

TEST_CASE("agent/sender: datagrams that are not this run's replies are counted and ignored", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.probes = 1;
  o.retries = 0;
  // Replies arrive before the real one: from others, or forged.
  const auto real_run = run_id_of("run-7");
  auto reply_for = [&](std::uint64_t run, std::uint64_t id, std::uint8_t attempt) {
    ProbeReply r;
    r.probe.run_id = run;
    r.probe.probe_id = id;
    r.probe.attempt = attempt;
    r.port = "etp5b";
    r.forward_trace = filled_trace({{7, 11, 12}});
    Datagram d;
    d.interface = "a0";
    d.local = {"2001:db8:1::1", 49152};
    d.remote = {"2001:db8:2::2", 17768};
    d.payload = encode_reply(r).value();
    d.hop_by_hop = filled_trace({{7, 12, 11}});
    return d;
  };
  const std::int64_t t = kLatency / 4;  // after the probe is sent, before its reply
  path.network.deliver(t, reply_for(run_id_of("someone else"), 0, 0));
  path.network.deliver(t, reply_for(real_run, 99, 0));  // no such probe
  path.network.deliver(t, reply_for(real_run, 0, 1));   // an attempt never made
  auto spoofed = reply_for(real_run, 0, 0);
  spoofed.remote.address = "2001:db8:6::6";  // not the host probed
  path.network.deliver(t, spoofed);
  auto wrong_socket = reply_for(real_run, 0, 0);
  wrong_socket.local.port = 49153;
  path.network.deliver(t, wrong_socket);
  auto garbage = reply_for(real_run, 0, 0);
  garbage.payload.resize(40);
  path.network.deliver(t, garbage);
  auto probe_not_reply = reply_for(real_run, 0, 0);
  probe_not_reply.payload = encode_probe({});
  path.network.deliver(t, probe_not_reply);
  const auto result = path.run(o);
  CHECK(result.counts ==
        SenderCounts{.probes = 1, .sent = 1, .answered = 1, .foreign = 2, .other_run = 1, .unexpected = 4});
  CHECK(result.observations.size() == 2);
}

TEST_CASE("agent/sender: duplicates of an answered reply are counted", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.probes = 2;  // probe 1 keeps the run going while probe 0's duplicate arrives
  o.retries = 0;
  path.reply_delay = 50 * kNsPerMs;
  auto inner = path.network.on_send;
  path.network.on_send = [&](const Datagram& d) {
    inner(d);
    if (decode_probe(d.payload)->probe_id == 0) inner(d);  // the network delivers it twice
  };
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 2, .sent = 2, .answered = 2, .duplicates = 1});
}

TEST_CASE("agent/sender: a direction whose trace cannot be read gives no observation", "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.probes = 1;
  auto inner = path.network.on_send;
  path.network.on_send = [&](const Datagram& d) {
    // The reply arrives with its Hop-by-Hop header stripped, a trace of
    // another IOAM namespace in its payload.
    Datagram reply;
    reply.interface = "a0";
    reply.local = d.local;
    reply.remote = d.remote;
    ProbeReply r;
    r.probe = decode_probe(d.payload).value();
    r.port = "etp5b";
    r.forward_trace = filled_trace({{7, 11, 12}}, 99);
    reply.payload = encode_reply(r).value();
    path.network.deliver(path.clock.mono + kLatency, reply);
  };
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 1, .sent = 1, .answered = 1, .bad_traces = 2});
  CHECK(result.observations.empty());  // unobserved, not lost: the probe did arrive
}

TEST_CASE("agent/sender: a send error is an attempt that times out and is retried", "[agent][sender]") {
  OneRouterPath path;
  path.network.fail_send = [](const Datagram&) { return true; };
  auto o = options();
  o.probes = 1;
  o.retries = 1;
  const auto result = path.run(o);
  CHECK(result.counts == SenderCounts{.probes = 1, .retries = 1, .send_errors = 2, .lost = 1});
  CHECK(result.observations.size() == 1);
}

TEST_CASE("agent/sender: an interrupted run keeps only what is known", "[agent][sender]") {
  OneRouterPath path;
  path.drop = [](std::uint64_t id, int) { return id == 1; };
  auto o = options();
  o.rate = 1000;
  // Stop once probes 0 and 2 have their answers and probe 1 still waits.
  const auto result = path.run(o, [&] { return path.clock.mono >= 10 * kNsPerMs; });
  CHECK(result.interrupted);
  CHECK(result.counts == SenderCounts{.probes = 3, .sent = 3, .answered = 2, .abandoned = 1});
  CHECK(result.observations.size() == 4);  // probe 1 is neither received nor lost: nothing is known
}

TEST_CASE("agent/sender: options past the run's bounds are refused", "[agent][sender]") {
  auto o = options();
  CHECK(check_sender_options(o));
  o.probes = 0;
  CHECK(check_sender_options(o).error().message == "--probes must be at least 1");
  o = options();
  o.probes = 60'000;
  o.destinations.push_back({"host-c", "2001:db8:3::3"});
  CHECK(check_sender_options(o).error().message ==
        "120000 probes (60000 per port and destination x 1 ports x 2 destinations) exceed the 100000 one run may "
        "send; split the run");
  o = options();
  o.probes = 1000;
  o.source_ports = {1000, 1999};
  CHECK(check_sender_options(o).error().message ==
        "1 ports x 1000 source ports need 1000 sockets, more than 512; narrow --source-ports");
  o = options();
  o.ports.push_back({"a0", "etp1a", "2001:db8:1::1"});
  CHECK(check_sender_options(o).error().message == "interface a0 is listed twice in --from");
  o = options();
  o.device.clear();
  CHECK_FALSE(check_sender_options(o));
  // The budget: every attempt paced, and every round of attempts timed out.
  o = options();
  CHECK(sender_budget_ns(o) == (9 + 1) * 10 * kNsPerMs + 3 * 100 * kNsPerMs);
}

TEST_CASE("agent/sender: with a plan, exactly its probes, entries interleaved, each observation naming its entry",
          "[agent][sender]") {
  OneRouterPath path;
  auto o = options();
  o.ports.push_back({"a1", "etp1b", "2001:db8:1::1"});
  o.destinations.push_back({"host-c", "2001:db8:3::3"});
  // Entry 4: a0 to host-b from 50000, 50001, 50002; entry 9: a1 to host-c from 61000.
  o.planned = {{0, 0, 50000, 4}, {0, 0, 50001, 4}, {0, 0, 50002, 4}, {1, 1, 61000, 9}};
  const auto result = path.run(o);
  CHECK(result.counts.probes == 4);
  CHECK(result.counts.answered == 4);
  REQUIRE(path.network.sent.size() == 4);
  // Round robin over the entries: 50000, 61000, 50001, 50002.
  const std::vector<std::pair<std::string, int>> order = {{"a0", 50000}, {"a1", 61000}, {"a0", 50001}, {"a0", 50002}};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("datagram " << i);
    CHECK(path.network.sent[i].interface == order[i].first);
    CHECK(path.network.sent[i].local.port == order[i].second);
  }
  // One socket per (port, source port) of the plan, on every port with the
  // same address (a reply may come back by the bond's other member).
  CHECK(path.network.opened == std::set<std::pair<std::string, std::uint16_t>>{
                                   {"a0", 50000}, {"a0", 50001}, {"a0", 50002}, {"a0", 61000},
                                   {"a1", 50000}, {"a1", 50001}, {"a1", 50002}, {"a1", 61000}});
  {
    // Ports with their own addresses: each opens only its own source ports.
    OneRouterPath other;
    auto own = o;
    own.ports[1].address = "2001:db8:1::2";
    REQUIRE(open_sender(own, other.network));
    CHECK(other.network.opened == std::set<std::pair<std::string, std::uint16_t>>{
                                      {"a0", 50000}, {"a0", 50001}, {"a0", 50002}, {"a1", 61000}});
  }
  for (const auto& ob : result.observations) {
    INFO(ob.direction << " " << ob.src_udp_port << " " << ob.dst_udp_port);
    const int sport = ob.direction == ProbeDirection::forward ? ob.src_udp_port : ob.dst_udp_port;
    CHECK(ob.entry == (sport == 61000 ? 9 : 4));
  }
  // The entry goes through the observation file and back.
  const auto line = to_json_line(result.observations.front());
  std::istringstream in(line + "\n");
  auto back = read_observations(in, "obs.jsonl");
  REQUIRE(back);
  CHECK(back->front().entry == result.observations.front().entry);
  // A plan naming a port or destination the run lacks is refused.
  o.planned.push_back({2, 0, 50003, 5});
  CHECK(check_sender_options(o).error().message == "a planned probe names a port or destination the run does not have");
}
