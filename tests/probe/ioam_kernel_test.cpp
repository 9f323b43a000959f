// A real transit node: two Linux routers in network namespaces stamp a probe
// built by build_ioam_hbh(), and decode_ioam_hbh() must read back their node
// and interface IDs in path order (FIELD.md §3). Needs root and iproute2 with
// `ip ioam`; skips otherwise.
//
//   h1 (a0) --- (a1) r1 (b0) --- (b1) r2 (c0) --- (c1) h2
//   sender      id 5, if 11/12    id 6, if 21/22     receiver: IPV6_RECVHOPOPTS
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <fstream>
#include <string>

#include "probe/ioam_trace.h"
#include "test_util.h"

using namespace hpn::probe;

namespace {

// The namespaces live as long as this object.
struct Lab {
  std::string prefix = "hpnprobe" + std::to_string(getpid());
  bool ready = false;

  std::string ns(const char* name) const { return prefix + name; }

  Lab() {
    std::string s;
    for (const char* n : {"h1", "r1", "r2", "h2"}) s += "ip netns add " + ns(n) + "\n";
    auto link = [&](const char* a, const char* ia, const char* b, const char* ib) {
      s += "ip link add " + std::string(ia) + " netns " + ns(a) + " type veth peer name " + ib +
           " netns " + ns(b) + "\n";
    };
    link("h1", "a0", "r1", "a1");
    link("r1", "b0", "r2", "b1");
    link("r2", "c0", "h2", "c1");
    auto addr = [&](const char* n, const char* dev, const char* a) {
      s += "ip -n " + ns(n) + " addr add " + a + " dev " + dev + " nodad\n";
      s += "ip -n " + ns(n) + " link set " + dev + " up\n";
    };
    addr("h1", "a0", "2001:db8:1::1/64");
    addr("r1", "a1", "2001:db8:1::2/64");
    addr("r1", "b0", "2001:db8:2::1/64");
    addr("r2", "b1", "2001:db8:2::2/64");
    addr("r2", "c0", "2001:db8:3::1/64");
    addr("h2", "c1", "2001:db8:3::2/64");
    s += "ip -n " + ns("h1") + " route add default via 2001:db8:1::2\n";
    s += "ip -n " + ns("r1") + " route add 2001:db8:3::/64 via 2001:db8:2::2\n";
    s += "ip -n " + ns("r2") + " route add 2001:db8:1::/64 via 2001:db8:2::1\n";
    s += "ip -n " + ns("h2") + " route add default via 2001:db8:3::1\n";
    auto router = [&](const char* n, int id, const char* in, int in_id, const char* out,
                      int out_id) {
      const std::string x = "ip netns exec " + ns(n) + " sysctl -qw net.ipv6.";
      s += x + "conf.all.forwarding=1\n";
      s += x + "ioam6_id=" + std::to_string(id) + "\n";
      s += x + "conf." + in + ".ioam6_enabled=1\n";
      s += x + "conf." + in + ".ioam6_id=" + std::to_string(in_id) + "\n";
      s += x + "conf." + out + ".ioam6_id=" + std::to_string(out_id) + "\n";
      s += "ip -n " + ns(n) + " ioam namespace add 123\n";
    };
    router("r1", 5, "a1", 11, "b0", 12);
    router("r2", 6, "b1", 21, "c0", 22);
    ready = hpn::test::shell_ok(s);
  }
  ~Lab() {
    std::string s;
    for (const char* n : {"h1", "r1", "r2", "h2"}) s += "ip netns del " + ns(n) + " 2>/dev/null\n";
    std::system(s.c_str());
  }
};

// A socket created inside namespace `name`; this thread returns to its own
// namespace afterwards (a socket stays in the namespace it was made in).
int socket_in(const std::string& name) {
  const int self = open("/proc/self/ns/net", O_RDONLY);
  const int target = open(("/run/netns/" + name).c_str(), O_RDONLY);
  int fd = -1;
  if (self >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0) {
    fd = socket(AF_INET6, SOCK_DGRAM, 0);
    setns(self, CLONE_NEWNET);
  }
  if (self >= 0) close(self);
  if (target >= 0) close(target);
  return fd;
}

}  // namespace

TEST_CASE("probe/ioam: Linux routers stamp the probe and the decoder reads them in order",
          "[probe][ioam][kernel]") {
  if (geteuid() != 0 || !std::ifstream("/proc/sys/net/ipv6/ioam6_id") ||
      std::system("ip ioam namespace show >/dev/null 2>&1") != 0) {
    hpn::test::skip("needs root, a kernel with IPv6 IOAM and iproute2 `ip ioam`");
  }
  Lab lab;
  if (!lab.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  const int rx = socket_in(lab.ns("h2"));
  const int tx = socket_in(lab.ns("h1"));
  REQUIRE(rx >= 0);
  REQUIRE(tx >= 0);
  const int on = 1;
  REQUIRE(setsockopt(rx, IPPROTO_IPV6, IPV6_RECVHOPOPTS, &on, sizeof on) == 0);
  timeval timeout{3, 0};
  REQUIRE(setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0);
  sockaddr_in6 local{};
  local.sin6_family = AF_INET6;
  local.sin6_port = htons(9999);
  local.sin6_addr = in6addr_any;
  REQUIRE(bind(rx, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);

  IoamTraceRequest req;
  req.namespace_id = 123;
  req.hops = 4;
  const auto hbh = build_ioam_hbh(req).value();
  REQUIRE(setsockopt(tx, IPPROTO_IPV6, IPV6_HOPOPTS, hbh.data(), hbh.size()) == 0);
  sockaddr_in6 dst{};
  dst.sin6_family = AF_INET6;
  dst.sin6_port = htons(9999);
  REQUIRE(inet_pton(AF_INET6, "2001:db8:3::2", &dst.sin6_addr) == 1);
  REQUIRE(sendto(tx, "hpn", 3, 0, reinterpret_cast<sockaddr*>(&dst), sizeof dst) == 3);

  std::array<char, 64> data{};
  std::array<char, 512> control{};
  iovec iov{data.data(), data.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  const auto got = recvmsg(rx, &msg, 0);
  close(tx);
  close(rx);
  REQUIRE(got == 3);

  std::vector<std::byte> received;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPOPTS) {
      const auto* p = reinterpret_cast<const std::byte*>(CMSG_DATA(c));
      received.assign(p, p + (c->cmsg_len - CMSG_LEN(0)));
    }
  }
  REQUIRE(received.size() == hbh.size());
  auto traces = decode_ioam_hbh(received);
  REQUIRE(traces);
  REQUIRE(traces->size() == 1);
  const auto& t = traces->front();
  CHECK(t.remaining_len == 4);  // 2 of 4 hops used
  CHECK_FALSE(t.overflow());
  REQUIRE(t.hops.size() == 2);
  CHECK(t.hops[0].node_id->value == 5);
  CHECK(t.hops[0].ingress_if->value == 11);
  CHECK(t.hops[0].egress_if->value == 12);
  CHECK(t.hops[0].hop_limit->value == 63);
  CHECK(t.hops[1].node_id->value == 6);
  CHECK(t.hops[1].ingress_if->value == 21);
  CHECK(t.hops[1].egress_if->value == 22);
  CHECK(t.hops[1].hop_limit->value == 62);  // one more hop: the hop limit tells the order
}
