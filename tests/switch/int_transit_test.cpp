// The INT transit eBPF program (switch/int_transit.bpf.c) in the kernel:
// loaded through its loader (the verifier checks it), then driven with
// BPF_PROG_TEST_RUN on frames that reach each of its branches. What it
// pushes is held to the INT-MD model (probe/int_md.h's int_md_transit) byte
// for byte, its stack read back by the sink's decoder, and its IP and UDP
// checksums checked here from RFC 791/768/8200, not by the program's own
// arithmetic. Root (CAP_BPF, CAP_NET_ADMIN); a kernel that refuses BPF is a
// skip that says so.
#include <catch2/catch.hpp>

#include <linux/pkt_cls.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "probe/int_md.h"
#include "switch/int_transit.h"
#include "test_util.h"

using hpn::sw::IntTransit;
using hpn::sw::IntTransitSettings;
namespace probe = hpn::probe;

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kIn = 7;   // the ingress ifindex (a number only)
constexpr std::uint32_t kOut = 1;  // the egress: lo, which the test run sends on
constexpr std::size_t kEth = 14;

IntTransit loaded() {
  if (geteuid() != 0) hpn::test::skip("loading an eBPF program needs root");
  auto t = IntTransit::load();
  if (!t && (t.error().message.find("Operation not permitted") != std::string::npos)) {
    hpn::test::skip("this kernel refuses BPF to root here: " + t.error().message);
  }
  if (!t) FAIL(t.error().message);
  return std::move(t.value());
}

IntTransitSettings settings(std::uint32_t node) {
  IntTransitSettings s;
  s.node_id = node;
  s.udp_port = probe::kIntUdpPort;
  s.ports = {{kIn, static_cast<std::uint16_t>(0x100 + node)}, {kOut, static_cast<std::uint16_t>(0x200 + node)}};
  return s;
}

// RFC 1071 sum of 16-bit big-endian words, not folded.
std::uint32_t sum16(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (n % 2) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  return sum;
}
std::uint16_t folded(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

bool is_v6(const Bytes& f) { return f[12] == 0x86 && f[13] == 0xdd; }
std::size_t l4_of(const Bytes& f) { return kEth + (is_v6(f) ? 40 : 20); }
std::uint16_t be16(const Bytes& f, std::size_t at) { return static_cast<std::uint16_t>(f[at] << 8 | f[at + 1]); }
void put16(Bytes& f, std::size_t at, std::uint16_t v) {
  f[at] = static_cast<std::uint8_t>(v >> 8);
  f[at + 1] = static_cast<std::uint8_t>(v);
}

// The UDP checksum over the pseudo-header and the datagram, as a receiver
// checks it: 0 (none, IPv4 only) or a sum of all ones.
bool udp_checksum_ok(const Bytes& f) {
  const std::size_t l4 = l4_of(f);
  const std::uint16_t len = be16(f, l4 + 4);
  if (be16(f, l4 + 6) == 0) return true;  // none: IPv4's, or IPv6's with UDP_NO_CHECK6_TX
  std::uint32_t sum = is_v6(f) ? sum16(&f[kEth + 8], 32) : sum16(&f[kEth + 12], 8);
  sum += 17 + len;
  sum = sum16(&f[l4], len, sum);
  return folded(sum) == 0xffff;
}
bool ipv4_checksum_ok(const Bytes& f) { return is_v6(f) || folded(sum16(&f[kEth], 20)) == 0xffff; }

// A frame: Ethernet, IPv4 (DF) or IPv6, UDP to `port` with `payload`, a
// real UDP checksum or none.
Bytes frame(bool v6, std::uint16_t port, const Bytes& payload, bool checksum, std::uint8_t dscp = 0) {
  Bytes f = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, static_cast<std::uint8_t>(v6 ? 0x86 : 0x08),
             static_cast<std::uint8_t>(v6 ? 0xdd : 0x00)};
  const std::uint16_t udp_len = static_cast<std::uint16_t>(8 + payload.size());
  if (v6) {
    Bytes ip(40, 0);
    ip[0] = static_cast<std::uint8_t>(0x60 | dscp >> 2);
    ip[1] = static_cast<std::uint8_t>((dscp & 3) << 6);
    put16(ip, 4, udp_len);
    ip[6] = 17;
    ip[7] = 64;
    ip[8] = 0xfd, ip[23] = 1;   // fd00::1
    ip[24] = 0xfd, ip[39] = 2;  // fd00::2
    f.insert(f.end(), ip.begin(), ip.end());
  } else {
    Bytes ip = {0x45, static_cast<std::uint8_t>(dscp << 2), 0, 0, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 1, 0, 1};
    put16(ip, 2, static_cast<std::uint16_t>(20 + udp_len));
    put16(ip, 10, static_cast<std::uint16_t>(~folded(sum16(ip.data(), 20))));
    f.insert(f.end(), ip.begin(), ip.end());
  }
  Bytes udp = {0xc0, 0x00, 0, 0, 0, 0, 0, 0};
  put16(udp, 2, port);
  put16(udp, 4, udp_len);
  f.insert(f.end(), udp.begin(), udp.end());
  f.insert(f.end(), payload.begin(), payload.end());
  if (checksum) {
    const std::size_t l4 = l4_of(f);
    std::uint32_t sum = v6 ? sum16(&f[kEth + 8], 32) : sum16(&f[kEth + 12], 8);
    sum = sum16(&f[l4], udp_len, sum + 17 + udp_len);
    std::uint16_t c = static_cast<std::uint16_t>(~folded(sum));
    put16(f, l4 + 6, c == 0 ? 0xffff : c);
  }
  return f;
}

// The source's shim + MD header (probe/int_md.h), then a payload.
Bytes int_payload(std::uint16_t bitmap = probe::kIntWiringBitmap, std::uint8_t hops = 8, std::uint8_t hop_ml = 0) {
  probe::IntMdSourceRequest r;
  r.instruction_bitmap = bitmap;
  r.max_hops = hops;
  r.hop_ml = hop_ml;
  r.npt_field = 4791;
  auto built = build_int_md(r);
  REQUIRE(built);
  Bytes out;
  for (auto b : *built) out.push_back(static_cast<std::uint8_t>(b));
  const std::string text = "hpnctl probe, sealed";  // the probe's own bytes, which no hop touches
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

Bytes udp_payload(const Bytes& f) {
  const std::size_t l4 = l4_of(f);
  return Bytes(f.begin() + static_cast<long>(l4 + 8), f.begin() + static_cast<long>(l4 + be16(f, l4 + 4)));
}

// What the model makes of the same UDP payload at a hop with these IDs.
Bytes model(const Bytes& payload, std::uint32_t node, std::optional<std::pair<std::uint16_t, std::uint16_t>> ports,
            probe::IntTransitOutcome want) {
  std::vector<std::byte> p;
  for (auto b : payload) p.push_back(static_cast<std::byte>(b));
  probe::IntHopRecord hop;
  hop.node_id = node;
  if (ports) {
    hop.l1_ingress_port = ports->first;
    hop.l1_egress_port = ports->second;
  }
  auto outcome = int_md_transit(p, hop);
  REQUIRE(outcome);
  CHECK(*outcome == want);
  Bytes out;
  for (auto b : p) out.push_back(static_cast<std::uint8_t>(b));
  return out;
}

using Run = IntTransit::TestRun;

Run run(const IntTransit& t, const Bytes& in) {
  auto r = t.test_run(in, kIn, kOut);
  if (!r) FAIL(r.error().message);
  return std::move(r.value());
}

std::uint64_t counted(const IntTransit& t, hpn_int_counter which) {
  auto c = t.counters();
  REQUIRE(c);
  return (*c)[which];
}

}  // namespace

TEST_CASE("INT transit: the kernel's verifier accepts the program, and it starts unconfigured", "[switch][int]") {
  IntTransit t = loaded();
  CHECK(t.program_fd() >= 0);
  // No node ID yet: an INT probe goes through untouched.
  const Bytes in = frame(false, probe::kIntUdpPort, int_payload(), true);
  const Run r = run(t, in);
  CHECK(r.verdict == TC_ACT_OK);
  CHECK(r.frame == in);
  CHECK(counted(t, HPN_INT_PUSHED) == 0);
}

TEST_CASE("INT transit: a probe with room gets this hop's node and port IDs, as the model pushes them",
          "[switch][int]") {
  IntTransit t = loaded();
  for (const bool v6 : {false, true}) {
    for (const bool checksum : {true, false}) {
      for (const auto& [bitmap, hop_ml] : std::vector<std::pair<std::uint16_t, std::uint8_t>>{
               {probe::kIntWiringBitmap, 0},  // node, ports: 2 words
               {probe::kIntWiringBitmap | probe::int_bit::hop_latency | probe::int_bit::queue, 0},
               {probe::int_bit::l1_port_ids, 3},  // the ports, then 2 domain-specific words
               {probe::kIntWiringBitmap | probe::int_bit::checksum_complement, 0}}) {
        INFO((v6 ? "IPv6" : "IPv4") << (checksum ? " with" : " without") << " a UDP checksum, bitmap " << bitmap
                                    << ", hop ML " << int{hop_ml});
        Bytes f = frame(v6, probe::kIntUdpPort, int_payload(bitmap, 8, hop_ml), checksum);
        // Three switches in a row, each with its own node ID and port IDs.
        for (std::uint32_t node = 1; node <= 3; ++node) {
          REQUIRE(t.configure(settings(node)));
          const Bytes want = model(udp_payload(f), node, std::pair<std::uint16_t, std::uint16_t>(0x100 + node, 0x200 + node),
                                   probe::IntTransitOutcome::pushed);
          const Run r = run(t, f);
          REQUIRE(r.verdict == TC_ACT_OK);
          CHECK(r.frame.size() == f.size() + (want.size() - udp_payload(f).size()));
          CHECK(udp_payload(r.frame) == want);
          // Everything before the UDP header but the lengths is as it was.
          CHECK(std::equal(r.frame.begin(), r.frame.begin() + 14, f.begin()));
          CHECK(ipv4_checksum_ok(r.frame));
          CHECK(udp_checksum_ok(r.frame));
          CHECK((be16(r.frame, l4_of(r.frame) + 6) == 0) == !checksum);
          f = r.frame;
        }
        // The sink reads three hops, in path order.
        const std::size_t l4 = l4_of(f);
        std::vector<std::byte> udp;
        for (std::size_t i = l4; i < f.size(); ++i) udp.push_back(static_cast<std::byte>(f[i]));
        auto stack = probe::decode_int_udp(udp);
        REQUIRE(stack);
        REQUIRE(stack->hops.size() == 3);
        CHECK(stack->header.remaining_hop_count == 5);
        for (std::uint32_t i = 0; i < 3; ++i) {
          if (bitmap & probe::int_bit::node_id) CHECK(stack->hops[i].node_id->value == i + 1);
          CHECK(stack->hops[i].l1_ingress_port->value == 0x101 + i);
          CHECK(stack->hops[i].l1_egress_port->value == 0x201 + i);
          if (bitmap & probe::int_bit::hop_latency) CHECK(stack->hops[i].hop_latency->unavailable);
        }
      }
    }
  }
  CHECK(counted(t, HPN_INT_PUSHED) == 2 * 2 * 4 * 3);
  CHECK(counted(t, HPN_INT_MALFORMED) == 0);
}

TEST_CASE("INT transit: at a remaining hop count of 0 it sets E and pushes nothing", "[switch][int]") {
  IntTransit t = loaded();
  REQUIRE(t.configure(settings(9)));
  for (const bool v6 : {false, true}) {
    const Bytes in = frame(v6, probe::kIntUdpPort, int_payload(probe::kIntWiringBitmap, 0), true);
    const Bytes want = model(udp_payload(in), 9, std::nullopt, probe::IntTransitOutcome::hop_count_exceeded);
    const Run r = run(t, in);
    CHECK(r.verdict == TC_ACT_OK);
    CHECK(r.frame.size() == in.size());
    CHECK(udp_payload(r.frame) == want);
    CHECK(udp_checksum_ok(r.frame));
  }
  CHECK(counted(t, HPN_INT_EXCEEDED) == 2);
  CHECK(counted(t, HPN_INT_PUSHED) == 0);
}

TEST_CASE("INT transit: with no room left in the shim it sets M and pushes nothing", "[switch][int]") {
  IntTransit t = loaded();
  REQUIRE(t.configure(settings(4)));
  // A stack of 126 two-word hops: shim length 3 + 252 words; one more hop
  // would pass the shim's 8-bit length.
  Bytes payload = int_payload(probe::kIntWiringBitmap, 8);
  payload[1] = static_cast<std::uint8_t>(3 + 252);
  payload.insert(payload.begin() + 16, 252 * 4, 0x5a);
  const Bytes in = frame(true, probe::kIntUdpPort, payload, true);
  const Bytes want = model(udp_payload(in), 4, std::nullopt, probe::IntTransitOutcome::mtu_exceeded);
  const Run r = run(t, in);
  CHECK(r.verdict == TC_ACT_OK);
  CHECK(udp_payload(r.frame) == want);
  CHECK(udp_checksum_ok(r.frame));
  CHECK(counted(t, HPN_INT_MTU) == 1);
}

TEST_CASE("INT transit: what is not an INT probe goes through untouched and uncounted", "[switch][int]") {
  IntTransit t = loaded();
  REQUIRE(t.configure(settings(5)));
  const Bytes payload = int_payload();
  std::vector<Bytes> frames = {frame(false, 4791, payload, true), frame(true, 53, payload, false)};
  Bytes tcp = frame(false, probe::kIntUdpPort, payload, false);
  tcp[kEth + 9] = 6;  // TCP
  frames.push_back(tcp);
  Bytes hop_by_hop = frame(true, probe::kIntUdpPort, payload, false);
  hop_by_hop[kEth + 6] = 0;  // IPv6 next header: hop-by-hop (an IOAM probe)
  frames.push_back(hop_by_hop);
  Bytes arp = frame(false, probe::kIntUdpPort, payload, false);
  arp[12] = 0x08, arp[13] = 0x06;
  frames.push_back(arp);
  for (const auto& in : frames) {
    const Run r = run(t, in);
    CHECK(r.verdict == TC_ACT_OK);
    CHECK(r.frame == in);
  }
  auto c = t.counters();
  REQUIRE(c);
  CHECK(*c == hpn::sw::IntTransitCounters{});
}

TEST_CASE("INT transit: a truncated or malformed stack is counted and forwarded untouched", "[switch][int]") {
  IntTransit t = loaded();
  REQUIRE(t.configure(settings(6)));
  const Bytes good = int_payload();
  std::vector<std::pair<std::string, Bytes>> cases;
  cases.emplace_back("the shim alone", Bytes(good.begin(), good.begin() + 4));
  cases.emplace_back("half the MD header", Bytes(good.begin(), good.begin() + 10));
  Bytes longer = good;
  longer[1] = 40;  // the shim says 160 bytes; the datagram has fewer
  cases.emplace_back("a shim length past the datagram", longer);
  Bytes old = good;
  old[4] = static_cast<std::uint8_t>(0x10 | (old[4] & 0x0f));  // version 1
  cases.emplace_back("an INT 1.0 header", old);
  Bytes not_md = good;
  not_md[0] = static_cast<std::uint8_t>(0x20 | (not_md[0] & 0x0f));  // shim type 2: INT-MX
  cases.emplace_back("a shim of another type", not_md);
  Bytes reserved = good;
  reserved[9] |= 0x02;  // bitmap bit 14
  cases.emplace_back("a reserved instruction bit", reserved);
  Bytes short_ml = good;
  short_ml[6] = static_cast<std::uint8_t>((short_ml[6] & 0xe0) | 1);  // hop ML 1 for two words
  cases.emplace_back("a hop ML shorter than its instructions", short_ml);
  Bytes ragged = good;
  ragged[1] = 4;  // one stack word: not a whole two-word hop
  ragged.insert(ragged.begin() + 16, {0, 0, 0, 1});
  cases.emplace_back("a stack of part of a hop", ragged);
  for (const bool v6 : {false, true}) {
    for (const auto& [what, payload] : cases) {
      INFO(what << (v6 ? " (IPv6)" : " (IPv4)"));
      const Bytes in = frame(v6, probe::kIntUdpPort, payload, true);
      const Run r = run(t, in);
      CHECK(r.verdict == TC_ACT_OK);
      CHECK(r.frame == in);
    }
  }
  // A frame cut inside the UDP header never reaches the INT checks.
  Bytes cut = frame(false, probe::kIntUdpPort, good, false);
  cut.resize(kEth + 20 + 4);
  CHECK(run(t, cut).frame == cut);
  CHECK(counted(t, HPN_INT_MALFORMED) == 2 * cases.size());
  CHECK(counted(t, HPN_INT_PUSHED) == 0);
}

TEST_CASE("INT transit: a port without an INT interface ID is written as unavailable", "[switch][int]") {
  IntTransit t = loaded();
  IntTransitSettings s = settings(8);
  s.ports = {{kOut, 0x208}};  // the ingress has none
  REQUIRE(t.configure(s));
  const Bytes in = frame(false, probe::kIntUdpPort, int_payload(), true);
  const Bytes want = model(udp_payload(in), 8, std::nullopt, probe::IntTransitOutcome::pushed);
  const Run r = run(t, in);
  CHECK(udp_payload(r.frame) == want);
  CHECK(udp_checksum_ok(r.frame));
  CHECK(counted(t, HPN_INT_NO_PORT_ID) == 1);
  // configure() replaces the whole table: the ingress's ID from before is gone.
  REQUIRE(t.configure(settings(8)));
  s.ports.clear();
  REQUIRE(t.configure(s));
  run(t, in);
  CHECK(counted(t, HPN_INT_NO_PORT_ID) == 2);
}

TEST_CASE("INT transit: signalled by DSCP, a RoCE-shaped probe to UDP 4791 is stamped", "[switch][int]") {
  IntTransit t = loaded();
  IntTransitSettings s = settings(10);
  s.udp_port = 0;
  s.dscp = 0x2e;  // the INT code point, as the source marks it
  s.dscp_mask = 0x3f;
  REQUIRE(t.configure(s));
  for (const bool v6 : {false, true}) {
    const Bytes marked = frame(v6, 4791, int_payload(), true, 0x2e);
    const Bytes want = model(udp_payload(marked), 10, std::pair<std::uint16_t, std::uint16_t>(0x10a, 0x20a),
                             probe::IntTransitOutcome::pushed);
    const Run r = run(t, marked);
    CHECK(udp_payload(r.frame) == want);
    CHECK(udp_checksum_ok(r.frame));
    CHECK(ipv4_checksum_ok(r.frame));
    // RoCE's own traffic, another code point, is not touched.
    const Bytes roce = frame(v6, 4791, int_payload(), true, 26);
    CHECK(run(t, roce).frame == roce);
  }
  CHECK(counted(t, HPN_INT_PUSHED) == 2);
}

TEST_CASE("INT transit: a port table larger than the map is refused with the settings before kept", "[switch][int]") {
  IntTransit t = loaded();
  REQUIRE(t.configure(settings(3)));
  IntTransitSettings big = settings(4);
  for (std::uint32_t i = 0; i < HPN_INT_MAX_PORTS; ++i) big.ports.emplace_back(100 + i, 1);
  auto refused = t.configure(big);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "4098 ports with INT interface IDs: the transit holds 4096");
  // Node 3 and its ports still stamp.
  const Bytes in = frame(false, probe::kIntUdpPort, int_payload(), true);
  const Bytes want = model(udp_payload(in), 3, std::pair<std::uint16_t, std::uint16_t>(0x103, 0x203),
                           probe::IntTransitOutcome::pushed);
  CHECK(udp_payload(run(t, in).frame) == want);
}
