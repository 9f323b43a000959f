// Trains (probe/payload.h): N datagrams of one five-tuple that the listener
// counts and never answers, then a report request it answers with the
// count. The wire format byte for byte, the listener's tally (distinct
// datagrams, its own socket's drops kept apart from the network's), and a
// sender's plan of trains through a lossy fake path to a real listener:
// each observation says how many were sent and how many arrived.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "fake_network.h"
#include "probe/agent_listener.h"
#include "probe/agent_sender.h"

using namespace hpn::probe;
using hpn::probe::ProbeDirection;
using hpn::probe::testing::FakeClock;
using hpn::probe::testing::FakeNetwork;
using hpn::probe::testing::arriving;
using hpn::probe::testing::b1_port_names;
using hpn::probe::testing::filled_trace;
using hpn::probe::testing::probe_header;

namespace {

// A train's datagram as it arrives, after the listener's socket dropped `drops`.
Datagram arriving_train(std::vector<std::byte> payload, std::uint32_t drops = 0, std::uint16_t port = 49152) {
  return arriving(std::move(payload), filled_trace({{7, 11, 12}}), drops, port);
}

std::vector<std::byte> train(std::uint32_t seq, std::uint32_t length, std::uint64_t id = 5, std::uint8_t attempt = 0) {
  return encode_train({probe_header(id, attempt), seq, length}).value();
}

// What a listener reports for the train of `id` after it has taken `in`.
TrainReport report_of(ProbeResponder& responder, std::uint32_t length, std::uint32_t drops = 0,
                      std::uint64_t id = 5) {
  auto reply = responder.answer(arriving_train(train(length, length, id, 1), drops), 6'000);
  REQUIRE(reply);
  auto report = decode_train_report(reply->payload);
  REQUIRE(report);
  return report.value();
}

}  // namespace

TEST_CASE("agent/train: a train datagram is the header, seq and length, laid out as documented", "[agent][train]") {
  const auto bytes = train(3, 1000);
  CHECK(bytes == to_bytes({'H', 'P', 'N', 'p', 1, 3, 0, 0,                      // magic version kind attempt rsvd
                           0x7a, 0x18, 0x67, 0x6a, 0x33, 0x93, 0x1f, 0x5c,      // run id of "run-1"
                           0, 0, 0, 0, 0, 0, 0, 5,                              // probe id
                           0, 0, 0, 0, 0, 0, 0x03, 0xe8,                        // sent ns
                           0, 0, 0, 3, 0, 0, 0x03, 0xe8}));                     // seq, length
  CHECK(classify_payload(bytes) == PayloadClass::train);
  CHECK(decode_train(bytes).value() == TrainDatagram{probe_header(5, 0), 3, 1000});
  CHECK_FALSE(decode_train(bytes)->report_request());
  CHECK(decode_train(train(1000, 1000))->report_request());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("length " << n);
    CHECK(decode_train(std::span(bytes).first(n)).error().kind == ErrorKind::truncated);
  }
  // A seq past the length, no length, or one past the bound: malformed.
  auto past = bytes;
  past[34] = std::byte{0x04};  // seq 1027 of 1000
  CHECK(decode_train(past).error().to_string() ==
        "malformed at byte 32: seq 1027 of a train of 1000: a train is 1 to 1000000 datagrams, seq at most its length");
  CHECK_FALSE(encode_train({probe_header(5, 0), 0, 0}));
  CHECK_FALSE(encode_train({probe_header(5, 0), 0, kMaxTrainLength + 1}));
  CHECK_FALSE(encode_train({probe_header(5, 0), 11, 10}));
  // Not a probe, and no probe is a train.
  CHECK_FALSE(decode_probe(bytes));
  CHECK(decode_train(encode_probe(probe_header(5, 0))).error().to_string() ==
        "malformed at byte 5: kind 1 where a train (3) was expected");
}

TEST_CASE("agent/train: a train report round-trips, and every truncation is 'truncated'", "[agent][train]") {
  TrainReport r;
  r.reply.probe = probe_header(9, 2);
  r.reply.probe_received_ns = 7;
  r.reply.reply_sent_ns = 8;
  r.reply.port = "etp1a";
  r.reply.forward_trace = filled_trace({{7, 11, 12}});
  r.length = 400;
  r.arrived = 391;
  const auto bytes = encode_train_report(r).value();
  CHECK(classify_payload(bytes) == PayloadClass::train_report);
  CHECK(bytes.size() == kProbeHeaderSize + 8 + 16 + 1 + 5 + 2 + r.reply.forward_trace.size());
  CHECK(bytes.size() <= kMaxPayloadSize);
  CHECK(decode_train_report(bytes).value() == r);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("length " << n);
    CHECK(decode_train_report(std::span(bytes).first(n)).error().kind == ErrorKind::truncated);
  }
  r.arrived = kTrainNotCounted;
  CHECK(decode_train_report(encode_train_report(r).value()).value() == r);
  r.arrived = 401;  // more than were sent
  CHECK_FALSE(encode_train_report(r));
  auto more = bytes;
  more[38] = std::byte{0x01};  // arrived 401 (0x0191) of 400
  more[39] = std::byte{0x91};
  CHECK(decode_train_report(more).error().kind == ErrorKind::malformed);
}

TEST_CASE("agent/train: the listener counts a train's distinct datagrams, answers only its report request",
          "[agent][train]") {
  ProbeResponder responder(b1_port_names());
  for (std::uint32_t seq : {0u, 1u, 2u, 4u, 4u, 7u, 9u}) {  // 3, 5, 6 and 8 lost; 4 twice
    CHECK_FALSE(responder.answer(arriving_train(train(seq, 10)), 6'000));
  }
  CHECK(responder.counts().train_datagrams == 7);
  const TrainReport r = report_of(responder, 10);
  CHECK(r.length == 10);
  CHECK(r.arrived == 6);
  CHECK(r.reply.probe == probe_header(5, 1));
  CHECK(r.reply.port == "etp1a");
  CHECK(r.reply.forward_trace == filled_trace({{7, 11, 12}}));
  CHECK(responder.last_train() == std::pair<std::uint32_t, std::uint32_t>{10, 6});
  // A retried request hears the same count.
  CHECK(report_of(responder, 10).arrived == 6);
  // A train none of whose datagrams arrived lost them all.
  CHECK(report_of(responder, 10, 0, 77).arrived == 0);
  // Another sender's port is another train.
  CHECK_FALSE(responder.answer(arriving_train(train(0, 10), 0, 50000), 6'000));
  CHECK(report_of(responder, 10).arrived == 6);
  // An ordinary probe after it is no train's.
  REQUIRE(responder.answer(arriving_train(encode_probe(probe_header(6, 0))), 6'000));
  CHECK_FALSE(responder.last_train());
}

TEST_CASE("agent/train: datagrams the listener's own socket dropped are not the network's loss", "[agent][train]") {
  SECTION("drops while the train was under way") {
    ProbeResponder responder(b1_port_names());
    CHECK_FALSE(responder.answer(arriving_train(train(0, 4), 0), 0));
    CHECK_FALSE(responder.answer(arriving_train(train(2, 4), 1), 0));  // the socket dropped one meanwhile
    CHECK(report_of(responder, 4, 1).arrived == kTrainNotCounted);
  }
  SECTION("drops before it, then none") {
    ProbeResponder responder(b1_port_names());
    CHECK_FALSE(responder.answer(arriving_train(train(0, 4, 1), 3), 0));  // train 1 saw the socket's 3 drops
    CHECK(report_of(responder, 4, 3, 1).arrived == kTrainNotCounted);
    for (std::uint32_t seq : {0u, 1u, 3u}) CHECK_FALSE(responder.answer(arriving_train(train(seq, 4, 2), 3), 0));
    CHECK(report_of(responder, 4, 3, 2).arrived == 3);  // train 2 began after them: counted
  }
  SECTION("a train heard of only by its request, after drops") {
    ProbeResponder responder(b1_port_names());
    CHECK(report_of(responder, 4, 2, 9).arrived == kTrainNotCounted);
  }
  SECTION("a train whose length changed") {
    ProbeResponder responder(b1_port_names());
    CHECK_FALSE(responder.answer(arriving_train(train(0, 4)), 0));
    CHECK_FALSE(responder.answer(arriving_train(train(1, 5)), 0));
    CHECK(report_of(responder, 5).arrived == kTrainNotCounted);
  }
}

namespace {

// host-a a0 -- router 7 -- b1 host-b, the listener a real ProbeResponder:
// train datagrams the path drops (`drop(seq)`) never reach it, and report
// requests it answers come back after a delay, unless `lose_request(attempt)`.
// `drop` takes the train's source port and the datagram's seq; `late`, the
// seq, says how long the path holds a train datagram (what a later one may
// overtake), delivered when the sender next sends at or past that time.
struct TrainPath {
  FakeClock clock;
  FakeNetwork network{clock};
  ProbeResponder listener{names_of()};
  std::function<bool(std::uint16_t, std::uint32_t)> drop = [](std::uint16_t, std::uint32_t) { return false; };
  std::function<bool(int)> lose_request = [](int) { return false; };
  std::function<std::int64_t(std::uint32_t)> late = [](std::uint32_t) { return std::int64_t{0}; };
  std::vector<std::uint64_t> order;  // the probe id of each datagram sent
  std::vector<std::pair<std::int64_t, Datagram>> held;  // by `late`: when each arrives
  std::uint32_t socket_drops = 0;  // the listener's socket's overflow count, on each datagram it reads

  TrainPath() {
    network.on_send = [this](const Datagram& sent) {
      auto t = decode_train(sent.payload);
      REQUIRE(t);
      order.push_back(t->probe.probe_id);
      for (auto it = held.begin(); it != held.end();) {
        if (it->first > clock.mono) {
          ++it;
          continue;
        }
        CHECK_FALSE(listener.answer(it->second, it->second.realtime_ns));
        it = held.erase(it);
      }
      if (!t->report_request() && drop(sent.local.port, t->seq)) return;
      if (t->report_request() && lose_request(t->probe.attempt)) return;
      Datagram at_b;
      at_b.interface = "b1";
      at_b.local = sent.remote;
      at_b.remote = sent.local;
      at_b.payload = sent.payload;
      at_b.hop_by_hop = filled_trace({{7, 11, 12}});
      at_b.realtime_ns = clock.realtime_ns();
      at_b.drops = socket_drops;
      if (!t->report_request() && late(t->seq) > 0) {
        held.emplace_back(clock.mono + late(t->seq), at_b);
        return;
      }
      auto reply = listener.answer(at_b, at_b.realtime_ns);
      if (!reply) return;
      Datagram at_a;
      at_a.interface = sent.interface;
      at_a.local = reply->remote;
      at_a.remote = reply->local;
      at_a.payload = reply->payload;
      at_a.hop_by_hop = filled_trace({{7, 12, 11}});
      network.deliver(clock.mono + 2 * kNsPerMs, at_a);
    };
  }
  static PortNames names_of() {
    PortNames n;
    (void)parse_port_names("b1=etp5b", n);
    return n;
  }
  // A new run of the sender: its sockets again, the listener as it was.
  static void Reset(TrainPath& p) { p.network.opened.clear(); }
};

SenderOptions train_options(std::vector<PlannedSend> planned) {
  SenderOptions o;
  o.run = "run-1";
  o.device = "host-a";
  o.ports = {{"a0", "etp1a", "2001:db8:1::1"}};
  o.destinations = {{"host-b", "2001:db8:2::2"}};
  o.rate = 10000;
  o.timeout_ns = 100 * kNsPerMs;
  o.retries = 2;
  o.planned = std::move(planned);
  REQUIRE(parse_port_names("a0=etp1a", o.port_names));
  return o;
}

}  // namespace

TEST_CASE("agent/train: a plan's trains are sent, counted and reported, every datagram in the count", "[agent][train]") {
  TrainPath path;
  // The train from 50000 loses every 10th datagram, 50001's none, 50002's all.
  path.drop = [](std::uint16_t port, std::uint32_t seq) { return (port == 50000 && seq % 10 == 0) || port == 50002; };
  const auto o = train_options({{0, 0, 50000, 3, 200}, {0, 0, 50001, 3, 50}, {0, 0, 50002, 4, 30}});
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  CHECK(result.counts.probes == 3);
  CHECK(result.counts.train_datagrams == 280);
  CHECK(result.counts.sent == 285);  // and one report request each, and a recount each for the two that lost
  CHECK(result.counts.recounts == 2);
  CHECK(result.counts.stragglers == 0);
  CHECK(result.counts.answered == 3);
  // The trains' datagrams take turns, so each is spread over the run; each
  // train is numbered by its entry and source port.
  REQUIRE(path.order.size() >= 6);
  CHECK(std::set<std::uint64_t>(path.order.begin(), path.order.begin() + 3) ==
        std::set<std::uint64_t>{3 << 16 | 50000, 3 << 16 | 50001, 4 << 16 | 50002});
  CHECK(std::vector<std::uint64_t>(path.order.begin() + 3, path.order.begin() + 6) ==
        std::vector<std::uint64_t>(path.order.begin(), path.order.begin() + 3));
  std::map<int, const ObservationRecord*> forward;  // by source port
  for (const auto& ob : result.observations) {
    if (ob.direction == ProbeDirection::forward) forward[ob.src_udp_port] = &ob;
    if (ob.direction == ProbeDirection::reverse) CHECK(ob.train == 0);
  }
  REQUIRE(forward.size() == 3);
  CHECK(forward[50000]->train == 200);
  CHECK(forward[50000]->arrived == 180);
  CHECK(forward[50000]->entry == 3);
  CHECK(forward[50000]->rx_port == "etp5b");
  CHECK(forward[50001]->arrived == 50);
  CHECK(forward[50002]->train == 30);
  CHECK(forward[50002]->entry == 4);
  CHECK(forward[50002]->arrived == 0);
  CHECK(forward[50002]->received);  // the request made it: all 30 lost is known
  // The counts go through the observation file and back.
  std::istringstream in(to_json_line(*forward[50000]) + "\n");
  auto back = read_observations(in, "obs.jsonl");
  REQUIRE(back);
  CHECK(back->front().train == 200);
  CHECK(back->front().arrived == 180);
}

TEST_CASE("agent/train: a train repeated by a later run from the same source port is counted on its own",
          "[agent][train]") {
  // A loss round repeats a train from its source port, in a new run of the
  // sender that numbers its plan from the start again; the listener is the
  // same. Were the two numbered alike, the second's tally would be the
  // union of both trains' arrivals.
  TrainPath path;
  int round = 0;
  path.drop = [&](std::uint16_t, std::uint32_t seq) { return seq % 2 == static_cast<std::uint32_t>(round); };
  std::vector<int> arrived;
  for (round = 0; round < 2; ++round) {
    const auto o = train_options({{0, 0, 50000, 7 + round, 40}});
    TrainPath::Reset(path);
    REQUIRE(open_sender(o, path.network));
    const auto result = run_sender(o, path.network, path.clock, [] { return false; });
    REQUIRE_FALSE(result.observations.empty());
    arrived.push_back(result.observations[0].arrived);
  }
  CHECK(arrived == std::vector<int>{20, 20});
}

TEST_CASE("agent/train: a lost report request is retried, and with none answered the count stays unknown", "[agent][train]") {
  SECTION("the first request lost") {
    TrainPath path;
    path.lose_request = [](int attempt) { return attempt == 0; };
    const auto o = train_options({{0, 0, 50000, 0, 20}});
    REQUIRE(open_sender(o, path.network));
    const auto result = run_sender(o, path.network, path.clock, [] { return false; });
    CHECK(result.counts.retries == 1);
    REQUIRE(result.observations.size() == 2);
    CHECK(result.observations[0].attempt == 2);
    CHECK(result.observations[0].arrived == 20);
  }
  SECTION("every request lost") {
    TrainPath path;
    path.lose_request = [](int) { return true; };
    const auto o = train_options({{0, 0, 50000, 0, 20}});
    REQUIRE(open_sender(o, path.network));
    const auto result = run_sender(o, path.network, path.clock, [] { return false; });
    CHECK(result.counts.lost == 1);
    REQUIRE(result.observations.size() == 1);
    const Observation& lost = result.observations[0];
    CHECK_FALSE(lost.received);
    CHECK(lost.attempt == 3);
    CHECK(lost.train == 20);
    CHECK(lost.arrived == -1);  // not known: no loss to charge
    CHECK(to_json_line(lost).find("\"train\":{\"sent\":20,\"arrived\":null}") != std::string::npos);
  }
  SECTION("datagrams the network would not take are not counted as sent") {
    TrainPath path;
    int n = 0;
    path.network.fail_send = [&](const Datagram& d) {
      auto t = decode_train(d.payload);
      return t && !t->report_request() && ++n % 4 == 0;
    };
    const auto o = train_options({{0, 0, 50000, 0, 20}});
    REQUIRE(open_sender(o, path.network));
    const auto result = run_sender(o, path.network, path.clock, [] { return false; });
    REQUIRE_FALSE(result.observations.empty());
    CHECK(result.observations[0].train == 15);
    CHECK(result.observations[0].arrived == 15);
    CHECK(result.counts.send_errors == 5);
  }
}

TEST_CASE("agent/train: a host too slow for the pace sends its trains to the end and waits for their reports",
          "[agent][train]") {
  // Every send takes twenty intervals of this host's time: the run falls
  // far behind its pace, and past its budget, but the network is not at
  // fault, and cutting the trains off would lose them.
  TrainPath path;
  const auto deliver = path.network.on_send;
  const auto o = train_options({{0, 0, 50000, 0, 300}, {0, 0, 50001, 0, 300}});
  path.network.on_send = [&](const Datagram& d) {
    path.clock.mono += 20 * (kNsPerSecond / o.rate);
    deliver(d);
  };
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  CHECK(path.clock.mono > sender_budget_ns(o));
  CHECK(result.counts.unsent == 0);
  CHECK(result.counts.answered == 2);
  for (const auto& ob : result.observations) {
    if (ob.direction == ProbeDirection::forward) CHECK(ob.arrived == 300);
  }
}

TEST_CASE("agent/train: a report request sent just short of the budget still gets its retries", "[agent][train]") {
  // The host is behind its pace by enough that the train's report request
  // goes half a timeout before the budget ends, and that attempt is lost:
  // its retry is due after the budget, and is sent and answered.
  TrainPath path;
  const auto deliver = path.network.on_send;
  const auto o = train_options({{0, 0, 50000, 0, 300}});
  const std::int64_t step = (sender_budget_ns(o) - kReportGraceNs - o.timeout_ns / 2) / 300;
  path.network.on_send = [&](const Datagram& d) {
    path.clock.mono += step;
    deliver(d);
  };
  path.lose_request = [](int attempt) { return attempt == 0; };
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  CHECK(path.clock.mono > sender_budget_ns(o));
  CHECK(result.counts.retries == 1);
  CHECK(result.counts.lost == 0);
  CHECK(result.counts.answered == 1);
  REQUIRE_FALSE(result.observations.empty());
  CHECK(result.observations[0].arrived == 300);
}

TEST_CASE("agent/train: a train's last datagrams, overtaken by less than the grace, are in its count",
          "[agent][train]") {
  // Its last two datagrams are held 30 and 45 ms on the way, as on a host
  // whose sender moved to another CPU mid-train: the report request leaves
  // kReportGraceNs after them, and finds them counted. Sent at the next
  // interval instead, it would overtake them and read as two lost.
  static_assert(kReportGraceNs > 45 * kNsPerMs);
  TrainPath path;
  const auto o = train_options({{0, 0, 50000, 0, 100}, {0, 0, 50001, 0, 100}});
  const auto deliver = path.network.on_send;
  path.late = [](std::uint32_t seq) { return seq == 99 ? 30 * kNsPerMs : seq == 98 ? 45 * kNsPerMs : 0; };
  std::vector<std::int64_t> last_datagram, request;  // when each train's last datagram and its request went
  path.network.on_send = [&](const Datagram& d) {
    auto t = decode_train(d.payload);
    REQUIRE(t);
    if (t->seq == 99 && !t->report_request()) last_datagram.push_back(path.clock.mono);
    if (t->report_request()) request.push_back(path.clock.mono);
    deliver(d);
  };
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  REQUIRE(last_datagram.size() == 2);
  REQUIRE(request.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) CHECK(request[k] - last_datagram[k] >= kReportGraceNs);
  CHECK(path.held.empty());
  int forward = 0;
  for (const auto& ob : result.observations) {
    if (ob.direction != ProbeDirection::forward) continue;
    ++forward;
    CHECK(ob.train == 100);
    CHECK(ob.arrived == 100);
  }
  CHECK(forward == 2);
}

TEST_CASE("agent/train: datagrams held past the grace are found by the recount, and a loss stays a loss",
          "[agent][train]") {
  // Each train's last three datagrams are held 200 ms (a CPU's queue left
  // waiting): its report, kReportGraceNs after the last was sent, counts 97.
  // Train 50001 also loses two on the way. Both are asked again kRecountNs
  // after their first count: 50000 has all 100 by then, 50001 has 98.
  static_assert(kReportGraceNs < 200 * kNsPerMs && 200 * kNsPerMs < kRecountNs);
  TrainPath path;
  const auto o = train_options({{0, 0, 50000, 0, 100}, {0, 0, 50001, 0, 100}});
  path.late = [](std::uint32_t seq) { return seq >= 97 ? 200 * kNsPerMs : 0; };
  path.drop = [](std::uint16_t port, std::uint32_t seq) { return port == 50001 && (seq == 10 || seq == 20); };
  std::map<std::uint16_t, std::vector<std::uint32_t>> counted;  // per train, each report's count, in turn
  const auto deliver = path.network.on_send;
  path.network.on_send = [&](const Datagram& d) {
    deliver(d);
    auto t = decode_train(d.payload);
    REQUIRE(t);
    if (t->report_request() && path.listener.last_train()) counted[d.local.port].push_back(path.listener.last_train()->second);
  };
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  CHECK(counted[50000] == std::vector<std::uint32_t>{97, 100});
  CHECK(counted[50001] == std::vector<std::uint32_t>{95, 98});
  CHECK(path.held.empty());
  CHECK(result.counts.recounts == 2);
  CHECK(result.counts.stragglers == 6);
  CHECK(result.counts.answered == 2);
  std::map<int, std::int32_t> arrived;
  for (const auto& ob : result.observations) {
    if (ob.direction == ProbeDirection::forward) arrived[ob.src_udp_port] = ob.arrived;
  }
  CHECK(arrived == std::map<int, std::int32_t>{{50000, 100}, {50001, 98}});
}

TEST_CASE("agent/train: a recount the listener no longer vouches for leaves the train uncounted", "[agent][train]") {
  // The listener's socket drops datagrams between the first count and the
  // recount: what the first count missed may have been dropped there, so
  // neither count is the network's.
  TrainPath path;
  const auto o = train_options({{0, 0, 50000, 0, 100}});
  path.drop = [](std::uint16_t, std::uint32_t seq) { return seq == 5; };
  int requests = 0;
  const auto deliver = path.network.on_send;
  path.network.on_send = [&](const Datagram& d) {
    auto t = decode_train(d.payload);
    REQUIRE(t);
    if (t->report_request() && ++requests == 2) path.socket_drops = 4;
    deliver(d);
  };
  REQUIRE(open_sender(o, path.network));
  const auto result = run_sender(o, path.network, path.clock, [] { return false; });
  CHECK(requests == 2);
  CHECK(result.counts.recounts == 1);
  REQUIRE_FALSE(result.observations.empty());
  CHECK(result.observations[0].direction == ProbeDirection::forward);
  CHECK(result.observations[0].arrived == -1);
}

TEST_CASE("agent/train: a plan line's train is checked, and bounds the run", "[agent][train]") {
  auto o = train_options({{0, 0, 50000, 0, kMaxTrainLength + 1}});
  CHECK(check_sender_options(o).error().message == fmt::format("a train of {} datagrams: at most {}",
                                                                kMaxTrainLength + 1, kMaxTrainLength));
  o.planned = {{0, 0, 50000, 0, 1000}};
  o.rate = 100;
  // 1,000 datagrams and the request's three attempts at 100 a second,
  // three timeouts, and the request's wait after the train.
  // A train's run also waits out its report's grace, and a recount's wait and timeout.
  CHECK(sender_budget_ns(o) ==
        (1000 + 3 + 1) * 10 * kNsPerMs + 3 * o.timeout_ns + kReportGraceNs + kRecountNs + o.timeout_ns);
  o.destinations[0].hop_limit = 64;
  CHECK(check_sender_options(o).error().message == "a train goes to a host's listener, not hop-limited to a switch");
}

TEST_CASE("agent/train: an observation's train is read back, and what cannot be is refused", "[agent][train]") {
  auto read = [](const std::string& line) {
    std::istringstream in(line + "\n");
    return read_observations(in, "obs.jsonl");
  };
  const std::string base = R"({"run":"r","probe":1,"direction":"forward","src":{"device":"a","port":"p","address":"x",)"
                           R"("udp_port":1},"dst":{"device":"b","address":"y","udp_port":2},"received":true,)"
                           R"("rx_port":"q","hops":[],"sent_ns":1)";
  auto ok = read(base + R"(,"train":{"sent":10,"arrived":null}})");
  REQUIRE(ok);
  CHECK(ok->front().train == 10);
  CHECK(ok->front().arrived == -1);
  CHECK(read(base + R"(,"train":{"sent":10,"arrived":11}})").error().message ==
        "obs.jsonl:1: 'train': more arrived than were sent");
  CHECK(read(base + R"(,"train":{"arrived":1}})").error().message == "obs.jsonl:1: missing 'sent'");
  std::string reverse = base;
  reverse.replace(reverse.find("forward"), 7, "reverse");
  CHECK(read(reverse + R"(,"train":{"sent":10,"arrived":1}})").error().message ==
        "obs.jsonl:1: 'train' is for forward records only");
}
