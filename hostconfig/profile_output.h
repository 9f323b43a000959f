// Writing every host's profile into one directory, all or nothing, the way
// plan_output.h writes a plan: into a temporary sibling, then swapped into
// place with one rename(2) (RENAME_EXCHANGE over an existing profile set).
//
//   DIR/index.json        what the set is: hosts, bond mode, path classes
//   DIR/HOST/...          profile_files() of each host
#pragma once

#include <cstddef>
#include <string>

#include "blueprint/result.h"
#include "hostconfig/profile.h"

namespace hpn {

inline constexpr const char* kProfileSetFormat = "hpnctl-host-profiles";

struct ProfileSetSummary {
  size_t hosts = 0;
  size_t files = 0;
};

// Can a profile set be written at `dir`? Refuses '.', a file, and an existing
// non-empty directory that is not a profile set (no index.json).
Status check_profile_target(const std::string& dir);

Result<ProfileSetSummary> write_profiles(const ProfileBuilder& builder, const std::string& dir);

// One host's profile into `dir`, all or nothing: profile_files() and
// link_files(). Refuses an existing non-empty directory that is not one
// host's profile (no profile.json).
Status check_host_profile_target(const std::string& dir);
Result<ProfileSetSummary> write_host_profile(const HostProfile& profile, const std::string& dir);

}  // namespace hpn
