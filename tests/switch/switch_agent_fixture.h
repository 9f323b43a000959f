// Running `hpnctl switch agent` as its systemd unit would, from a test: the
// unit's ExecStart line (deploy/systemd/hpnctl-switch-agent.service) with
// the built binary and the test's configuration, inside a namespace, with
// $NOTIFY_SOCKET on a socket of the test's own; and reading what the
// kernel holds of its routes.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "switchconfig/agent_config.h"
#include "test_util.h"

namespace hpn::test {

// The unit's ExecStart= command, split on spaces.
inline std::vector<std::string> unit_exec_start() {
  std::istringstream unit(read_file(source_path("deploy/systemd/hpnctl-switch-agent.service")));
  for (std::string line; std::getline(unit, line);) {
    if (line.rfind("ExecStart=", 0) != 0) continue;
    std::vector<std::string> argv;
    std::istringstream words(line.substr(10));
    for (std::string w; words >> w;) argv.push_back(w);
    return argv;
  }
  FAIL("the unit has no ExecStart=");
  return {};
}

class AgentProcess {
 public:
  ~AgentProcess() {
    stop(SIGKILL);
    if (notify_ >= 0) close(notify_);
  }

  // Starts the unit's command in `netns`, /usr/bin/hpnctl replaced by the
  // built binary and /etc/hpnctl/switch/switch-agent.json by `config`; stderr is
  // appended to DIR/agent.log.
  bool start(const std::string& netns, const std::string& config, const std::filesystem::path& dir) {
    if (notify_ < 0) {
      notify_path_ = (dir / "notify").string();
      notify_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      std::strncpy(a.sun_path, notify_path_.c_str(), sizeof a.sun_path - 1);
      if (bind(notify_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    }
    log_path_ = (dir / "agent.log").string();
    std::vector<std::string> argv = {"ip", "netns", "exec", netns};
    for (auto w : unit_exec_start()) {
      if (w == "/usr/bin/hpnctl") w = HPNCTL_BINARY;
      if (w == switchconfig::kAgentConfigPath) w = config;
      argv.push_back(w);
    }
    received_.clear();
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      setenv("NOTIFY_SOCKET", notify_path_.c_str(), 1);
      const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (log >= 0) dup2(log, STDERR_FILENO);
      const int null = open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
      }
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    return true;
  }

  // The first notification since start() that contains `text`, waiting up
  // to `timeout` for it; "" if none came.
  std::string wait_for(const std::string& text, std::chrono::seconds timeout = std::chrono::seconds(15)) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (const auto& m : received_) {
        if (m.find(text) != std::string::npos) return m;
      }
      if (std::chrono::steady_clock::now() >= until) return "";
      timeval tv{0, 100000};
      setsockopt(notify_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      char buf[4096];
      const ssize_t n = recv(notify_, buf, sizeof buf, 0);
      if (n > 0) received_.emplace_back(buf, static_cast<size_t>(n));
    }
  }

  void stop(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }

  int pid() const { return pid_; }
  int exit_code() const { return exit_code_; }
  std::string log() const { return read_file(log_path_); }

 private:
  int pid_ = -1, exit_code_ = -1, notify_ = -1;
  std::string notify_path_, log_path_;
  std::vector<std::string> received_;
};

// The routes of `table` and `protocol` in `netns`: "10.0.0.5/32 dev p1".
inline std::set<std::string> routes(const std::string& netns, int table, int protocol) {
  std::set<std::string> out;
  for (const char* family : {"-4", "-6"}) {
    auto r = run_command(fmt::format("ip -n {} {} -j route show table {} proto {}", netns, family, table, protocol));
    REQUIRE(r.exit_code == 0);
    for (const auto& route : nlohmann::json::parse(r.out)) {
      std::string dst = route.value("dst", "");
      if (dst.find('/') == std::string::npos) dst += family[1] == '4' ? "/32" : "/128";
      out.insert(dst + " dev " + route.value("dev", ""));
    }
  }
  return out;
}

// routes() once it equals `want`, or as it is at the timeout.
inline std::set<std::string> wait_for_routes(const std::string& netns, int table, int protocol,
                                             const std::set<std::string>& want,
                                             std::chrono::seconds timeout = std::chrono::seconds(10)) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto now = routes(netns, table, protocol);
    if (now == want || std::chrono::steady_clock::now() >= until) return now;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// `ip monitor route` in a namespace, from construction to stop(): every
// route the kernel added or deleted meanwhile, as iproute2 prints it.
class RouteMonitor {
 public:
  explicit RouteMonitor(const std::string& netns) {
    path_ = (dir_ / "monitor").string();
    pid_ = fork();
    if (pid_ == 0) {
      const int out = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out >= 0) dup2(out, STDOUT_FILENO);
      execlp("ip", "ip", "-n", netns.c_str(), "monitor", "route", static_cast<char*>(nullptr));
      _exit(127);
    }
    // ip subscribes before it prints anything; give it the time to.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  ~RouteMonitor() { (void)stop(); }
  std::string stop() {
    if (pid_ > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    return read_file(path_);
  }

 private:
  TempDir dir_;
  std::string path_;
  int pid_ = -1;
};

}  // namespace hpn::test
