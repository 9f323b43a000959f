// The probe agent's privilege drop (probe/privilege.h), in a forked child so
// the test process keeps its own privileges. Needs root; skips otherwise.
#include "probe/privilege.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <string>
#include "test_util.h"

namespace {

// Runs `body` in a child; its return value comes back as the exit code, a
// message (why it failed) through a pipe.
std::pair<int, std::string> in_child(const std::function<int(std::string&)>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string why;
    const int code = body(why);
    (void)!write(fds[1], why.data(), why.size());
    _exit(code);
  }
  close(fds[1]);
  std::string why;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) why.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, why};
}

void require_root() {
  if (geteuid() != 0) hpn::test::skip("the privilege drop needs root to start from");
}

constexpr std::uint64_t kNetRaw = std::uint64_t{1} << CAP_NET_RAW;

}  // namespace

TEST_CASE("agent/privilege: after the drop setuid(0) fails and CAP_NET_RAW is the only capability left",
          "[agent][privilege]") {
  require_root();
  // The control: before the drop, a root child can become root again.
  auto [before, why_before] = in_child([](std::string&) { return setuid(0) == 0 ? 0 : 1; });
  REQUIRE(before == 0);

  auto [code, why] = in_child([](std::string& why) {
    auto dropped = hpn::probe::drop_privileges("nobody");
    if (!dropped) {
      why = dropped.error().message;
      return 1;
    }
    if (setuid(0) == 0 || errno != EPERM) return why = "setuid(0) worked", 2;
    if (seteuid(0) == 0) return why = "seteuid(0) worked", 3;
    if (setgid(0) == 0) return why = "setgid(0) worked", 4;
    if (getuid() != dropped->uid || geteuid() != dropped->uid || getgid() != dropped->gid) return why = "ids", 5;
    if (getgroups(0, nullptr) != 0) return why = "supplementary groups left", 6;
    for (const char* line : {"CapEff", "CapPrm", "CapBnd"}) {
      auto caps = hpn::probe::own_capabilities(line);
      if (!caps || *caps != kNetRaw) return why = std::string(line) + " is not CAP_NET_RAW alone", 7;
    }
    for (const char* line : {"CapInh", "CapAmb"}) {
      auto caps = hpn::probe::own_capabilities(line);
      if (!caps || *caps != 0) return why = std::string(line) + " is not empty", 8;
    }
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return why = "no_new_privs unset", 9;
    if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) return why = "still dumpable", 10;
    // Root-only work is now refused: the kernel, not the agent, says so.
    if (chown("/", 0, 0) == 0 || errno != EPERM) return why = "chown / worked", 11;
    return 0;
  });
  INFO(why);
  CHECK(code == 0);
}

TEST_CASE("agent/privilege: the agent will not drop to root or to a user that does not exist",
          "[agent][privilege]") {
  require_root();
  auto [to_root, why_root] = in_child([](std::string& why) {
    auto d = hpn::probe::drop_privileges("root");
    why = d ? "dropped" : d.error().message;
    return d ? 0 : 1;
  });
  CHECK(to_root == 1);
  CHECK(why_root == "--user root: the agent drops to an unprivileged user, not to uid/gid 0");
  auto [missing, why_missing] = in_child([](std::string& why) {
    auto d = hpn::probe::drop_privileges("no-such-user-hpnF");
    why = d ? "dropped" : d.error().message;
    return d ? 0 : 1;
  });
  CHECK(missing == 1);
  CHECK(why_missing == "--user no-such-user-hpnF: no such user");
}

TEST_CASE("agent/privilege: started as an ordinary user the agent keeps it and sheds every capability",
          "[agent][privilege]") {
  require_root();
  auto [code, why] = in_child([](std::string& why) {
    // An ordinary user without CAP_NET_RAW: the kernel clears the sets when
    // root becomes it.
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return why = "setup", 1;
    auto dropped = hpn::probe::drop_privileges("nobody");
    if (!dropped) return why = dropped.error().message, 2;
    if (!dropped->user.empty()) return why = "claims a user change", 3;
    auto eff = hpn::probe::own_capabilities("CapEff");
    if (!eff || *eff != 0) return why = "CapEff not empty", 4;
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return why = "no_new_privs unset", 5;
    return 0;
  });
  INFO(why);
  CHECK(code == 0);
}
