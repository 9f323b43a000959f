#include "probe/privilege.h"

#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace hpn::probe {

namespace {

std::string errno_text() { return std::strerror(errno); }

constexpr std::uint64_t kNetRawOnly = std::uint64_t{1} << CAP_NET_RAW;

// Permitted and effective: CAP_NET_RAW when `keep`, else nothing; inheritable empty.
hpn::Status set_capabilities(bool keep) {
  cap_t caps = cap_init();
  if (caps == nullptr) return Error{"cap_init: " + errno_text()};
  cap_value_t raw[] = {CAP_NET_RAW};
  bool ok = true;
  if (keep) {
    ok = cap_set_flag(caps, CAP_PERMITTED, 1, raw, CAP_SET) == 0 && cap_set_flag(caps, CAP_EFFECTIVE, 1, raw, CAP_SET) == 0;
  }
  ok = ok && cap_set_proc(caps) == 0;
  const std::string why = ok ? "" : errno_text();
  cap_free(caps);
  if (!ok) return Error{"cap_set_proc: " + why};
  return {};
}

hpn::Status verify(std::uint64_t want, unsigned uid, bool switched) {
  if (switched) {
    if (setuid(0) == 0 || errno != EPERM) return Error{"privilege drop failed: setuid(0) still works"};
    if (setgid(0) == 0 || errno != EPERM) return Error{"privilege drop failed: setgid(0) still works"};
    uid_t r, e, s;
    if (getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid) {
      return Error{"privilege drop failed: the user ids did not all change"};
    }
  }
  for (const char* line : {"CapEff", "CapPrm"}) {
    auto caps = own_capabilities(line);
    if (!caps) return caps.error();
    if (*caps != want) {
      return Error{fmt::format("privilege drop failed: {} is {:016x}, not {:016x} (CAP_NET_RAW alone)", line, *caps,
                               want)};
    }
  }
  for (const char* line : {"CapInh", "CapAmb"}) {
    auto caps = own_capabilities(line);
    if (!caps) return caps.error();
    if (*caps != 0) return Error{fmt::format("privilege drop failed: {} is {:016x}, not empty", line, *caps)};
  }
  if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return Error{"privilege drop failed: no_new_privs is not set"};
  return {};
}

}  // namespace

hpn::Result<std::uint64_t> own_capabilities(const std::string& name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = name + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    try {
      return std::stoull(line.substr(prefix.size()), nullptr, 16);
    } catch (...) {
      break;
    }
  }
  return Error{fmt::format("/proc/self/status: no readable {} line", name)};
}

hpn::Result<DroppedTo> drop_privileges(const std::string& user) {
  if (geteuid() != 0) {
    // Nobody to switch from: keep the user, shed what capabilities it has
    // (file capabilities, an ambient set) but CAP_NET_RAW.
    auto held = own_capabilities("CapPrm");
    if (!held) return held.error();
    const bool keep = (*held & kNetRawOnly) != 0;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (auto s = set_capabilities(keep); !s) return s.error();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Error{"PR_SET_NO_NEW_PRIVS: " + errno_text()};
    if (auto s = verify(keep ? kNetRawOnly : 0, 0, false); !s) return s.error();
    return DroppedTo{};
  }
  std::vector<char> buffer(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwnam_r(user.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return Error{fmt::format("--user {}: no such user", user)};
  }
  if (pw.pw_uid == 0 || pw.pw_gid == 0) {
    return Error{fmt::format("--user {}: the agent drops to an unprivileged user, not to uid/gid 0", user)};
  }
  const unsigned uid = pw.pw_uid, gid = pw.pw_gid;
  // While still root (CAP_SETPCAP): empty the bounding set but CAP_NET_RAW,
  // so not even an exec could bring a capability back.
  for (int cap = 0; cap < static_cast<int>(cap_max_bits()); ++cap) {
    if (cap == CAP_NET_RAW) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return Error{fmt::format("PR_CAPBSET_DROP {}: {}", cap, errno_text())};
    }
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  // Keep the permitted set across the change of user, then cut it down.
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return Error{"PR_SET_KEEPCAPS: " + errno_text()};
  if (setgroups(0, nullptr) != 0) return Error{"setgroups: " + errno_text()};
  if (setresgid(gid, gid, gid) != 0) return Error{"setresgid: " + errno_text()};
  if (setresuid(uid, uid, uid) != 0) return Error{"setresuid: " + errno_text()};
  if (auto s = set_capabilities(true); !s) return s.error();
  prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Error{"PR_SET_NO_NEW_PRIVS: " + errno_text()};
  // The kernel already made the process undumpable when its ids changed;
  // say so explicitly: no core file or ptrace by the new user can read the key.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (auto s = verify(kNetRawOnly, uid, true); !s) return s.error();
  return DroppedTo{user, uid, gid};
}

}  // namespace hpn::probe
