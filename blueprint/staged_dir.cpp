#include "blueprint/staged_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

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

}  // namespace

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

StagedDirectory::StagedDirectory(StagedDirectory&& other) noexcept
    : target_(std::move(other.target_)), staging_(std::move(other.staging_)), done_(other.done_) {
  other.done_ = true;
}

StagedDirectory::~StagedDirectory() {
  if (done_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
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
  return {};
}

}  // namespace hpn
