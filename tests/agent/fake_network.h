// An in-memory network and clock for the probe agent's run loops: datagrams
// a loop sends are handed to a test's hook; datagrams scheduled for delivery
// arrive when the fake clock reaches their time. receive() moves the clock,
// so a run that would take seconds takes microseconds.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "probe/agent_clock.h"
#include "probe/agent_listener.h"
#include "probe/payload.h"
#include "probe/agent_trace.h"
#include "probe/ioam_trace.h"
#include "probe/socket.h"

namespace hpn::probe::testing {

class FakeClock final : public Clock {
 public:
  std::int64_t mono = 0;
  std::int64_t realtime_base = 1'700'000'000 * kNsPerSecond;
  std::int64_t monotonic_ns() override { return mono; }
  std::int64_t realtime_ns() override { return realtime_base + mono; }
};

class FakeNetwork final : public DatagramNetwork {
 public:
  explicit FakeNetwork(FakeClock& clock) : clock_(clock) {}

  // Called for every datagram sent, with the clock at the send time.
  std::function<void(const Datagram&)> on_send;
  std::vector<Datagram> sent;
  std::vector<std::int64_t> sent_at;  // monotonic
  std::set<std::pair<std::string, std::uint16_t>> opened;
  std::function<bool(const Datagram&)> fail_send;  // true: send() errors

  void deliver(std::int64_t at_monotonic, Datagram d) {
    d.realtime_ns = clock_.realtime_base + at_monotonic;
    queue_.emplace(std::pair{at_monotonic, seq_++}, std::move(d));
  }
  std::size_t queued() const { return queue_.size(); }

  hpn::Status open(const std::string& interface, const Endpoint& local) override {
    if (!opened.insert({interface, local.port}).second) return Error{"already open"};
    return {};
  }
  hpn::Status send(const Datagram& d) override {
    if (opened.count({d.interface, d.local.port}) == 0) return Error{"not open"};
    if (fail_send && fail_send(d)) return Error{"network is unreachable"};
    sent.push_back(d);
    sent_at.push_back(clock_.mono);
    if (on_send) on_send(d);
    return {};
  }
  std::optional<Datagram> receive(std::int64_t timeout_ns) override {
    ++waits;
    if (!queue_.empty() && queue_.begin()->first.first <= clock_.mono + timeout_ns) {
      auto node = queue_.extract(queue_.begin());
      clock_.mono = std::max(clock_.mono, node.key().first);
      return std::move(node.mapped());
    }
    clock_.mono += std::max<std::int64_t>(timeout_ns, 0);
    return std::nullopt;
  }
  int waits = 0;

 private:
  FakeClock& clock_;
  std::map<std::pair<std::int64_t, int>, Datagram> queue_;
  int seq_ = 0;
};

// A trace as a transit node would have filled it: `hops` records of
// (node, ingress, egress), path order, in a fresh probe header.
inline std::vector<std::byte> filled_trace(std::vector<std::array<std::uint32_t, 3>> hops,
                                           std::uint16_t ns = 123) {
  auto hbh = probe_hop_by_hop(ns);
  std::uint8_t hop_limit = 64;
  for (const auto& h : hops) {
    IoamNode node;
    node.namespace_id = ns;
    node.data.node_id = h[0];
    node.data.ingress_if = static_cast<std::uint16_t>(h[1]);
    node.data.egress_if = static_cast<std::uint16_t>(h[2]);
    node.data.hop_limit = --hop_limit;
    (void)ioam_transit_hbh(hbh, node);
  }
  return hbh;
}

// A probe header of run "run-1", sent at 1 us.
inline ProbeHeader probe_header(std::uint64_t id = 5, std::uint8_t attempt = 1) {
  ProbeHeader h;
  h.run_id = run_id_of("run-1");
  h.probe_id = id;
  h.attempt = attempt;
  h.sent_ns = 1'000;
  return h;
}

// A datagram as it arrives at a listener's b1 (port name etp1a) from
// 2001:db8:1::1, after crossing one router that wrote `hbh`; `drops` is
// what the listener's socket reports having dropped before it.
inline Datagram arriving(std::vector<std::byte> payload, std::vector<std::byte> hbh = filled_trace({{7, 11, 12}}),
                         std::uint32_t drops = 0, std::uint16_t port = 49152) {
  Datagram d;
  d.interface = "b1";
  d.local = {"2001:db8:2::2", kDefaultProbePort};
  d.remote = {"2001:db8:1::1", port};
  d.payload = std::move(payload);
  d.hop_by_hop = std::move(hbh);
  d.realtime_ns = 5'000;
  d.drops = drops;
  return d;
}

// The listener's port names: b1 is etp1a.
inline PortNames b1_port_names() {
  PortNames n;
  REQUIRE(parse_port_names("b1=etp1a", n));
  return n;
}

}  // namespace hpn::probe::testing
