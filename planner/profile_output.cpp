#include "planner/profile_output.h"

#include "blueprint/staged_dir.h"

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

// `files` under `dir`, with the directories they need; counts them in `written`.
Status write_files(const fs::path& dir, const std::vector<ProfileFile>& files, size_t& written) {
  for (const auto& f : files) {
    const fs::path path = dir / f.path;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return Error{fmt::format("{}: cannot create: {}", path.parent_path().string(), ec.message())};
    if (auto st = write_file(path, f.content, f.mode); !st) return st.error();
    ++written;
  }
  return {};
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

namespace {

const OutputKind kProfileSet{"the profiles", "an hpnctl profile set", "index.json"};

}  // namespace

Status check_profile_target(const std::string& text) { return StagedDirectory::check_target(text, kProfileSet); }

namespace {

const OutputKind kHostProfile{"the profile", "one host's hpnctl profile", "profile.json"};

}  // namespace

Status check_host_profile_target(const std::string& text) { return StagedDirectory::check_target(text, kHostProfile); }

Result<ProfileSetSummary> write_host_profile(const HostProfile& profile, const std::string& text) {
  auto staged = StagedDirectory::begin(text, kHostProfile);
  if (!staged) return staged.error();
  ProfileSetSummary summary;
  summary.hosts = 1;
  std::vector<ProfileFile> files = profile_files(profile);
  for (auto& f : link_files(profile)) files.push_back(std::move(f));
  if (auto st = write_files(staged->path(), files, summary.files); !st) return st.error();
  if (auto st = staged->commit(); !st) return st.error();
  return summary;
}

Result<ProfileSetSummary> write_profiles(const ProfileBuilder& b, const std::string& text) {
  auto staged = StagedDirectory::begin(text, kProfileSet);
  if (!staged) return staged.error();
  const fs::path& tmp = staged->path();
  auto abort = [](const Error& e) -> Result<ProfileSetSummary> { return e; };  // staging removed on return

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
    if (auto st = write_files(tmp / name, profile_files(profile), summary.files); !st) return abort(st.error());
    ++summary.hosts;
  }
  if (auto st = write_file(tmp / "index.json", index_json(b, bp).dump(2) + "\n", 0644); !st) {
    return abort(st.error());
  }
  ++summary.files;

  if (auto st = staged->commit(); !st) return st.error();
  return summary;
}

}  // namespace hpn
