// The INT transit on a real Linux router: three namespaces of their own
// (prefix hpnI-), a sender, a router that forwards with the program on its
// egress port, and a receiver. Probes sent through the router's kernel over
// IPv4 and IPv6 arrive with the router's hop on their stack; taken off,
// they arrive as sent. Root.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <linux/udp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <cstring>
#include <string>
#include <vector>

#include "probe/int_md.h"
#include "switch/int_transit.h"
#include "system/netns.h"
#include "test_util.h"

namespace probe = hpn::probe;

namespace {

struct Router {
  std::string a, r, b;
  Router() {
    a = fmt::format("hpnI{}-a", getpid());
    r = fmt::format("hpnI{}-r", getpid());
    b = fmt::format("hpnI{}-b", getpid());
    clear();
  }
  ~Router() { clear(); }
  void clear() {
    for (const auto& ns : {a, r, b}) (void)hpn::lab::delete_named_netns(ns);
  }
  bool build() const {
    return hpn::test::shell_ok(fmt::format(
        "ip netns add {a}; ip netns add {r}; ip netns add {b}\n"
        // No duplicate address detection: a link-local still tentative when
        // the first probe goes would hold up neighbour discovery past the
        // receiver's timeout.
        "for ns in {a} {r} {b}; do ip netns exec $ns sysctl -q -w net.ipv6.conf.default.accept_dad=0; done\n"
        "ip link add a0 netns {a} type veth peer name ra netns {r}\n"
        "ip link add rb netns {r} type veth peer name b0 netns {b}\n"
        "ip -n {a} addr add 10.9.1.2/24 dev a0; ip -n {a} addr add fd09:1::2/64 dev a0 nodad\n"
        "ip -n {r} addr add 10.9.1.1/24 dev ra; ip -n {r} addr add fd09:1::1/64 dev ra nodad\n"
        "ip -n {r} addr add 10.9.2.1/24 dev rb; ip -n {r} addr add fd09:2::1/64 dev rb nodad\n"
        "ip -n {b} addr add 10.9.2.2/24 dev b0; ip -n {b} addr add fd09:2::2/64 dev b0 nodad\n"
        "for ns in {a} {r} {b}; do ip -n $ns link set lo up; done\n"
        "ip -n {a} link set a0 up; ip -n {r} link set ra up; ip -n {r} link set rb up; ip -n {b} link set b0 up\n"
        "ip -n {a} route add default via 10.9.1.1; ip -n {a} -6 route add default via fd09:1::1\n"
        "ip -n {b} route add default via 10.9.2.1; ip -n {b} -6 route add default via fd09:2::1\n"
        "ip netns exec {r} sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1\n",
        fmt::arg("a", a), fmt::arg("r", r), fmt::arg("b", b)));
  }
};

// A UDP socket made in namespace `ns`, bound to `port` (0: any).
int udp_socket(const std::string& ns, bool v6, std::uint16_t port) {
  int fd = -1;
  REQUIRE(hpn::lab::run_in_netns(ns, [&]() -> hpn::Status {
    fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return hpn::Error{"socket"};
    // No UDP checksum (IPv4's 0, IPv6's with UDP_NO_CHECK6_*), as the
    // probe agent sends INT probes: the transit on a port whose peer left
    // the checksum to offload could not update it.
    const int one = 1;
    if (v6) {
      setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_TX, &one, sizeof one);
      setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, &one, sizeof one);
    } else {
      setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof one);
    }
    timeval timeout{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_storage any{};
    socklen_t len = 0;
    if (v6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&any);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons(port);
      len = sizeof(*in6);
    } else {
      auto* in = reinterpret_cast<sockaddr_in*>(&any);
      in->sin_family = AF_INET;
      in->sin_port = htons(port);
      len = sizeof(*in);
    }
    if (bind(fd, reinterpret_cast<sockaddr*>(&any), len) != 0) return hpn::Error{"bind"};
    return {};
  }));
  return fd;
}

std::vector<std::byte> probe_bytes() {
  auto built = probe::build_int_md({});
  REQUIRE(built);
  std::vector<std::byte> out = *built;
  for (char c : std::string("sealed probe")) out.push_back(static_cast<std::byte>(c));
  return out;
}

// Sends one probe from `from` to `to` and returns what arrived.
std::vector<std::byte> through(int from, int to, bool v6) {
  const auto sent = probe_bytes();
  sockaddr_storage dst{};
  socklen_t len = 0;
  if (v6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&dst);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(probe::kIntUdpPort);
    inet_pton(AF_INET6, "fd09:2::2", &in6->sin6_addr);
    len = sizeof(*in6);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&dst);
    in->sin_family = AF_INET;
    in->sin_port = htons(probe::kIntUdpPort);
    inet_pton(AF_INET, "10.9.2.2", &in->sin_addr);
    len = sizeof(*in);
  }
  REQUIRE(sendto(from, sent.data(), sent.size(), 0, reinterpret_cast<sockaddr*>(&dst), len) ==
          static_cast<ssize_t>(sent.size()));
  std::vector<std::byte> got(2048);
  const ssize_t n = recv(to, got.data(), got.size(), 0);
  got.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return got;  // empty: nothing came within the socket's timeout
}

}  // namespace

TEST_CASE("INT transit: a Linux router with the program on its egress stamps the probes it forwards",
          "[switch][int][netns]") {
  if (geteuid() != 0) hpn::test::skip("namespaces and eBPF need root");
  Router net;
  REQUIRE(net.build());
  auto transit = hpn::sw::IntTransit::load();
  if (!transit) FAIL(transit.error().message);
  REQUIRE(hpn::lab::run_in_netns(net.r, [&]() -> hpn::Status {
    hpn::sw::IntTransitSettings s;
    s.node_id = 42;
    s.udp_port = probe::kIntUdpPort;
    s.ports = {{if_nametoindex("ra"), 11}, {if_nametoindex("rb"), 12}};
    if (auto st = transit->configure(s); !st) return st;
    return transit->attach(static_cast<int>(if_nametoindex("rb")));
  }));
  for (const bool v6 : {false, true}) {
    INFO((v6 ? "IPv6" : "IPv4"));
    const int rx = udp_socket(net.b, v6, probe::kIntUdpPort);
    const int tx = udp_socket(net.a, v6, 0);
    const auto got = through(tx, rx, v6);
    if (got.empty()) {
      auto c = transit->counters();
      REQUIRE(c);
      FAIL("no probe arrived; the program counted pushed " << (*c)[HPN_INT_PUSHED] << ", malformed "
                                                            << (*c)[HPN_INT_MALFORMED] << ", MTU " << (*c)[HPN_INT_MTU]
                                                            << ", failed " << (*c)[HPN_INT_FAILED]);
    }
    auto stack = probe::decode_int_md(got);
    REQUIRE(stack);
    REQUIRE(stack->hops.size() == 1);
    CHECK(stack->hops[0].node_id->value == 42);
    CHECK(stack->hops[0].l1_ingress_port->value == 11);
    CHECK(stack->hops[0].l1_egress_port->value == 12);
    CHECK(stack->header.remaining_hop_count == 7);
    // The probe's own bytes after the stack, as sent.
    const auto sent = probe_bytes();
    CHECK(std::equal(sent.begin() + 16, sent.end(), got.begin() + static_cast<long>(stack->payload_offset)));
    close(tx);
    close(rx);
  }
  auto counters = transit->counters();
  REQUIRE(counters);
  CHECK((*counters)[HPN_INT_PUSHED] == 2);

  // Taken off, the router forwards the probe as it came.
  REQUIRE(hpn::lab::run_in_netns(net.r, [&]() -> hpn::Status {
    return hpn::sw::IntTransit::detach(static_cast<int>(if_nametoindex("rb")));
  }));
  const int rx = udp_socket(net.b, false, probe::kIntUdpPort);
  const int tx = udp_socket(net.a, false, 0);
  CHECK(through(tx, rx, false) == probe_bytes());
  close(tx);
  close(rx);
}
