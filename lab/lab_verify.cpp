#include "lab/lab_verify.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <set>
#include <sys/random.h>
#include <sys/stat.h>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "blueprint/atomic_file.h"
#include "blueprint/names.h"
#include "probe/probe_key.h"
#include "probe/probe_rounds.h"
#include "validator/loss_estimate.h"

extern char** environ;

namespace hpn::lab {
namespace {

namespace fs = std::filesystem;

// The agents drop to `nobody` once their sockets are open (probe/privilege.h):
// they write no file by name. Each gets its output file open as descriptor
// kAgentOutputFd (`-o /dev/fd/3`), made here, as root, in the private work
// directory; nobody writes into that one descriptor and into no directory.
constexpr int kAgentOutputFd = 3;
const std::string kAgentOutput = "/dev/fd/3";

// A child running `hpnctl ARGS` inside a network namespace, entered with
// setns() as `ip netns exec` does; its stdout comes back through a pipe.
class NamespacedChild {
 public:
  NamespacedChild() = default;
  NamespacedChild(const NamespacedChild&) = delete;
  NamespacedChild& operator=(const NamespacedChild&) = delete;
  ~NamespacedChild() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }

  // The child's stdout and stderr go to the pipe (read by wait_for), or to
  // `log` when one is named. `env` is added to this process's environment:
  // how the probe key reaches an agent (never its argv, which ps shows).
  // `output`, when open, is the child's descriptor 3 (kAgentOutput).
  Status start(const std::string& netns, const std::string& binary, const std::vector<std::string>& args,
               const std::string& log = {}, const std::vector<std::string>& env = {}, int output = -1) {
    std::vector<char*> envp;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, probe::kProbeKeyVariable, std::strlen(probe::kProbeKeyVariable)) != 0) envp.push_back(*e);
    }
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
    std::string path = "/run/netns/" + netns;
    pid_ = fork();
    if (pid_ < 0) return Error{fmt::format("fork: {}", std::strerror(errno))};
    if (pid_ == 0) {
      int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) _exit(126);
      int out = log.empty() ? pipefd[1] : open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
      if (out < 0) _exit(126);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      if (output == kAgentOutputFd) {
        fcntl(output, F_SETFD, 0);  // kept across execve
      } else if (output >= 0 && dup2(output, kAgentOutputFd) < 0) {
        _exit(126);
      }
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(binary.c_str()));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execve(binary.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    close(pipefd[1]);
    out_ = pipefd[0];
    return {};
  }

  // Reads stdout until `marker` shows up or `timeout` passes.
  bool wait_for(const std::string& marker, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (output_.find(marker) != std::string::npos) return true;
      pollfd p{out_, POLLIN, 0};
      int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      deadline - std::chrono::steady_clock::now()).count());
      if (poll(&p, 1, std::max(left, 1)) <= 0) continue;
      char buffer[512];
      ssize_t n = read(out_, buffer, sizeof buffer);
      if (n <= 0) return output_.find(marker) != std::string::npos;
      output_.append(buffer, static_cast<size_t>(n));
    }
    return false;
  }

  // Waits for the exit; the exit code, or -1 after a signal.
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void stop() {
    if (pid_ > 0) kill(pid_, SIGTERM);
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string output_;
};

// What the agents of one verify share: a fresh key (handed over in the
// environment) and a random run id, so listeners take this run's probes only.
struct AgentTrust {
  std::vector<std::string> env;
  std::string run;
};

Result<std::string> random_hex(std::size_t bytes) {
  std::vector<unsigned char> random(bytes);
  if (getrandom(random.data(), random.size(), 0) != static_cast<ssize_t>(random.size())) {
    return Error{fmt::format("getrandom: {}", std::strerror(errno))};
  }
  std::string hex;
  for (unsigned char b : random) hex += fmt::format("{:02x}", b);
  return hex;
}

Result<AgentTrust> new_agent_trust() {
  auto key = random_hex(probe::kGeneratedProbeKeyBytes);
  if (!key) return key.error();
  auto run = random_hex(8);
  if (!run) return run.error();
  return AgentTrust{{std::string(probe::kProbeKeyVariable) + "=" + *key}, *run};
}

// The work directory must be what make_work_dir() makes: a directory of
// this user's, no one else's to enter. Nothing here follows a link in it.
Status check_work_dir(const std::string& dir) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return Error{fmt::format("{}: {}", dir, std::strerror(errno))};
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    return Error{fmt::format("{}: not a private directory of this user (mode 0700, made by hpnctl); refusing to "
                             "work in it",
                             dir)};
  }
  return {};
}

Result<int> new_output(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{fmt::format("{}: cannot create: {}", path, std::strerror(errno))};
  return fd;
}

}  // namespace

Result<std::string> make_work_dir(const std::string& purpose) {
  std::string dir = (fs::temp_directory_path() / fmt::format("hpnctl-{}-XXXXXX", purpose)).string();
  if (mkdtemp(dir.data()) == nullptr) {
    return Error{fmt::format("{}: cannot create a work directory: {}", dir, std::strerror(errno))};
  }
  return dir;
}

Result<probe::ObservationSet> probe_lab(const Blueprint& bp, const LabState& lab,
                                                  const std::string& status_json,
                                                  const LabProbeOptions& o, const ProbeProgress& progress,
                                                  std::string* plan_jsonl) {
  auto say = [&](const std::string& s) { if (progress) progress(s); };
  if (auto st = check_work_dir(o.work_dir); !st) return st.error();
  auto trust = new_agent_trust();
  if (!trust) return trust.error();
  const std::string ports_file = (fs::path(o.work_dir) / "lab-status.json").string();
  if (auto st = write_new_file(ports_file, status_json, 0600); !st) return st.error();

  auto scope = probe::parse_scope(o.scope);
  if (!scope) return scope.error();
  auto hosts = probe::hosts_in_scope(bp, scope.value());
  if (!hosts) return hosts.error();

  std::map<std::string, std::string> netns_of;
  std::set<std::pair<std::string, std::string>> wired;  // ports that have an interface in the lab
  for (const auto& d : lab.devices) {
    netns_of[d.name] = d.netns;
    for (const auto& p : d.ports) wired.insert({d.name, p.port});
  }
  const std::string ioam = std::to_string(lab.ioam_namespace);

  // The rounds (probe/probe_rounds.h): the switches' own answers first,
  // each at the pace the switches are asked to answer at, then the rounds
  // between hosts. A port with no cable in the lab has no interface to
  // send from.
  probe::RoundOptions rounds_options{o.plan, o.max_rounds, o.switch_probes, validator::loss_state};
  probe::ProbeRounds rounds(bp, hosts.value(), rounds_options);

  // Listeners on every host the plan sends to: destinations may lie outside the scope.
  const auto destinations = rounds.destinations(bp);
  say(fmt::format("starting listeners in {} host namespaces", destinations.size()));
  std::vector<std::unique_ptr<NamespacedChild>> listeners;
  std::vector<std::string> listener_files;
  for (int host : destinations) {
    const std::string& name = bp.devices[host].name;
    auto netns = netns_of.find(name);
    if (netns == netns_of.end()) return Error{fmt::format("the plan sends to {}, which the lab does not have", name)};
    auto child = std::make_unique<NamespacedChild>();
    auto seen_here = path_under(o.work_dir, fmt::format("listener-{}.jsonl", name), "listener");
    if (!seen_here) return seen_here.error();
    listener_files.push_back(seen_here->string());
    auto output = new_output(seen_here->string());
    if (!output) return output.error();
    auto started = child->start(netns->second, o.hpnctl,
                                {"probe", "listen", "--duration", "600", "--ports-from", ports_file, "--device-name",
                                 name, "--ioam-namespace", ioam, "--run", trust->run, "-o", kAgentOutput},
                                {}, trust->env, *output);
    close(*output);
    if (!started) return started.error();
    if (!child->wait_for("listening", std::chrono::seconds(10))) {
      return Error{fmt::format("the probe listener in {} did not start", netns->second)};
    }
    listeners.push_back(std::move(child));
  }

  probe::ObservationSet seen;
  // Sends exactly `round`'s probes: each sender its share as a plan file.
  auto send_round = [&](const probe::Round& round, int rate) -> Status {
    say(fmt::format("{}: {} senders", round.name, round.senders.size()));
    std::vector<std::pair<std::unique_ptr<NamespacedChild>, std::string>> senders;
    for (const auto& s : round.senders) {
      const std::string& host = bp.devices[s.host].name;
      const std::string base = fmt::format("{}-{}{}", round.name, host, s.port.empty() ? "" : "-" + s.port);
      auto under = path_under(o.work_dir, base, "sender");
      if (!under) return under.error();
      const std::string plan_file = under->string() + ".plan.jsonl";
      const std::string file = under->string() + ".jsonl";
      if (auto st = write_new_file(plan_file, s.plan_text, 0600); !st) return st.error();
      auto output = new_output(file);
      if (!output) return output.error();
      auto child = std::make_unique<NamespacedChild>();
      std::vector<std::string> args{"probe", "send", "--plan", plan_file,
                                    "--timeout", std::to_string(o.timeout_ms),
                                    "--retries", std::to_string(o.retries),
                                    "--rate", std::to_string(rate),
                                    "--run", trust->run,
                                    "--device-name", host, "--ports-from", ports_file,
                                    "--ioam-namespace", ioam, "-o", kAgentOutput};
      auto started = child->start(netns_of[host], o.hpnctl, args, file + ".log", trust->env, *output);
      close(*output);
      if (!started) return started.error();
      senders.push_back({std::move(child), file});
    }
    for (auto& [child, file] : senders) {
      int code = child->wait();
      if (code != 0) {
        std::ifstream log(file + ".log");
        std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        return Error{fmt::format("probe send ({}) exited with {}: {}", file, code, text)};
      }
      if (auto st = probe::read_observation_file_into(file, seen); !st) return st.error();
    }
    return {};
  };
  auto wired_port = [&](int host, const std::string& port) { return wired.count({bp.devices[host].name, port}) > 0; };
  while (auto round = rounds.next(bp, seen, wired_port)) {
    const int rate = round->kind == probe::RoundKind::switches ? o.switch_probe_rate : o.rate;
    if (auto st = send_round(*round, rate); !st) return st.error();
  }
  if (plan_jsonl) *plan_jsonl = rounds.entries_jsonl(bp);
  for (auto& l : listeners) l->stop();
  for (auto& l : listeners) l->wait();
  // What each receiver saw arrive: evidence that survives a lost reply.
  // A listener no probe reached wrote an empty file: nothing to add.
  for (const auto& file : listener_files) {
    std::error_code ec;
    if (fs::file_size(file, ec) == 0 && !ec) continue;
    if (auto st = probe::read_observation_file_into(file, seen); !st) return st.error();
  }
  return seen;
}

Result<probe::ObservationRecord> lab_ping(const Blueprint& bp, const LabState& lab, const std::string& status_json,
                                    const std::string& hpnctl, const std::string& work_dir,
                                    const std::string& src, const std::string& dst, int nic, int sport) {
  const StateDevice* from = nullptr;
  const StateDevice* to = nullptr;
  for (const auto& d : lab.devices) {
    if (d.name == src) from = &d;
    if (d.name == dst) to = &d;
  }
  if (!from || from->role != "host") return Error{fmt::format("no host '{}' in the lab", src)};
  if (!to || to->role != "host") return Error{fmt::format("no host '{}' in the lab", dst)};
  std::string address;
  for (const auto& i : bp.interfaces) {
    if (bp.devices[i.device].name == dst && i.nic == nic && i.purpose == InterfacePurpose::host) address = i.ipv6;
  }
  if (address.empty()) return Error{fmt::format("{} has no back-end NIC {}", dst, nic)};
  // The sender's first port of that NIC that is wired in the lab.
  std::string port;
  int host = -1;
  for (size_t i = 0; i < bp.devices.size(); ++i) if (bp.devices[i].name == src) host = static_cast<int>(i);
  for (const auto& p : bp.panels[bp.devices[host].panel].ports) {
    if (p.nic != nic || !port.empty()) continue;
    for (const auto& w : from->ports) if (w.port == p.name) port = p.name;
  }
  if (port.empty()) return Error{fmt::format("{} has no wired port on NIC {}", src, nic)};

  if (auto st = check_work_dir(work_dir); !st) return st.error();
  auto trust = new_agent_trust();
  if (!trust) return trust.error();
  const std::string ports_file = (fs::path(work_dir) / "lab-status.json").string();
  if (auto st = write_new_file(ports_file, status_json, 0600); !st) return st.error();
  const std::string seen_file = (fs::path(work_dir) / "ping-listener.jsonl").string();
  const std::string sent_file = (fs::path(work_dir) / "ping-sender.jsonl").string();
  const std::string ioam = std::to_string(lab.ioam_namespace);
  auto seen_output = new_output(seen_file);
  if (!seen_output) return seen_output.error();
  NamespacedChild listener;
  auto listening = listener.start(to->netns, hpnctl, {"probe", "listen", "--duration", "30", "--ports-from", ports_file,
                                                      "--device-name", dst, "--ioam-namespace", ioam, "--run",
                                                      trust->run, "-o", kAgentOutput},
                                  {}, trust->env, *seen_output);
  close(*seen_output);
  if (!listening) return listening.error();
  if (!listener.wait_for("listening", std::chrono::seconds(10))) return Error{"the listener did not start"};
  auto sent_output = new_output(sent_file);
  if (!sent_output) return sent_output.error();
  NamespacedChild sender;
  auto sending = sender.start(from->netns, hpnctl,
                              {"probe", "send", "--from", port, "--to", dst + "=" + address, "--probes", "1",
                               "--source-ports", fmt::format("{}-{}", sport, sport), "--timeout", "1000",
                               "--retries", "1", "--device-name", src, "--ports-from", ports_file,
                               "--ioam-namespace", ioam, "--run", trust->run, "-o", kAgentOutput},
                              sent_file + ".log", trust->env, *sent_output);
  close(*sent_output);
  if (!sending) return sending.error();
  int code = sender.wait();
  listener.stop();
  listener.wait();
  if (code != 0) return Error{fmt::format("probe send exited with {}", code)};
  auto sent = probe::read_observation_file(sent_file);
  if (!sent) return sent.error();
  for (const auto& o : sent.value()) {
    if (o.direction == probe::ProbeDirection::forward && o.received) return probe::ObservationRecord(o);
  }
  // Lost on the way back, perhaps: what the receiver saw is the answer.
  auto seen = probe::read_observation_file(seen_file);
  if (seen && !seen->empty()) {
    probe::ObservationRecord o(seen->front());
    o.src_device = src;
    o.src_port = port;
    return o;
  }
  return Error{fmt::format("the probe from {}:{} to {} ({}) did not arrive", src, port, dst, address)};
}

}  // namespace hpn::lab
