// Benchmark of the INT transit eBPF program (switch/int_transit.bpf.c), as
// root:
//   1. its own cost: BPF_PROG_TEST_RUN of a 2-word INT-MD probe (IPv4 and
//      IPv6, with a UDP checksum to update), many repeats, the kernel's
//      time per run;
//   2. a Linux router's forwarding rate: UDP INT probes from a sender
//      namespace through a router namespace to a receiver (veths, prefix
//      hpnB-), probes received per second with the program on the router's
//      egress and without, alternating, the median of --runs each.
// usage: int_transit_bench [--seconds S] [--runs N]
// Figures go in the README with the machine and the date.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "probe/int_md.h"
#include "switch/int_transit.h"
#include "system/netns.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what, int code = 3) {
  std::fprintf(stderr, "int_transit_bench: %s\n", what.c_str());
  std::exit(code);
}

std::vector<std::uint8_t> probe_payload() {
  auto built = hpn::probe::build_int_md({});
  if (!built) die("cannot build an INT-MD header");
  std::vector<std::uint8_t> out;
  for (auto b : *built) out.push_back(static_cast<std::uint8_t>(b));
  out.resize(out.size() + 64, 0x5a);  // the probe's own bytes
  return out;
}

// Ethernet + IP + UDP (checksum set, so the program updates it) + payload.
std::vector<std::uint8_t> frame(bool v6, const std::vector<std::uint8_t>& payload) {
  std::vector<std::uint8_t> f = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, static_cast<std::uint8_t>(v6 ? 0x86 : 0x08),
                                 static_cast<std::uint8_t>(v6 ? 0xdd : 0x00)};
  const std::size_t udp_len = 8 + payload.size();
  if (v6) {
    std::vector<std::uint8_t> ip(40, 0);
    ip[0] = 0x60, ip[4] = static_cast<std::uint8_t>(udp_len >> 8), ip[5] = static_cast<std::uint8_t>(udp_len);
    ip[6] = 17, ip[7] = 64, ip[8] = 0xfd, ip[23] = 1, ip[24] = 0xfd, ip[39] = 2;
    f.insert(f.end(), ip.begin(), ip.end());
  } else {
    const std::size_t total = 20 + udp_len;
    std::vector<std::uint8_t> ip = {0x45, 0, static_cast<std::uint8_t>(total >> 8), static_cast<std::uint8_t>(total),
                                    0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 1, 0, 1};
    f.insert(f.end(), ip.begin(), ip.end());
  }
  const std::uint16_t port = hpn::probe::kIntUdpPort;
  std::vector<std::uint8_t> udp = {0xc0, 0, static_cast<std::uint8_t>(port >> 8), static_cast<std::uint8_t>(port),
                                   static_cast<std::uint8_t>(udp_len >> 8), static_cast<std::uint8_t>(udp_len), 0x12,
                                   0x34};
  f.insert(f.end(), udp.begin(), udp.end());
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

double ns_per_run(const hpn::sw::IntTransit& t, const std::vector<std::uint8_t>& in) {
  auto r = t.test_run(in, 7, 1, 1000000);
  if (!r) die(r.error().message);
  if (r->frame.size() <= in.size()) die("the program pushed nothing in the test run");
  return r->ns_per_run;
}

struct Router {
  std::string a, r, b;
  Router() {
    a = fmt::format("hpnB{}-a", getpid());
    r = fmt::format("hpnB{}-r", getpid());
    b = fmt::format("hpnB{}-b", getpid());
    clear();
    const std::string script = fmt::format(
        "set -e\n"
        "ip netns add {a}; ip netns add {r}; ip netns add {b}\n"
        "ip link add a0 netns {a} type veth peer name ra netns {r}\n"
        "ip link add rb netns {r} type veth peer name b0 netns {b}\n"
        "ip -n {a} addr add 10.9.1.2/24 dev a0; ip -n {r} addr add 10.9.1.1/24 dev ra\n"
        "ip -n {r} addr add 10.9.2.1/24 dev rb; ip -n {b} addr add 10.9.2.2/24 dev b0\n"
        "for ns in {a} {r} {b}; do ip -n $ns link set lo up; done\n"
        "ip -n {a} link set a0 up; ip -n {r} link set ra up; ip -n {r} link set rb up; ip -n {b} link set b0 up\n"
        "ip -n {a} route add default via 10.9.1.1; ip -n {b} route add default via 10.9.2.1\n"
        "ip netns exec {r} sysctl -q -w net.ipv4.ip_forward=1\n",
        fmt::arg("a", a), fmt::arg("r", r), fmt::arg("b", b));
    if (std::system(script.c_str()) != 0) die("cannot build the namespaces (ip, veth)");
  }
  ~Router() { clear(); }
  void clear() {
    for (const auto& ns : {a, r, b}) (void)hpn::lab::delete_named_netns(ns);
  }
};

int socket_in(const std::string& ns, std::uint16_t port) {
  int fd = -1;
  auto made = hpn::lab::run_in_netns(ns, [&]() -> hpn::Status {
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const int one = 1, big = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
    timeval timeout{0, 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in any{};
    any.sin_family = AF_INET;
    any.sin_port = htons(port);
    if (bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0) return hpn::Error{"bind"};
    return {};
  });
  if (!made) die(made.error().message);
  return fd;
}

// Probes per second that reach the receiver in `seconds`.
double forwarded_rate(const Router& net, double seconds) {
  const int rx = socket_in(net.b, hpn::probe::kIntUdpPort);
  const int tx = socket_in(net.a, 0);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(hpn::probe::kIntUdpPort);
  inet_pton(AF_INET, "10.9.2.2", &dst.sin_addr);
  if (connect(tx, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0) die("connect");
  const auto payload = probe_payload();
  std::atomic<bool> stop{false};
  std::atomic<long> received{0};
  std::thread reader([&] {
    constexpr int kBatch = 64;
    std::vector<std::uint8_t> buffers(kBatch * 2048);
    mmsghdr msgs[kBatch];
    iovec iov[kBatch];
    while (!stop) {
      for (int i = 0; i < kBatch; ++i) {
        iov[i] = {buffers.data() + i * 2048, 2048};
        msgs[i] = {};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
      }
      const int n = recvmmsg(rx, msgs, kBatch, 0, nullptr);
      if (n > 0) received += n;
    }
  });
  constexpr int kBatch = 32;
  mmsghdr msgs[kBatch];
  iovec iov{const_cast<std::uint8_t*>(payload.data()), payload.size()};
  for (auto& m : msgs) {
    m = {};
    m.msg_hdr.msg_iov = &iov;
    m.msg_hdr.msg_iovlen = 1;
  }
  // Warm up (ARP), then count from zero.
  for (int i = 0; i < 100; ++i) sendmmsg(tx, msgs, kBatch, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  received = 0;
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < seconds) {
    // A full queue is the router keeping up or not: sendmmsg blocks.
    sendmmsg(tx, msgs, kBatch, 0);
  }
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long got = received;
  stop = true;
  reader.join();
  close(tx);
  close(rx);
  return static_cast<double>(got) / took;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else {
      die("usage: int_transit_bench [--seconds S] [--runs N]", 2);
    }
  }
  if (seconds <= 0 || runs <= 0) die("--seconds and --runs must be positive", 2);
  if (geteuid() != 0) die("needs root (eBPF, namespaces)");

  auto transit = hpn::sw::IntTransit::load();
  if (!transit) die(transit.error().message);
  hpn::sw::IntTransitSettings s;
  s.node_id = 42;
  s.udp_port = hpn::probe::kIntUdpPort;
  s.ports = {{7, 11}, {1, 12}};
  if (auto st = transit->configure(s); !st) die(st.error().message);
  const auto payload = probe_payload();
  for (const bool v6 : {false, true}) {
    std::printf("program, %s probe of %zu bytes: %.0f ns a run (BPF_PROG_TEST_RUN, 1,000,000 repeats)\n",
                v6 ? "IPv6" : "IPv4", frame(v6, payload).size(), ns_per_run(*transit, frame(v6, payload)));
  }

  Router net;
  int rb = 0, ra = 0;
  auto ids = hpn::lab::run_in_netns(net.r, [&]() -> hpn::Status {
    ra = static_cast<int>(if_nametoindex("ra"));
    rb = static_cast<int>(if_nametoindex("rb"));
    return {};
  });
  if (!ids || ra == 0 || rb == 0) die("no router ports");
  s.ports = {{static_cast<std::uint32_t>(ra), 11}, {static_cast<std::uint32_t>(rb), 12}};
  if (auto st = transit->configure(s); !st) die(st.error().message);
  std::vector<double> without, with;
  for (int run = 0; run < runs; ++run) {
    without.push_back(forwarded_rate(net, seconds));
    auto on = hpn::lab::run_in_netns(net.r, [&]() -> hpn::Status { return transit->attach(rb); });
    if (!on) die(on.error().message);
    with.push_back(forwarded_rate(net, seconds));
    auto off = hpn::lab::run_in_netns(net.r, [&]() -> hpn::Status { return hpn::sw::IntTransit::detach(rb); });
    if (!off) die(off.error().message);
  }
  auto counters = transit->counters();
  if (!counters) die(counters.error().message);
  std::printf("router forwarding, IPv4 INT probes of %zu bytes, %.0f s each, median of %d, alternating:\n",
              payload.size(), seconds, runs);
  std::printf("  without the program: %.0f probes/s\n  with the program:    %.0f probes/s (%.2f of without)\n",
              median(without), median(with), median(with) / median(without));
  std::printf("  probes the program stamped: %llu\n",
              static_cast<unsigned long long>((*counters)[HPN_INT_PUSHED]));
  return 0;
}
