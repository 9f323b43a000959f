// The probe agent end to end on real kernels: `hpnctl probe listen` in one
// network namespace, `hpnctl probe send` in another, a Linux router between
// them as the IOAM transit node (FIELD.md §3). Needs root and `ip ioam`;
// skips with a warning otherwise.
//
//   host-a (a0) --- (r0) router id 7 (r1) --- (b0) host-b
//   2001:db8:1::1    if 11         if 12       2001:db8:2::2
//   port etp1a                                 port etp5b
#include "probe/observation.h"  // first: see agent_output_test.cpp

#include <fcntl.h>
#include <sys/stat.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"
#include "support/schema.h"

using hpn::probe::Observation;
using hpn::probe::ProbeDirection;

namespace {

// The three namespaces, removed when this goes out of scope, whatever failed.
struct Lab {
  std::string prefix = "hpnagent" + std::to_string(getpid());
  bool ready = false;
  std::string ns(const char* name) const { return prefix + name; }

  Lab() {
    const std::string a = ns("a"), r = ns("r"), b = ns("b");
    std::string s;
    for (const auto& n : {a, r, b}) {
      s += "ip netns add " + n + "\n";
      // Before the veths exist, so their link-local addresses are usable at
      // once: a tentative one holds up neighbour discovery (and with it the
      // first replies) for the second DAD takes.
      s += "ip netns exec " + n + " sysctl -qw net.ipv6.conf.default.accept_dad=0\n";
    }
    s += "ip link add a0 netns " + a + " type veth peer name r0 netns " + r + "\n";
    s += "ip link add r1 netns " + r + " type veth peer name b0 netns " + b + "\n";
    auto addr = [&](const std::string& n, const char* dev, const char* address) {
      s += "ip -n " + n + " addr add " + address + " dev " + dev + " nodad\n";
      s += "ip -n " + n + " link set " + dev + " up\n";
    };
    addr(a, "a0", "2001:db8:1::1/64");
    addr(r, "r0", "2001:db8:1::2/64");
    addr(r, "r1", "2001:db8:2::1/64");
    addr(b, "b0", "2001:db8:2::2/64");
    for (const auto& n : {a, r, b}) s += "ip -n " + n + " link set lo up\n";
    s += "ip -n " + a + " route add default via 2001:db8:1::2\n";
    s += "ip -n " + b + " route add default via 2001:db8:2::1\n";
    const std::string x = "ip netns exec " + r + " sysctl -qw net.ipv6.";
    s += x + "conf.all.forwarding=1\n" + x + "ioam6_id=7\n";
    // Both ports are ingress for one direction: each stamps with its own id.
    s += x + "conf.r0.ioam6_enabled=1\n" + x + "conf.r0.ioam6_id=11\n";
    s += x + "conf.r1.ioam6_enabled=1\n" + x + "conf.r1.ioam6_id=12\n";
    s += "ip -n " + r + " ioam namespace add 123\n";
    // IPv6 on an interface starts when the kernel has seen its carrier, up
    // to a second after `link set up` (link events are rate-limited): until
    // then its link-local address and multicast route are missing and
    // neighbour solicitations to it are dropped. Wait for the link-locals.
    s += "for i in $(seq 100); do ok=1\n";
    for (const auto& [n, dev] : {std::pair{a, "a0"}, {r, "r0"}, {r, "r1"}, {b, "b0"}}) {
      s += "  [ -n \"$(ip -n " + n + " -6 addr show dev " + dev + " scope link)\" ] || ok=0\n";
    }
    s += "  [ $ok = 1 ] && break; sleep 0.05\ndone\n[ $ok = 1 ]\n";
    ready = hpn::test::shell_ok(s);
  }
  ~Lab() {
    std::system(("for n in a r b; do ip netns del " + prefix + "$n 2>/dev/null; done").c_str());
  }
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;
};

// `ip netns exec NS hpnctl ARGS...` in the background, its output in files;
// terminated and reaped when this goes out of scope.
class Background {
 public:
  Background(const std::string& netns, const std::vector<std::string>& args, const std::string& out,
             const std::string& err) {
    std::vector<std::string> argv = {"ip", "netns", "exec", netns, HPNCTL_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      std::vector<char*> c;
      for (auto& a : argv) c.push_back(a.data());
      c.push_back(nullptr);
      execvp("ip", c.data());
      _exit(127);
    }
  }
  ~Background() { stop(); }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  // SIGTERM, then its exit code (-1 when it did not exit normally).
  int stop() {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
};

bool wait_for_text(const std::string& path, const std::string& text, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (hpn::test::read_file(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A datagram from inside namespace `netns` (this thread returns to its own).
void send_from(const std::string& netns, const char* address, int port, const std::string& bytes) {
  const int self = open("/proc/self/ns/net", O_RDONLY);
  const int target = open(("/run/netns/" + netns).c_str(), O_RDONLY);
  if (self >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0) {
    const int fd = socket(AF_INET6, SOCK_DGRAM, 0);
    setns(self, CLONE_NEWNET);
    sockaddr_in6 to{};
    to.sin6_family = AF_INET6;
    to.sin6_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET6, address, &to.sin6_addr);
    sendto(fd, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    close(fd);
  }
  if (self >= 0) close(self);
  if (target >= 0) close(target);
}

std::string quoted(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " '" + a + "'";
  return s;
}

hpn::test::RunResult run_in(const std::string& netns, const std::vector<std::string>& args,
                            const hpn::test::TempDir& dir) {
  hpn::test::TempDir capture;
  const std::string command = "ip netns exec " + netns + " '" + HPNCTL_BINARY + "'" + quoted(args) + " >'" +
                              (capture / "out").string() + "' 2>'" + (capture / "err").string() + "' </dev/null";
  const int st = std::system(("cd '" + dir.path().string() + "' && " + command).c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, hpn::test::read_file(capture / "out"),
          hpn::test::read_file(capture / "err")};
}

void require_ioam() {
  if (geteuid() != 0 || !std::ifstream("/proc/sys/net/ipv6/ioam6_id") ||
      std::system("ip ioam namespace show >/dev/null 2>&1") != 0) {
    hpn::test::skip("needs root, a kernel with IPv6 IOAM and iproute2 `ip ioam`");
  }
}

// Every agent started from here gets this key through the environment.
const char* const kKey = "5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9011a2b3c4d5";

// The agents write their files as `nobody`, the user they drop to.
void agent_key_and_dir(const hpn::test::TempDir& dir, const char* key = kKey) {
  REQUIRE(setenv("HPNCTL_PROBE_KEY", key, 1) == 0);
  passwd* pw = getpwnam("nobody");
  REQUIRE(pw != nullptr);
  REQUIRE(chown(dir.path().c_str(), pw->pw_uid, pw->pw_gid) == 0);
}

// The pid in the listener's "listening on ... (run R, pid N)" line.
pid_t listener_pid(const std::string& err_file) {
  const std::string text = hpn::test::read_file(err_file);
  const auto at = text.find("pid ");
  return at == std::string::npos ? -1 : static_cast<pid_t>(std::stol(text.substr(at + 4)));
}

std::string status_line(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) == 0) {
      line = line.substr(name.size() + 1);
      line.erase(0, line.find_first_not_of(" \t"));
      return line;
    }
  }
  return "";
}

void check_hop(const hpn::probe::ObservedHop& h, int node, int in, int out) {
  CHECK(h.node_id == node);
  CHECK(h.ingress_if == in);
  CHECK(h.egress_if == out);
  CHECK(h.hop_limit == 63);  // sent with 64, one router
}

}  // namespace

TEST_CASE("agent/netns: a probe and its reply record the router both ways round", "[agent][netns]") {
  require_ioam();
  Lab lab;
  if (!lab.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  hpn::test::TempDir dir;
  agent_key_and_dir(dir);
  Background listener(lab.ns("b"),
                      {"probe", "listen", "--interfaces", "b0", "--port-name", "b0=etp5b", "--duration", "30", "--run",
                       "e2e"},
                      (dir / "listen.out").string(), (dir / "listen.err").string());
  REQUIRE(wait_for_text((dir / "listen.err").string(), "listening on b0 port 17768", std::chrono::seconds(5)));
  // The running listener: user nobody in every id, CAP_NET_RAW (bit 13) and
  // nothing else, no way back.
  const pid_t pid = listener_pid((dir / "listen.err").string());
  REQUIRE(pid > 0);
  CHECK(status_line(pid, "Uid") == "65534\t65534\t65534\t65534");
  CHECK(status_line(pid, "Gid") == "65534\t65534\t65534\t65534");
  CHECK(status_line(pid, "Groups").empty());
  CHECK(status_line(pid, "CapEff") == "0000000000002000");
  CHECK(status_line(pid, "CapPrm") == "0000000000002000");
  CHECK(status_line(pid, "CapBnd") == "0000000000002000");
  CHECK(status_line(pid, "CapInh") == "0000000000000000");
  CHECK(status_line(pid, "CapAmb") == "0000000000000000");
  CHECK(status_line(pid, "NoNewPrivs") == "1");
  // The key it was given is gone from its environment.
  CHECK(hpn::test::read_file("/proc/" + std::to_string(pid) + "/environ").find(kKey) == std::string::npos);
  // Garbage first: the listener counts it and carries on.
  send_from(lab.ns("a"), "2001:db8:2::2", 17768, "not a probe");

  hpn::test::write_file(dir / "status.json",
                        R"({"devices": [{"name": "host-a", "ports": [{"port": "etp1a", "ifname": "a0"}]}]})");
  const auto sent = run_in(lab.ns("a"),
                           {"probe", "send", "--from", "etp1a", "--to", "host-b=2001:db8:2::2", "--probes", "4",
                            "--source-ports", "40000-40003", "--device-name", "host-a", "--ports-from",
                            "status.json", "--run", "e2e", "--timeout", "1000", "--retries", "1", "-o", "obs.jsonl"},
                           dir);
  INFO(sent.err);
  REQUIRE(sent.exit_code == 0);
  CHECK(sent.out.find("run e2e: 4 probes, 4 answered (0 late), 0 lost") != std::string::npos);

  CHECK(hpn::test::schema_errors("observation.schema.json", dir / "obs.jsonl", true) == "");
  auto obs = hpn::probe::read_observation_file((dir / "obs.jsonl").string());
  REQUIRE(obs);
  REQUIRE(obs->size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    const Observation& o = (*obs)[i];
    INFO("observation " << i);
    CHECK(o.run == "e2e");
    CHECK(o.probe == i / 2);
    CHECK(o.received);
    REQUIRE(o.hops.size() == 1);
    if (i % 2 == 0) {
      CHECK(o.direction == ProbeDirection::forward);
      CHECK(o.src_device == "host-a");
      CHECK(o.src_port == "etp1a");
      CHECK(o.src_address == "2001:db8:1::1");
      CHECK(o.src_udp_port == 40000 + static_cast<int>(i / 2));
      CHECK(o.dst_device == "host-b");
      CHECK(o.dst_address == "2001:db8:2::2");
      CHECK(o.dst_udp_port == 17768);
      CHECK(o.rx_port == "etp5b");
      check_hop(o.hops[0], 7, 11, 12);
    } else {
      CHECK(o.direction == ProbeDirection::reverse);
      CHECK(o.src_device == "host-b");
      CHECK(o.src_port == "etp5b");
      CHECK(o.src_address == "2001:db8:2::2");
      CHECK(o.src_udp_port == 17768);
      CHECK(o.dst_device == "host-a");
      CHECK(o.dst_address == "2001:db8:1::1");
      CHECK(o.rx_port == "etp1a");
      check_hop(o.hops[0], 7, 12, 11);
    }
    CHECK(o.sent_ns > 0);
    CHECK(o.received_ns >= o.sent_ns - 1'000'000);  // one clock here; allow for timestamp sources
  }
  CHECK(listener.stop() == 0);
  const auto counts = hpn::test::read_file(dir / "listen.out");
  // The garbage never reached the responder: too short to carry a seal.
  CHECK(counts == "received 4, answered 4, train datagrams counted 0, send errors 0; ignored: foreign 0, unknown "
                  "version 0, not a probe 0, malformed 0, without trace 0; rejected: bad length 1, bad hmac 0, wrong "
                  "run 0, replay 0, rate limited 0\n");
}

TEST_CASE("agent/netns: with nobody listening every probe is lost, within the time budget", "[agent][netns]") {
  require_ioam();
  Lab lab;
  if (!lab.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  hpn::test::TempDir dir;
  agent_key_and_dir(dir);
  const auto start = std::chrono::steady_clock::now();
  const auto sent = run_in(lab.ns("a"),
                           {"probe", "send", "--from", "a0", "--to", "host-b=2001:db8:2::2", "--probes", "2",
                            "--timeout", "200", "--retries", "1", "--device-name", "host-a", "-o", "obs.jsonl"},
                           dir);
  const auto took = std::chrono::steady_clock::now() - start;
  INFO(sent.err);
  REQUIRE(sent.exit_code == 0);
  // Two rounds of attempts, 200 ms each, paced at 1000/s: the budget is about
  // 0.4 s; the process start and the namespace switch add a little.
  CHECK(took >= std::chrono::milliseconds(400));
  CHECK(took < std::chrono::milliseconds(2000));
  CHECK(hpn::test::schema_errors("observation.schema.json", dir / "obs.jsonl", true) == "");
  auto obs = hpn::probe::read_observation_file((dir / "obs.jsonl").string());
  REQUIRE(obs);
  REQUIRE(obs->size() == 2);
  for (const auto& o : *obs) {
    CHECK(o.direction == ProbeDirection::forward);
    CHECK_FALSE(o.received);
    CHECK(o.hops.empty());
    CHECK(o.src_port == "a0");  // no mapping given: the interface name
  }
  CHECK(sent.out.find("2 probes, 0 answered (0 late), 2 lost") != std::string::npos);
}

TEST_CASE("agent/netns: a missing interface or a bad argument is refused with the right exit code",
          "[agent][netns]") {
  require_ioam();
  Lab lab;
  if (!lab.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  hpn::test::TempDir dir;
  agent_key_and_dir(dir);
  auto missing = run_in(lab.ns("a"), {"probe", "send", "--from", "eth7", "--to", "b=2001:db8:2::2", "-o", "x"}, dir);
  CHECK(missing.exit_code == 3);
  CHECK(missing.err == "hpnctl: --from no interface 'eth7' here\n");
  auto bad = run_in(lab.ns("a"), {"probe", "send", "--from", "a0", "--to", "b=10.1.1.1", "-o", "x"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: --to 'b=10.1.1.1': '10.1.1.1' is not an IPv6 address\n");
  auto listen = run_in(lab.ns("b"), {"probe", "listen", "--interfaces", "nope0", "--duration", "1", "--run", "r"}, dir);
  CHECK(listen.exit_code == 3);
  CHECK(listen.err == "hpnctl: bind to interface nope0: No such device\n");
  // Output the agent could not write once it runs as nobody: refused before
  // the first probe, not after the run.
  std::filesystem::create_directory(dir / "root-only");
  REQUIRE(chmod((dir / "root-only").c_str(), 0700) == 0);
  auto unwritable = run_in(lab.ns("b"), {"probe", "listen", "--interfaces", "b0", "--duration", "1", "--run", "r",
                                         "-o", "root-only/seen.jsonl"},
                           dir);
  CHECK(unwritable.exit_code == 3);
  CHECK(unwritable.err == "hpnctl: -o root-only/seen.jsonl: directory root-only is not writable by user nobody, "
                          "which the agent runs as once its sockets are open (see --user)\n");
  auto to_root = run_in(lab.ns("b"), {"probe", "listen", "--interfaces", "b0", "--duration", "1", "--run", "r",
                                      "--user", "root"},
                        dir);
  CHECK(to_root.exit_code == 3);
  CHECK(to_root.err == "hpnctl: --user root: the agent drops to an unprivileged user, not to uid/gid 0\n");
}

TEST_CASE("agent/netns: a listener with another key or of another run answers nothing and says why",
          "[agent][netns]") {
  require_ioam();
  Lab lab;
  if (!lab.ready) {
    hpn::test::skip("could not build the network namespaces");
  }
  struct Case {
    const char* what;
    const char* listener_key;
    const char* listener_run;
    const char* counted;
  };
  for (const Case& c : {Case{"another key", "00112233445566778899aabbccddeeff", "r1", "bad hmac 3"},
                        Case{"another run", kKey, "r2", "wrong run 3"}}) {
    INFO(c.what);
    hpn::test::TempDir dir;
    agent_key_and_dir(dir, c.listener_key);
    Background listener(lab.ns("b"), {"probe", "listen", "--interfaces", "b0", "--duration", "30", "--run",
                                      c.listener_run},
                        (dir / "listen.out").string(), (dir / "listen.err").string());
    REQUIRE(wait_for_text((dir / "listen.err").string(), "listening on b0", std::chrono::seconds(5)));
    REQUIRE(setenv("HPNCTL_PROBE_KEY", kKey, 1) == 0);
    const auto sent = run_in(lab.ns("a"),
                             {"probe", "send", "--from", "a0", "--to", "host-b=2001:db8:2::2", "--probes", "3",
                              "--run", "r1", "--timeout", "200", "--retries", "0", "--device-name", "host-a",
                              "-o", "obs.jsonl"},
                             dir);
    INFO(sent.err);
    REQUIRE(sent.exit_code == 0);
    CHECK(sent.out.find("3 probes, 0 answered (0 late), 3 lost") != std::string::npos);
    CHECK(listener.stop() == 0);
    const auto counts = hpn::test::read_file(dir / "listen.out");
    INFO(counts);
    CHECK(counts.find("received 0, answered 0") == 0);
    CHECK(counts.find(c.counted) != std::string::npos);
  }
}
