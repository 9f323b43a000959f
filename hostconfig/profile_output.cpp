#include "hostconfig/profile_output.h"

#include "blueprint/atomic_file.h"
#include "blueprint/names.h"
#include "blueprint/staged_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hostconfig/profile_files.h"
#include "hostconfig/profile_json.h"

namespace hpn {

namespace fs = std::filesystem;

namespace {

// Explicit modes, so the umask of the run does not change the output.
Status write_file(const fs::path& path, const std::string& content, int mode) {
  return write_new_file(path.string(), content, mode);
}

// `files` under `dir`, with the directories they need; counts them in
// `written`. Their paths hold port and interface names: each part is
// checked to be one safe name.
Status write_files(const fs::path& dir, const std::vector<ProfileFile>& files, size_t& written) {
  for (const auto& f : files) {
    auto under = path_under(dir, f.path, "file");
    if (!under) return under.error();
    const fs::path& path = under.value();
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
    // The host's name becomes a directory: one safe path component.
    const std::string& name = profile.host;
    auto under = path_under(tmp, name, "host");
    if (!under) return abort(under.error());
    if (name == "index.json") {
      return abort(Error{fmt::format("host '{}': its name cannot be a directory of the profile set", name)});
    }
    if (auto st = write_files(under.value(), profile_files(profile), summary.files); !st) return abort(st.error());
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
