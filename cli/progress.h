// What a command says on stderr while it works, decided once for all of
// them: the global --quiet and --verbose flags, and a progress line that
// appears only when stderr is a terminal (never in a pipe, a log or a test).
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <string>

namespace hpn::cli {

struct Verbosity {
  bool quiet = false;    // no progress, no summary a script did not ask for; errors still print
  bool verbose = false;  // each phase's wall time on stderr, as "hpnctl: PHASE: 0.123 s"
};

// Adds --quiet / --verbose to the root app and lets every subcommand pass
// them up (CLI11 fallthrough), so `hpnctl --verbose plan` and `hpnctl plan
// --verbose` mean the same. Call before the commands are added: subcommands
// copy the fallthrough setting when they are created.
void add_verbosity_flags(CLI::App& app);

// The flags as parsed, read from the root of `command`'s app tree; call it
// from a command's callback, after parsing.
Verbosity verbosity_of(const CLI::App& command);

// Under --verbose, "hpnctl: COMMAND: 0.123 s" for the whole command run
// from `started`; main calls it once the command has returned.
void report_command_time(const CLI::App& app, std::chrono::steady_clock::time_point started);

// Phases of one command: `phase("expanding")` ends the previous phase
// (printing its time under --verbose) and shows the new one on a terminal;
// `status()` rewrites the terminal line within a phase.
class Progress {
 public:
  explicit Progress(Verbosity verbosity);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void phase(const std::string& name);
  void status(const std::string& text);
  // Ends the current phase and clears the terminal line; before an error
  // message or the command's own output on stderr.
  void finish();
  bool terminal() const { return terminal_; }

 private:
  void clear_line();

  Verbosity verbosity_;
  bool terminal_ = false;
  bool line_shown_ = false;
  std::string phase_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace hpn::cli
