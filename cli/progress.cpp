#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace hpn::cli {

void add_verbosity_flags(CLI::App& app) {
  app.add_flag("-q,--quiet")->description("No progress and no summary; errors and asked-for output still print");
  app.add_flag("--verbose")->description("The wall time of each phase of the command on stderr");
  app.fallthrough();
}

Verbosity verbosity_of(const CLI::App& command) {
  const CLI::App* root = &command;
  while (root->get_parent() != nullptr) root = root->get_parent();
  Verbosity v;
  v.quiet = root->count("--quiet") > 0;
  v.verbose = root->count("--verbose") > 0;
  return v;
}

void report_command_time(const CLI::App& app, std::chrono::steady_clock::time_point started) {
  if (!verbosity_of(app).verbose) return;
  std::string command;
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    command += (command.empty() ? "" : " ") + sub->get_name();
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  std::cerr << fmt::format("hpnctl: {}: {:.3f} s in all\n", command, took.count());
}

Progress::Progress(Verbosity verbosity)
    : verbosity_(verbosity), terminal_(!verbosity.quiet && isatty(STDERR_FILENO)) {}

Progress::~Progress() { finish(); }

void Progress::clear_line() {
  if (line_shown_) std::cerr << "\r\033[K" << std::flush;
  line_shown_ = false;
}

void Progress::phase(const std::string& name) {
  finish();
  phase_ = name;
  started_ = std::chrono::steady_clock::now();
  status(name + "...");
}

void Progress::status(const std::string& text) {
  if (!terminal_) return;
  std::cerr << "\r\033[Khpnctl: " << text << std::flush;
  line_shown_ = true;
}

void Progress::finish() {
  clear_line();
  if (phase_.empty()) return;
  if (verbosity_.verbose) {
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - started_;
    std::cerr << fmt::format("hpnctl: {}: {:.3f} s\n", phase_, took.count());
  }
  phase_.clear();
}

}  // namespace hpn::cli
