#include "blueprint/staged_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hpn {

namespace fs = std::filesystem;

namespace {

fs::path normal(const std::string& text) {
  fs::path dir = fs::path(text).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  return dir;
}

// Leftovers of runs that were killed half-way: ".NAME.tmp-PID" whose process is gone.
void remove_stale(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

// The staging directories that exist, for the signal handler. A handler
// reaches state only through globals; this one is fixed-size and lock-free,
// so that it can be read at any instant, even halfway through an update.
// Another design blocks the signals and waits for them in a thread of its
// own (sigwait), which may then use std::filesystem; but every thread and
// every child process started afterwards inherits the blocked mask (the lab
// runs ip, tc and daemons), and the tree removal below needs no allocation
// or lock, so it runs in the handler itself.
constexpr int kMaxStagings = 8;
struct StagingSlot {
  std::atomic<int> state{0};  // 0 free, 1 being written, 2 registered
  char path[PATH_MAX];        // absolute: the working directory may change
};
StagingSlot g_stagings[kMaxStagings];
constexpr int kCleanedSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_stagings_and_die(int sig) {
  remove_staging_directories();
  // Die of the signal, as without the handler (a shell tells an interrupted
  // command by it): the disposition back to the default, and the signal
  // again, delivered as soon as this handler returns (it is blocked here).
  signal(sig, SIG_DFL);
  raise(sig);
}

// Only where the disposition is still the default: a signal ignored (nohup)
// stays ignored, and a command with handlers of its own (probe send, host
// apply) stops by them and unwinds, and the destructor removes the staging.
void install_signal_cleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int sig : kCleanedSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_stagings_and_die;
    sigfillset(&sa.sa_mask);  // one cleanup at a time in this thread
    sigaction(sig, &sa, nullptr);
  }
}

int register_staging(const fs::path& staging) {
  std::error_code ec;
  const std::string path = fs::absolute(staging, ec).string();
  if (ec || path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kMaxStagings; ++i) {
    int expected = 0;
    if (!g_stagings[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_stagings[i].path, path.c_str(), path.size() + 1);
    g_stagings[i].state.store(2, std::memory_order_release);
    install_signal_cleanup();
    return i;
  }
  return -1;  // more at once than any command makes: left to the next run's remove_stale()
}

void unregister_staging(int slot) {
  if (slot >= 0) g_stagings[slot].state.store(0, std::memory_order_release);
}

// Removes `name` in the directory `dir` with everything under it, `depth`
// levels down at most, by system calls alone (unlinkat, openat,
// getdents64, lseek, close: no allocation, no lock).
void remove_tree_at(int dir, const char* name, int depth) noexcept {
  if (unlinkat(dir, name, 0) == 0 || errno != EISDIR || depth == 0) return;
  const int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Entries are read again from the start after each batch removed (the
  // offsets of a directory being emptied are not stable); a pass that
  // removes nothing ends it.
  alignas(struct dirent64) char buf[2048];
  for (bool removed = true; removed;) {
    removed = false;
    if (lseek(fd, 0, SEEK_SET) != 0) break;
    const ssize_t n = getdents64(fd, buf, sizeof buf);
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buf + at);
      at += entry->d_reclen;
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      remove_tree_at(fd, entry->d_name, depth - 1);
      removed = true;
    }
  }
  close(fd);
  unlinkat(dir, name, AT_REMOVEDIR);
}

}  // namespace

void remove_staging_directories() noexcept {
  const int saved = errno;
  for (auto& slot : g_stagings) {
    if (slot.state.load(std::memory_order_acquire) != 2) continue;
    char path[PATH_MAX];
    std::memcpy(path, slot.path, sizeof path);
    path[PATH_MAX - 1] = '\0';
    char* slash = std::strrchr(path, '/');
    if (slash == nullptr || slash == path) continue;
    *slash = '\0';
    const int parent = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) continue;
    remove_tree_at(parent, slash + 1, 32);
    close(parent);
  }
  errno = saved;
}

Status StagedDirectory::check_target(const std::string& text, const OutputKind& kind) {
  fs::path dir = normal(text);
  if (dir.empty() || dir == "." || dir == ".." || dir.filename() == "..") {
    return Error{fmt::format("{}: name the directory to write {} into, not '.' or '..'", text, kind.into)};
  }
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) {
    return Error{fmt::format("{}: exists and is not a directory; refusing to replace it", dir.string())};
  }
  if (fs::exists(dir / kind.marker, ec) || fs::is_empty(dir, ec)) return {};
  return Error{fmt::format("{}: exists and is not {} (no {}); refusing to replace it", dir.string(), kind.noun,
                           kind.marker)};
}

Result<StagedDirectory> StagedDirectory::begin(const std::string& text, const OutputKind& kind) {
  if (auto st = check_target(text, kind); !st) return st.error();
  fs::path dir = normal(text);
  fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", parent.string(), ec.message())};
  const std::string prefix = "." + dir.filename().string() + ".tmp-";
  remove_stale(parent, prefix);
  fs::path staging = parent / (prefix + std::to_string(getpid()));
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec)) {
    return Error{fmt::format("{}: cannot create: {}", staging.string(), ec ? ec.message() : "exists")};
  }
  return StagedDirectory(dir, staging);
}

StagedDirectory::StagedDirectory(fs::path target, fs::path staging)
    : target_(std::move(target)), staging_(std::move(staging)), slot_(register_staging(staging_)) {}

StagedDirectory::StagedDirectory(StagedDirectory&& other) noexcept
    : target_(std::move(other.target_)), staging_(std::move(other.staging_)), done_(other.done_), slot_(other.slot_) {
  other.done_ = true;
  other.slot_ = -1;
}

StagedDirectory::~StagedDirectory() {
  if (!done_) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
  unregister_staging(slot_);
}

Status StagedDirectory::commit() {
  std::error_code ec;
  if (fs::exists(target_, ec)) {
    // Swap the new one in with one atomic exchange, then drop the old one.
    if (renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0) {
      return Error{fmt::format("{}: cannot replace: {}", target_.string(), std::strerror(errno))};
    }
    fs::remove_all(staging_, ec);
  } else if (std::rename(staging_.c_str(), target_.c_str()) != 0) {
    return Error{fmt::format("{}: cannot create: {}", target_.string(), std::strerror(errno))};
  }
  done_ = true;
  unregister_staging(slot_);
  slot_ = -1;
  return {};
}

}  // namespace hpn
