// A listener under attack, on real kernels: `hpnctl probe listen` in one
// network namespace answers a real `hpnctl probe send` in another while a
// flooder beside the sender throws at it random bytes, probes with a forged
// seal, sealed probes of another run, truncated Hop-by-Hop headers and short
// payloads, replays of the sender's own probes captured off the wire (same
// addresses, ports and bytes, re-sent through a raw socket), and sealed
// fresh probes far over the per-source rate. Needs root; skips otherwise.
//
//   hpnF-PID-a (a0) ------------------ (b0) hpnF-PID-b
//   2001:db8:f::1 sender                2001:db8:f::2 listener
//   2001:db8:f::9 flooder
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "probe/agent_trace.h"
#include "probe/payload.h"
#include "probe/probe_auth.h"
#include "probe/probe_key.h"
#include "test_util.h"

using namespace hpn::probe;

namespace {

const std::string kKeyHex = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
constexpr const char* kSender = "2001:db8:f::1";
constexpr const char* kFlooder = "2001:db8:f::9";
constexpr const char* kListener = "2001:db8:f::2";

struct Pair {
  std::string a = "hpnF-" + std::to_string(getpid()) + "-a", b = "hpnF-" + std::to_string(getpid()) + "-b";
  bool ready = false;
  Pair() {
    std::string s;
    for (const auto& n : {a, b}) s += "ip netns add " + n + "\nip netns exec " + n + " sysctl -qw net.ipv6.conf.default.accept_dad=0\n";
    s += "ip link add a0 netns " + a + " type veth peer name b0 netns " + b + "\n";
    // The newest address is listed first, and the sender takes the first:
    // the flooder's goes in before.
    s += "ip -n " + a + " addr add " + kFlooder + "/64 dev a0 nodad\n";
    s += "ip -n " + a + " addr add " + kSender + "/64 dev a0 nodad\n";
    s += "ip -n " + b + " addr add " + kListener + "/64 dev b0 nodad\n";
    for (const auto& [n, dev] : {std::pair{a, "a0"}, {b, "b0"}}) {
      s += "ip -n " + n + " link set " + dev + " up\nip -n " + n + " link set lo up\n";
    }
    s += "for i in $(seq 100); do [ -n \"$(ip -n " + a + " -6 addr show dev a0 scope link)\" ] && "
         "[ -n \"$(ip -n " + b + " -6 addr show dev b0 scope link)\" ] && break; sleep 0.05; done\n";
    ready = hpn::test::shell_ok(s);
  }
  ~Pair() { std::system(("ip netns del " + a + " 2>/dev/null; ip netns del " + b + " 2>/dev/null").c_str()); }
};

std::vector<std::byte> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(rng());
  return out;
}

std::array<std::uint8_t, 16> address(const char* text) {
  std::array<std::uint8_t, 16> a{};
  inet_pton(AF_INET6, text, a.data());
  return a;
}

// IPv6 (next header 0) + `hbh` + UDP from `sport` to 17768 + `payload`, with
// the UDP checksum right (RFC 8200 §8.1), for the raw socket.
std::vector<std::byte> raw_packet(const char* src, const char* dst, std::span<const std::byte> hbh,
                                  std::span<const std::byte> payload, std::uint16_t sport) {
  const auto s = address(src), d = address(dst);
  hpn::probe::ByteWriter udp;
  udp.be16(sport).be16(kDefaultProbePort).be16(static_cast<std::uint16_t>(8 + payload.size())).be16(0).bytes(payload);
  auto u = std::move(udp).take();
  std::uint32_t sum = 17 + static_cast<std::uint32_t>(u.size());
  for (std::size_t i = 0; i < 16; i += 2) sum += (s[i] << 8 | s[i + 1]) + (d[i] << 8 | d[i + 1]);
  for (std::size_t i = 0; i < u.size(); i += 2) {
    sum += std::to_integer<unsigned>(u[i]) << 8 | (i + 1 < u.size() ? std::to_integer<unsigned>(u[i + 1]) : 0);
  }
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const std::uint16_t c = static_cast<std::uint16_t>(~sum) == 0 ? 0xFFFF : static_cast<std::uint16_t>(~sum);
  u[6] = static_cast<std::byte>(c >> 8);
  u[7] = static_cast<std::byte>(c & 0xFF);
  hpn::probe::ByteWriter ip;
  ip.be32(0x60000000).be16(static_cast<std::uint16_t>(hbh.size() + u.size())).u8(0).u8(64);
  for (auto b : s) ip.u8(b);
  for (auto b : d) ip.u8(b);
  ip.bytes(hbh).bytes(u);
  return std::move(ip).take();
}

// The UDP checksum of an IPv6 packet whose first extension is a Hop-by-Hop
// header (RFC 8200 §8.1); false when it is not such a packet.
bool finish_udp_checksum(std::vector<std::byte>& p) {
  auto at = [&](std::size_t i) { return std::to_integer<std::uint32_t>(p[i]); };
  if (p.size() < 48 || at(6) != 0) return false;
  const std::size_t udp = 40 + (at(41) + 1) * 8;
  if (at(40) != 17 || p.size() < udp + 8) return false;
  p[udp + 6] = p[udp + 7] = std::byte{0};
  const std::size_t len = p.size() - udp;
  std::uint32_t sum = 17 + static_cast<std::uint32_t>(len);
  for (std::size_t i = 8; i < 40; i += 2) sum += at(i) << 8 | at(i + 1);
  for (std::size_t i = udp; i < p.size(); i += 2) sum += at(i) << 8 | (i + 1 < p.size() ? at(i + 1) : 0);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  std::uint16_t c = static_cast<std::uint16_t>(~sum);
  if (c == 0) c = 0xFFFF;
  p[udp + 6] = static_cast<std::byte>(c >> 8);
  p[udp + 7] = static_cast<std::byte>(c & 0xFF);
  return true;
}

struct FloodSent {
  std::uint64_t random = 0, forged = 0, other_run = 0, replays = 0, truncated_hbh = 0, short_payload = 0,
                over_rate = 0, captured = 0, raw_errors = 0;
  double seconds = 0;
  std::uint64_t total() const {
    return random + forged + other_run + replays + truncated_hbh + short_payload + over_rate;
  }
};

// The flooder, run in a child inside namespace `netns` for `seconds`, at up
// to `rate` datagrams per second; what it sent comes back through `out`.
[[noreturn]] void flood(const std::string& netns, double seconds, double rate, int out) {
  const int target = open(("/run/netns/" + netns).c_str(), O_RDONLY);
  if (target < 0 || setns(target, CLONE_NEWNET) != 0) _exit(2);
  const unsigned ifindex = if_nametoindex("a0");
  // ETH_P_ALL: only taps of every protocol see outgoing packets.
  const int capture = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK, htons(ETH_P_ALL));
  sockaddr_ll ll{};
  ll.sll_family = AF_PACKET;
  ll.sll_protocol = htons(ETH_P_ALL);
  ll.sll_ifindex = static_cast<int>(ifindex);
  const int raw = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
  const int udp = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_in6 from{};
  from.sin6_family = AF_INET6;
  from.sin6_port = htons(50000);
  inet_pton(AF_INET6, kFlooder, &from.sin6_addr);
  sockaddr_in6 to{};
  to.sin6_family = AF_INET6;
  to.sin6_port = htons(kDefaultProbePort);
  inet_pton(AF_INET6, kListener, &to.sin6_addr);
  if (capture < 0 || bind(capture, reinterpret_cast<sockaddr*>(&ll), sizeof ll) != 0 || raw < 0 || udp < 0 ||
      bind(udp, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    _exit(3);
  }
  auto key = parse_probe_key(kKeyHex, "test");
  GuardOptions other;
  other.run_id = run_id_of("some-other-run");
  GuardOptions same;
  same.run_id = run_id_of("flood");
  auto other_guard = ProbeGuard::create(key.value(), other);
  auto same_guard = ProbeGuard::create(key.value(), same);
  if (!other_guard || !same_guard) _exit(4);
  std::mt19937_64 rng(42);
  FloodSent sent;
  std::deque<std::vector<std::byte>> captured;
  const auto hbh = probe_hop_by_hop(123);
  auto probe_from_flooder = [&](std::uint64_t run) {
    Datagram d;
    d.local = {kFlooder, 50000};
    d.remote = {kListener, kDefaultProbePort};
    ProbeHeader h;
    h.run_id = run;
    h.probe_id = rng() % 1000;
    h.sent_ns = 1;
    d.payload = encode_probe(h);
    return d;
  };
  auto send_udp = [&](std::span<const std::byte> b) {
    sendto(udp, b.data(), b.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  };
  sockaddr_in6 raw_to = to;
  raw_to.sin6_port = 0;  // a raw socket's "port" is its protocol
  auto send_raw = [&](std::span<const std::byte> b) {
    if (sendto(raw, b.data(), b.size(), 0, reinterpret_cast<sockaddr*>(&raw_to), sizeof raw_to) < 0) ++sent.raw_errors;
  };
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  for (std::uint64_t i = 0;; ++i) {
    // Whatever the sender sent since: probes to replay, as they were on the wire.
    std::array<std::byte, 4096> frame;
    sockaddr_ll got{};
    socklen_t len = sizeof got;
    ssize_t n;
    while (i % 16 == 0 && (n = recvfrom(capture, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&got), &len)) > 0) {
      len = sizeof got;
      if (got.sll_pkttype != PACKET_OUTGOING || got.sll_protocol != htons(ETH_P_IPV6) || n < 48 ||
          frame[6] != std::byte{0}) {
        continue;
      }
      if (std::memcmp(frame.data() + 8, address(kSender).data(), 16) != 0) continue;
      ++sent.captured;
      captured.emplace_back(frame.begin(), frame.begin() + n);
      // Captured before the NIC would finish the UDP checksum (veth offload):
      // finish it, or the listener's kernel drops the replay before hpnctl sees it.
      if (!finish_udp_checksum(captured.back())) captured.pop_back();
      if (captured.size() > 256) captured.pop_front();
    }
    switch (i % 7) {
      case 0: send_udp(random_bytes(rng, rng() % 1400)); ++sent.random; break;
      case 1: {  // the shape of a sealed probe, the seal made up
        auto d = probe_from_flooder(same.run_id);
        auto forged = random_bytes(rng, kAuthTrailerSize);
        d.payload.insert(d.payload.end(), forged.begin(), forged.end());
        send_udp(d.payload);
        ++sent.forged;
        break;
      }
      case 2: send_udp(other_guard.value()->seal(probe_from_flooder(other.run_id)).payload); ++sent.other_run; break;
      case 3:
        if (!captured.empty()) {
          send_raw(captured[i / 7 % captured.size()]);
          ++sent.replays;
        }
        break;
      case 4: {  // a Hop-by-Hop header claiming 40 bytes, 8 there
        auto bytes = to_bytes({17, 4, 1, 4, 0, 0, 0, 0});
        ByteWriter ip;
        ip.be32(0x60000000).be16(8).u8(0).u8(64);
        for (auto b : address(kFlooder)) ip.u8(b);
        for (auto b : address(kListener)) ip.u8(b);
        ip.bytes(bytes);
        send_raw(std::move(ip).take());
        ++sent.truncated_hbh;
        break;
      }
      case 5:
        send_raw(raw_packet(kFlooder, kListener, hbh, random_bytes(rng, rng() % 60), 50001));
        ++sent.short_payload;
        break;
      case 6: send_udp(same_guard.value()->seal(probe_from_flooder(same.run_id)).payload); ++sent.over_rate; break;
    }
    if (i % 64 == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) break;
      const auto due = start + std::chrono::duration<double>(static_cast<double>(i) / rate);
      if (due > now) std::this_thread::sleep_until(due);
    }
  }
  sent.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  (void)!write(out, &sent, sizeof sent);
  _exit(0);
}

std::uint64_t vm_rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

std::uint64_t snmp6(const std::string& netns, const std::string& counter) {
  hpn::test::TempDir d;
  std::system(("ip netns exec " + netns + " cat /proc/net/snmp6 > '" + (d / "s").string() + "'").c_str());
  std::istringstream in(hpn::test::read_file(d / "s"));
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) {
    if (name == counter) return value;
  }
  return 0;
}

}  // namespace

TEST_CASE("agent/flood: a listener keeps answering real probes through garbage, forgeries and replays",
          "[agent][netns][flood]") {
  if (geteuid() != 0) {
    hpn::test::skip("needs root for network namespaces and raw sockets");
  }
  Pair pair;
  if (!pair.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  hpn::test::TempDir dir;
  passwd* pw = getpwnam("nobody");
  REQUIRE(pw != nullptr);
  REQUIRE(chown(dir.path().c_str(), pw->pw_uid, pw->pw_gid) == 0);
  REQUIRE(setenv(kProbeKeyVariable, kKeyHex.c_str(), 1) == 0);

  // The listener, its summary as JSON.
  const std::string listen_out = (dir / "listen.out").string(), listen_err = (dir / "listen.err").string();
  const pid_t listener = fork();
  REQUIRE(listener >= 0);
  if (listener == 0) {
    const int o = open(listen_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(listen_err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    if (hpn::test::kAddressSanitizer) {
      // ASan's quarantine holds freed memory back (256 MB by default), which
      // would read as growth; off, what grows is what the listener keeps.
      const char* options = getenv("ASAN_OPTIONS");
      const std::string more = std::string(options ? options : "") + ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
      setenv("ASAN_OPTIONS", more.c_str(), 1);
    }
    execlp("ip", "ip", "netns", "exec", pair.b.c_str(), HPNCTL_BINARY, "probe", "listen", "--interfaces", "b0",
           "--run", "flood", "--duration", "60", "--source-rate", "1000", "--format", "json", nullptr);
    _exit(127);
  }
  struct Reap {
    pid_t pid;
    ~Reap() {
      if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } reap{listener};
  bool up = false;
  for (int i = 0; i < 250 && !up; ++i) {
    up = hpn::test::read_file(listen_err).find("listening on b0") != std::string::npos;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(up);
  const std::uint64_t rss_start = vm_rss_kb(listener);
  const std::uint64_t header_errors_before = snmp6(pair.b, "Ip6InHdrErrors") + snmp6(pair.b, "Ip6InTruncatedPkts");

  // The flood: 3 s at up to 40,000 datagrams per second (the 2-core
  // development machine manages about 15,000).
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  const pid_t flooder = fork();
  REQUIRE(flooder >= 0);
  if (flooder == 0) flood(pair.a, 3.0, 40000, pipefd[1]);
  close(pipefd[1]);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  // The real sender: 1000 probes at 500 per second, retried twice; within
  // the listener's 1000 per source and second, which the flooder's sealed
  // probes exceed.
  hpn::test::RunResult sent;
  std::thread sender([&] {
    const std::string command = "ip netns exec " + pair.a + " '" + HPNCTL_BINARY +
                                "' probe send --from a0 --to host-b=" + kListener +
                                " --probes 1000 --rate 500 --timeout 300 --retries 2 --source-ports 40000-40063"
                                " --run flood --device-name host-a --format json -o obs.jsonl";
    const int st = std::system(("cd '" + dir.path().string() + "' && " + command + " > send.out 2> send.err").c_str());
    sent.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    sent.out = hpn::test::read_file(dir / "send.out");
    sent.err = hpn::test::read_file(dir / "send.err");
  });
  std::uint64_t rss_max = rss_start;
  int status = 0;
  bool flooder_done = false;
  while (!flooder_done) {
    rss_max = std::max(rss_max, vm_rss_kb(listener));
    flooder_done = waitpid(flooder, &status, WNOHANG) == flooder;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sender.join();
  FloodSent flooded;
  REQUIRE(read(pipefd[0], &flooded, sizeof flooded) == static_cast<ssize_t>(sizeof flooded));
  close(pipefd[0]);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  // Still alive under the flood: stop it and read its counts.
  REQUIRE(kill(listener, 0) == 0);
  rss_max = std::max(rss_max, vm_rss_kb(listener));
  kill(listener, SIGTERM);
  int listener_status = 0;
  waitpid(listener, &listener_status, 0);
  reap.pid = -1;
  REQUIRE(WIFEXITED(listener_status));
  CHECK(WEXITSTATUS(listener_status) == 0);
  const auto counts = nlohmann::json::parse(hpn::test::read_file(listen_out), nullptr, false);
  INFO("listener: " << hpn::test::read_file(listen_out) << hpn::test::read_file(listen_err));
  INFO("sender: " << sent.out << sent.err);
  REQUIRE(sent.exit_code == 0);
  const auto result = nlohmann::json::parse(sent.out, nullptr, false);
  REQUIRE(result.is_object());
  REQUIRE(counts.is_object());

  const double rate = static_cast<double>(flooded.total()) / flooded.seconds;
  WARN(fmt::format("flood: {} datagrams in {:.2f} s ({:.0f}/s): {} random, {} forged, {} other run, {} replays of "
                   "{} captured, {} truncated HbH, {} short, {} over rate; sender: {} of 1000 answered, {} retries; "
                   "listener VmRSS {} kB -> max {} kB",
                   flooded.total(), flooded.seconds, rate, flooded.random, flooded.forged, flooded.other_run,
                   flooded.replays, flooded.captured, flooded.truncated_hbh, flooded.short_payload,
                   flooded.over_rate, result["answered"].get<int>(), result["retries"].get<int>(), rss_start,
                   rss_max));
  CHECK(flooded.total() > 20000);  // a flood, not a trickle
  CHECK(flooded.replays > 1000);
  CHECK(flooded.raw_errors == 0);
  // The real probes: nearly all answered (retries cover what the kernel's
  // socket buffer dropped under the flood).
  CHECK(result["answered"].get<int>() >= 950);
  // Every kind of rejection seen and counted, none taken for a probe.
  const auto& r = counts["rejected"];
  CHECK(r["bad_length"].get<std::uint64_t>() > 0);
  CHECK(r["bad_hmac"].get<std::uint64_t>() >= flooded.forged / 2);
  CHECK(r["wrong_run"].get<std::uint64_t>() >= flooded.other_run / 2);
  CHECK(r["replay"].get<std::uint64_t>() >= flooded.replays / 2);
  CHECK(r["rate_limited"].get<std::uint64_t>() > 0);
  // Answered: the real sender's attempts, plus the flooder's over-rate
  // probes up to the rate (those carry no trace: ignored, not answered).
  CHECK(counts["answered"].get<std::uint64_t>() >= result["answered"].get<std::uint64_t>());
  CHECK(counts["answered"].get<std::uint64_t>() <= result["sent"].get<std::uint64_t>());
  CHECK(counts["senders_tracked"].get<int>() <= 2);  // only sealed senders get state
  // The truncated Hop-by-Hop headers reached the kernel and died there.
  CHECK(snmp6(pair.b, "Ip6InHdrErrors") + snmp6(pair.b, "Ip6InTruncatedPkts") > header_errors_before);
  // Bounded memory: the flood adds no state. (ASan's shadow and redzones
  // alone take the baseline past 64 MB; the growth bound holds there too.)
  if (!hpn::test::kAddressSanitizer) CHECK(rss_max < 64 * 1024);
  CHECK(rss_max - rss_start < 4 * 1024);
}
