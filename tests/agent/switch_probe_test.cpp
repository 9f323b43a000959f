// Switch probes: a probe answered by a switch's ICMPv6 error (RFC 4443)
// instead of a listener. The error message is built here byte by byte from
// the RFC's layout; the parser, the sender's matching and the --to syntax
// are checked against it.
#include <arpa/inet.h>

#include <catch2/catch.hpp>

#include "fake_network.h"
#include "probe/agent_options.h"
#include "probe/agent_sender.h"
#include "probe/payload.h"
#include "probe/socket_udp.h"

using namespace hpn::probe;
using hpn::probe::ProbeDirection;
using hpn::probe::testing::FakeClock;
using hpn::probe::testing::FakeNetwork;
using hpn::probe::testing::filled_trace;

namespace {

void put16(std::vector<std::byte>& out, unsigned v) {
  out.push_back(std::byte(v >> 8));
  out.push_back(std::byte(v & 0xff));
}
void put_address(std::vector<std::byte>& out, const char* text) {
  unsigned char a[16];
  REQUIRE(inet_pton(AF_INET6, text, a) == 1);
  for (unsigned char b : a) out.push_back(std::byte(b));
}

// ICMPv6 header, then the invoking packet: IPv6 header, Hop-by-Hop header,
// UDP header, payload (RFC 4443 §3.1 and §3.3; RFC 8200 §3, §4.3; RFC 768).
std::vector<std::byte> icmp_error(std::uint8_t type, std::uint8_t code, const std::vector<std::byte>& hbh,
                                  const std::vector<std::byte>& payload, unsigned sport = 49152, unsigned dport = 17768,
                                  std::uint8_t udp = 17) {
  std::vector<std::byte> m{std::byte(type), std::byte(code), std::byte(0), std::byte(0),
                           std::byte(0),    std::byte(0),    std::byte(0), std::byte(0)};
  m.push_back(std::byte(0x60));  // version 6
  m.insert(m.end(), 3, std::byte(0));
  put16(m, static_cast<unsigned>(hbh.size() + 8 + payload.size()));
  m.push_back(std::byte(hbh.empty() ? udp : 0));  // next header: Hop-by-Hop, or UDP
  m.push_back(std::byte(1));                      // the hop limit as it ran out
  put_address(m, "2001:db8:1::1");
  put_address(m, "fd48:5050::5");
  std::vector<std::byte> h = hbh;
  if (!h.empty()) h[0] = std::byte(udp);
  m.insert(m.end(), h.begin(), h.end());
  put16(m, sport);
  put16(m, dport);
  put16(m, static_cast<unsigned>(8 + payload.size()));
  put16(m, 0);
  m.insert(m.end(), payload.begin(), payload.end());
  return m;
}

std::vector<std::byte> probe_payload(std::uint64_t id) {
  ProbeHeader h;
  h.run_id = run_id_of("run-9");
  h.probe_id = id;
  h.sent_ns = 1;
  return encode_probe(h);
}

}  // namespace

TEST_CASE("agent/switch probes: a Time Exceeded or port unreachable quotes the probe, trace and all",
          "[agent][switch]") {
  const auto hbh = filled_trace({{0x10000, 17, 80}, {0x1000, 16, 0xFFFF}});
  const auto payload = probe_payload(4);
  for (auto [type, code] : {std::pair{3, 0}, std::pair{1, 4}}) {
    auto d = quoted_probe(icmp_error(static_cast<std::uint8_t>(type), static_cast<std::uint8_t>(code), hbh, payload),
                          "fd48:5050::5");
    REQUIRE(d);
    REQUIRE(d->icmp);
    CHECK(d->icmp->type == type);
    CHECK(d->icmp->reporter == "fd48:5050::5");
    CHECK(d->remote == Endpoint{"2001:db8:1::1", 49152});  // the probe's source: us
    CHECK(d->local == Endpoint{"fd48:5050::5", 17768});
    CHECK(d->hop_by_hop == hbh);
    CHECK(d->payload == payload);
  }
  // Other errors, other protocols, and anything cut short are not ours.
  CHECK_FALSE(quoted_probe(icmp_error(1, 0, hbh, payload), "x"));  // no route: says nothing of a switch's trace
  CHECK_FALSE(quoted_probe(icmp_error(3, 1, hbh, payload), "x"));  // reassembly time exceeded
  CHECK_FALSE(quoted_probe(icmp_error(2, 0, hbh, payload), "x"));  // packet too big
  CHECK_FALSE(quoted_probe(icmp_error(3, 0, hbh, payload, 49152, 17768, 6), "x"));  // TCP
  const auto whole = icmp_error(3, 0, hbh, payload);
  for (size_t cut : {0ul, 7ul, 8ul, 47ul, 48ul + 8, 48ul + hbh.size() + 7}) {
    INFO(cut);
    CHECK_FALSE(quoted_probe(std::span<const std::byte>(whole).first(cut), "x"));
  }
  // A payload quoted only in part is handed over as far as it goes.
  auto part = quoted_probe(std::span<const std::byte>(whole).first(whole.size() - 10), "x");
  REQUIRE(part);
  CHECK(part->payload.size() == payload.size() - 10);
}

TEST_CASE("agent/switch probes: --to takes NAME=ADDRESS@HOPS", "[agent][switch]") {
  auto d = parse_destinations("host-b=2001:db8:2::2,core-1-00=fd48:5050:0:0::1@64");
  REQUIRE(d);
  REQUIRE(d->size() == 2);
  CHECK((*d)[0].hop_limit == 0);
  CHECK((*d)[1] == Destination{"core-1-00", "fd48:5050::1", 64});
  for (const char* bad : {"x=fd00::1@0", "x=fd00::1@256", "x=fd00::1@", "x=fd00::1@two"}) {
    INFO(bad);
    auto r = parse_destinations(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == std::string("'") + bad + "': the hop limit after '@' must be 1 to 255");
  }
  // The same address hop-limited and not is two destinations; twice at one limit is one too many.
  CHECK(parse_destinations("a=fd00::1,a=fd00::1@3"));
  CHECK_FALSE(parse_destinations("a=fd00::1@3,b=fd00::1@3"));
}

TEST_CASE("agent/switch probes: the sender matches a switch's error to its probe and records the trace to it",
          "[agent][switch]") {
  FakeClock clock;
  FakeNetwork network(clock);
  SenderOptions o;
  o.run = "run-9";
  o.device = "host-a";
  o.ports = {{"a0", "nic1p1", "2001:db8:1::1"}};
  o.destinations = {{"agg-p0-1-00", "fd48:5050::5", 64}, {"core-1-00", "fd48:5050::1", 64}};
  o.probes = 2;
  o.source_ports = {49152, 49153};
  o.rate = 100;
  o.timeout_ns = 100 * kNsPerMs;
  o.retries = 1;
  REQUIRE(parse_port_names("a0=nic1p1", o.port_names));
  REQUIRE(open_sender(o, network));
  // The aggregation switch answers; the core never does; a forged error
  // (another flow) and one of another run are ignored.
  network.on_send = [&](const Datagram& sent) {
    if (sent.remote.address != "fd48:5050::5") return;
    CHECK(sent.hop_limit == 64);
    Datagram e;
    e.interface = sent.interface;
    e.remote = sent.local;
    e.local = sent.remote;
    e.payload = sent.payload;
    e.hop_by_hop = filled_trace({{0x10000, 17, 80}, {0x1000, 16, 0xFFFF}});
    e.icmp = IcmpReport{1, 4, "fd48:5050::5"};
    Datagram forged = e;
    forged.remote.port = 50000;
    network.deliver(clock.mono + kNsPerMs, forged);
    Datagram other = e;
    ProbeHeader h = decode_probe(e.payload).value();
    h.run_id = run_id_of("run-1");
    other.payload = encode_probe(h);
    network.deliver(clock.mono + kNsPerMs, other);
    network.deliver(clock.mono + 2 * kNsPerMs, e);
  };
  auto r = run_sender(o, network, clock, [] { return false; });
  CHECK(r.counts.icmp_answers == 2);
  CHECK(r.counts.unexpected == 2);
  CHECK(r.counts.other_run == 2);
  CHECK(r.counts.lost == 2);
  int expired = 0, lost = 0;
  for (const auto& ob : r.observations) {
    CHECK(ob.direction == ProbeDirection::expired);
    CHECK(ob.hop_limit == 64);
    if (ob.received) {
      ++expired;
      CHECK(ob.dst_device == "agg-p0-1-00");
      CHECK(ob.reporter == "fd48:5050::5");
      CHECK(ob.icmp_type == 1);
      REQUIRE(ob.hops.size() == 2);
      CHECK(ob.hops[1].node_id == 0x1000);
      CHECK(ob.hops[1].ingress_if == 16);
      CHECK(ob.hops[1].egress_if == -1);  // the answering switch wrote no egress
      CHECK(ob.rx_port.empty());
    } else {
      ++lost;
      CHECK(ob.dst_device == "core-1-00");
    }
  }
  CHECK(expired == 2);
  CHECK(lost == 2);
  // Written and read back as the observation schema says.
  for (const auto& ob : r.observations) {
    std::istringstream in(to_json_line(ob) + "\n");
    auto back = read_observations(in, "x");
    REQUIRE(back);
    CHECK((*back)[0].direction == ProbeDirection::expired);
    CHECK((*back)[0].reporter == ob.reporter);
    CHECK((*back)[0].hop_limit == 64);
  }
}
