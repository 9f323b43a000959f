// An output directory written all or nothing: built as a hidden sibling
// (".NAME.tmp-PID") and swapped into place with one rename(2), or one
// renameat2(RENAME_EXCHANGE) when an older one is there. Plans and profile
// sets are written this way; a failure leaves the target as it was.
#pragma once

#include <filesystem>
#include <string>

#include "blueprint/result.h"

namespace hpn {

struct OutputKind {
  const char* into;    // "the plan", for "name the directory to write the plan into"
  const char* noun;    // "an hpnctl plan"
  const char* marker;  // a file every such directory has, e.g. "blueprint.db"
};

class StagedDirectory {
 public:
  // Refuses '.', '..', an existing file, and an existing non-empty
  // directory that lacks `kind.marker`: only our own output is replaced.
  static Status check_target(const std::string& dir, const OutputKind& kind);

  // Checks the target, creates its parents and the staging directory, and
  // removes stagings of runs that were killed half-way.
  static Result<StagedDirectory> begin(const std::string& dir, const OutputKind& kind);

  StagedDirectory(StagedDirectory&& other) noexcept;
  StagedDirectory& operator=(StagedDirectory&&) = delete;
  StagedDirectory(const StagedDirectory&) = delete;
  ~StagedDirectory();  // not committed: the staging directory is removed

  const std::filesystem::path& path() const { return staging_; }  // write here
  Status commit();  // swaps the staging into place and drops what it replaced

 private:
  StagedDirectory(std::filesystem::path target, std::filesystem::path staging)
      : target_(std::move(target)), staging_(std::move(staging)) {}
  std::filesystem::path target_, staging_;
  bool done_ = false;
};

}  // namespace hpn
