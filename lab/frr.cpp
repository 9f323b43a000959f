#include "lab/frr.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <fstream>
#include <thread>

#include "blueprint/atomic_file.h"

namespace hpn::lab {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::vector<std::string> RoutingDaemons::names() const {
  std::vector<std::string> out{"zebra", "bgpd"};
  if (pbrd) out.push_back("pbrd");
  return out;
}

namespace {

// The frr user, looked up once: getpwnam() returns static storage, and the
// lab starts switches from several threads at once.
struct FrrUser {
  bool found = false;
  uid_t uid = 0;
  gid_t gid = 0;
};
const FrrUser& frr_user() {
  static const FrrUser user = [] {
    FrrUser u;
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (getpwnam_r("frr", &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
      u = {true, entry.pw_uid, entry.pw_gid};
    }
    return u;
  }();
  return user;
}

}  // namespace

Status check_frr(bool pbrd) {
  std::vector<std::string> needed{std::string(kFrrDaemonDir) + "/zebra", std::string(kFrrDaemonDir) + "/bgpd",
                                  kVtysh};
  if (pbrd) needed.push_back(std::string(kFrrDaemonDir) + "/pbrd");
  for (const auto& path : needed) {
    if (access(path.c_str(), X_OK) != 0) {
      return Error{fmt::format("the lab's switches run FRR, and {} is not installed: install Debian's '{}' "
                               "package (tools/deps.sh does)", path, kFrrPackage)};
    }
  }
  if (!frr_user().found) return Error{fmt::format("no user 'frr': reinstall Debian's '{}' package", kFrrPackage)};
  return {};
}

namespace {

struct Spawn {
  std::string netns;
  std::vector<std::string> argv;
  std::string log;  // stdout and stderr to this file (daemons, which keep them open); else captured
  // Non-empty: the program runs in a UTS namespace of its own with this
  // host name, the switch's, as a switch's OS gives it to FRR (which takes
  // its BGP hostname from the system, not from frr.conf's `hostname`).
  std::string hostname;
};

Result<ProcessResult> spawn(const Spawn& s, std::chrono::milliseconds timeout) {
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  const bool capture = s.log.empty();
  if (capture && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
    return Error{fmt::format("pipe: {}", std::strerror(errno))};
  }
  const std::string path = "/run/netns/" + s.netns;
  std::vector<char*> argv;
  for (const auto& a : s.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Error{fmt::format("fork: {}", std::strerror(errno))};
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec.
    if (!s.netns.empty()) {
      const int ns = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) _exit(126);
    }
    if (!s.hostname.empty() &&
        (unshare(CLONE_NEWUTS) != 0 || sethostname(s.hostname.c_str(), s.hostname.size()) != 0)) {
      _exit(126);
    }
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, STDIN_FILENO);
    if (capture) {
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
    } else {
      const int log = open(s.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
      if (log < 0) _exit(126);
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    setsid();
    execv(argv[0], argv.data());
    _exit(127);
  }
  ProcessResult r;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (capture) {
    close(out[1]);
    close(err[1]);
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      if (poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buffer[8192];
        const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        if (n <= 0) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
          continue;
        }
        (i == 0 ? r.out : r.err).append(buffer, static_cast<size_t>(n));
      }
    }
    for (auto& f : fds) {
      if (f.fd >= 0) close(f.fd);
    }
  }
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.exit_code = -1;
      r.err += fmt::format("{}: no answer within {} ms", s.argv[0], timeout.count());
      return r;
    }
    std::this_thread::sleep_for(5ms);
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Status owned_by_frr(const std::string& path, mode_t mode) {
  const FrrUser& frr = frr_user();
  if (!frr.found) return Error{fmt::format("no user 'frr': install Debian's '{}' package", kFrrPackage)};
  if (chown(path.c_str(), frr.uid, frr.gid) != 0 || chmod(path.c_str(), mode) != 0) {
    return Error{fmt::format("{}: {}", path, std::strerror(errno))};
  }
  return {};
}

Status write_frr_file(const std::string& path, const std::string& text) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  }
  return owned_by_frr(path, 0640);
}


}  // namespace

Result<pid_t> read_pid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  if (!(in >> pid) || pid <= 1) return Error{path + ": no pid"};
  return static_cast<pid_t>(pid);
}

Result<ProcessResult> run_in_namespace(const std::string& netns, const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout) {
  return spawn({netns, argv, {}, {}}, timeout);
}

Status start_routing(const RoutingDaemons& d, const std::string& frr_conf) {
  std::error_code ec;
  fs::create_directories(d.dir, ec);
  if (ec) return Error{fmt::format("{}: {}", d.dir, ec.message())};
  if (auto ok = owned_by_frr(d.dir, 0755); !ok) return ok;
  if (auto ok = write_frr_file(d.config(), frr_conf); !ok) return ok;
  // The pathspace's sockets (vty, zserv) live here; vtysh -N finds them.
  const std::string sockets = std::string(kFrrStateDir) + "/" + d.netns;
  fs::create_directories(sockets, ec);
  if (ec) return Error{fmt::format("{}: {}", sockets, ec.message())};
  if (auto ok = owned_by_frr(kFrrStateDir, 0755); !ok) return ok;
  if (auto ok = owned_by_frr(sockets, 0755); !ok) return ok;
  const std::string log = d.dir + "/frr.log";
  { std::ofstream touch(log, std::ios::app); }
  if (auto ok = owned_by_frr(log, 0640); !ok) return ok;
  // The daemons start empty, as frr.service starts them on a switch (no
  // configuration file of their own: frr.conf is integrated), under the
  // switch's host name; the switch's frr.conf is then given to them as
  // frrinit.sh and an operator do, through vtysh (switches.yml's
  // frr-reload.py applies later changes).
  for (const auto& daemon : d.names()) {
    // -d: the launcher returns once the daemon has opened its sockets, so
    // bgpd finds zebra's socket in place.
    const std::vector<std::string> argv{std::string(kFrrDaemonDir) + "/" + daemon,
                                        "-d",
                                        "-N", d.netns,
                                        "-f", "/dev/null",
                                        "-i", d.dir + "/" + daemon + ".pid",
                                        "--log", "file:" + log};
    auto r = spawn({d.netns, argv, log, d.device}, 15s);
    if (!r) return r.error();
    if (r->exit_code != 0) {
      std::ifstream in(log);
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      std::string said;
      for (size_t i = lines.size() > 6 ? lines.size() - 6 : 0; i < lines.size(); ++i) said += "\n    " + lines[i];
      return Error{fmt::format("{}: {} exited with {}; its log ends:{}", d.device, daemon, r->exit_code, said)};
    }
  }
  auto r = spawn({d.netns, {kVtysh, "-N", d.netns, "-f", d.config()}, {}, {}}, 30s);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    return Error{fmt::format("{}: vtysh -f {} exited with {}: {}", d.device, d.config(), r->exit_code,
                             r->err.empty() ? r->out : r->err)};
  }
  return {};
}

bool process_running(pid_t pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = all.rfind(')');
  return close != std::string::npos && close + 2 < all.size() && all[close + 2] != 'Z';
}

Status stop_routing(const std::vector<RoutingDaemons>& sets, std::chrono::milliseconds grace) {
  std::vector<pid_t> running;
  for (const auto& d : sets) {
    for (const auto& daemon : d.names()) {
      auto pid = read_pid(d.dir + "/" + daemon + ".pid");
      if (pid && kill(*pid, SIGTERM) == 0) running.push_back(*pid);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (pid_t pid : running) {
    while (process_running(pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    if (process_running(pid)) kill(pid, SIGKILL);
  }
  for (const auto& d : sets) {
    std::error_code ec;
    fs::remove_all(std::string(kFrrStateDir) + "/" + d.netns, ec);
  }
  return {};
}

namespace {

std::string log_tail(const std::string& log, size_t lines_wanted) {
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string said;
  for (size_t i = lines.size() > lines_wanted ? lines.size() - lines_wanted : 0; i < lines.size(); ++i) {
    said += "\n    " + lines[i];
  }
  return said;
}

}  // namespace

std::string routing_problem(const RoutingDaemons& d) {
  for (const auto& daemon : d.names()) {
    auto pid = read_pid(d.dir + "/" + daemon + ".pid");
    if (!pid || !process_running(*pid)) return fmt::format("{}'s {} is not running; its log ends:{}", d.device, daemon, log_tail(d.dir + "/frr.log", 6));
  }
  return "";
}

Result<std::string> ask_daemon(const std::string& pathspace, const std::string& daemon, const std::string& command,
                               std::chrono::milliseconds timeout) {
  const std::string path = fmt::format("{}/{}/{}.vty", kFrrStateDir, pathspace, daemon);
  auto failed = [&](const std::string& what, int error) {
    return Error{fmt::format("{}: {} '{}' on {}: {}", pathspace, what, command, path, std::strerror(error))};
  };
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return Error{fmt::format("{}: socket path too long: {}", pathspace, path)};
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("cannot ask", errno);
  auto closing = std::unique_ptr<int, void (*)(int*)>(new int(fd), [](int* f) {
    ::close(*f);
    delete f;
  });
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return failed("cannot ask", errno);
  // vtysh's framing: the command and a NUL out; the daemon's output back,
  // then three NULs and the command's status (0: done).
  const std::string request = command + '\0';
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return failed("cannot ask", errno);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  constexpr size_t kMaxAnswer = 64u << 20;  // far above any show command of a lab switch
  std::string answer;
  char buf[65536];
  while (answer.size() < 4 || answer.compare(answer.size() - 4, 3, std::string(3, '\0')) != 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Error{fmt::format("{}: {} did not answer '{}' within {} s", pathspace, daemon, command,
                                                    timeout.count() / 1000.0)};
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) return failed("cannot read the answer to", errno);
    if (ready <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed("cannot read the answer to", errno);
    if (n == 0) return Error{fmt::format("{}: {} closed its socket before answering '{}'", pathspace, daemon, command)};
    if (answer.size() + static_cast<size_t>(n) > kMaxAnswer) {
      return Error{fmt::format("{}: {}'s answer to '{}' passed {} MiB", pathspace, daemon, command, kMaxAnswer >> 20)};
    }
    answer.append(buf, static_cast<size_t>(n));
  }
  const int status = static_cast<unsigned char>(answer.back());
  answer.resize(answer.size() - 4);
  if (status != 0) return Error{fmt::format("{}: {} refused '{}' (status {}): {}", pathspace, daemon, command, status, answer)};
  return answer;
}

Status vtysh_apply(const RoutingDaemons& d, const std::string& name, const std::string& lines) {
  const std::string path = d.dir + "/" + name;
  if (auto ok = write_frr_file(path, lines); !ok) return ok;
  auto r = spawn({d.netns, {kVtysh, "-N", d.netns, "-f", path}, {}, {}}, 15s);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    return Error{fmt::format("{}: vtysh -f {} exited with {}: {}", d.device, path, r->exit_code,
                             r->err.empty() ? r->out : r->err)};
  }
  return {};
}

}  // namespace hpn::lab
