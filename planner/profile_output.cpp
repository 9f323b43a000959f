#include "planner/profile_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "planner/profile_files.h"
#include "planner/profile_json.h"

namespace hpn {

namespace fs = std::filesystem;

namespace {

fs::path normal(const std::string& text) {
  fs::path dir = fs::path(text).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  return dir;
}

Status write_file(const fs::path& path, const std::string& content, int mode) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno))};
  out << content;
  out.close();
  if (!out) return Error{fmt::format("{}: write failed: {}", path.string(), std::strerror(errno))};
  // Explicit modes, so the umask of the run does not change the output.
  std::error_code ec;
  fs::permissions(path, static_cast<fs::perms>(mode), fs::perm_options::replace, ec);
  if (ec) return Error{fmt::format("{}: cannot set mode: {}", path.string(), ec.message())};
  return {};
}

// Leftovers of runs killed half-way: ".NAME.tmp-PID" whose process is gone.
void remove_stale(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + prefix.size()));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

nlohmann::ordered_json index_json(const ProfileBuilder& b, const Blueprint& bp) {
  nlohmann::ordered_json j;
  j["format"] = kProfileSetFormat;
  j["version"] = kProfileVersion;
  j["spec_name"] = bp.spec_name;
  j["tool_version"] = bp.tool_version;
  j["path_classes"] = nlohmann::ordered_json::array();
  for (const auto& c : b.classes()) j["path_classes"].push_back(class_json(c));
  j["hosts"] = b.host_names();
  return j;
}

}  // namespace

Status check_profile_target(const std::string& text) {
  fs::path dir = normal(text);
  if (dir.empty() || dir == "." || dir == ".." || dir.filename() == "..") {
    return Error{fmt::format("{}: name the directory to write the profiles into, not '.' or '..'", text)};
  }
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) {
    return Error{fmt::format("{}: exists and is not a directory; refusing to replace it", dir.string())};
  }
  if (fs::exists(dir / "index.json", ec) || fs::is_empty(dir, ec)) return {};
  return Error{fmt::format("{}: exists and is not an hpnctl profile set (no index.json); refusing to "
                           "replace it", dir.string())};
}

Result<ProfileSetSummary> write_profiles(const ProfileBuilder& b, const std::string& text) {
  if (auto st = check_profile_target(text); !st) return st.error();
  fs::path dir = normal(text);
  fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", parent.string(), ec.message())};
  const std::string prefix = "." + dir.filename().string() + ".tmp-";
  remove_stale(parent, prefix);
  fs::path tmp = parent / (prefix + std::to_string(getpid()));
  fs::remove_all(tmp, ec);
  if (!fs::create_directory(tmp, ec)) {
    return Error{fmt::format("{}: cannot create: {}", tmp.string(), ec ? ec.message() : "exists")};
  }
  auto abort = [&](const Error& e) -> Result<ProfileSetSummary> {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return e;
  };

  ProfileSetSummary summary;
  const Blueprint& bp = b.blueprint();
  for (int host : b.hosts()) {
    HostProfile profile = b.build(host);
    // The host's name becomes a directory: it must be one path component.
    const std::string& name = profile.host;
    if (name.empty() || name == "." || name == ".." || name == "index.json" ||
        name.find('/') != std::string::npos) {
      return abort(Error{fmt::format("host '{}': its name cannot be a directory of the profile set", name)});
    }
    fs::path host_dir = tmp / name;
    for (const auto& f : profile_files(profile)) {
      fs::path path = host_dir / f.path;
      fs::create_directories(path.parent_path(), ec);
      if (ec) return abort(Error{fmt::format("{}: cannot create: {}", path.parent_path().string(), ec.message())});
      if (auto st = write_file(path, f.content, f.mode); !st) return abort(st.error());
      ++summary.files;
    }
    ++summary.hosts;
  }
  if (auto st = write_file(tmp / "index.json", index_json(b, bp).dump(2) + "\n", 0644); !st) {
    return abort(st.error());
  }
  ++summary.files;

  if (fs::exists(dir, ec)) {
    // Swap the new set in with one atomic exchange, then drop the old one.
    if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
      return abort(Error{fmt::format("{}: cannot replace: {}", dir.string(), std::strerror(errno))});
    }
    fs::remove_all(tmp, ec);
  } else if (std::rename(tmp.c_str(), dir.c_str()) != 0) {
    return abort(Error{fmt::format("{}: cannot create: {}", dir.string(), std::strerror(errno))});
  }
  return summary;
}

}  // namespace hpn
