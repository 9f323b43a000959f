// An output directory written all or nothing: built as a hidden sibling
// (".NAME.tmp-PID") and swapped into place with one rename(2), or one
// renameat2(RENAME_EXCHANGE) when an older one is there. Plans and profile
// sets are written this way; a failure leaves the target as it was.
//
// A staging directory is also removed when the process is killed by
// SIGINT, SIGTERM or SIGHUP while it exists (and by the CLI's last-resort
// handler, remove_staging_directories()): a run stopped half-way leaves
// nothing behind, not a hidden tree of hundreds of megabytes.
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
  StagedDirectory(std::filesystem::path target, std::filesystem::path staging);
  std::filesystem::path target_, staging_;
  bool done_ = false;
  int slot_ = -1;  // in the registry the signal handler reads; -1: not registered
};

// Removes every staging directory this process has open, with system calls
// only (no allocation, no lock): safe in a signal handler and in a
// std::terminate handler, where nothing unwinds to run the destructors.
void remove_staging_directories() noexcept;

}  // namespace hpn
