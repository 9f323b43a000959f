// hpnctl: the command line. Each command lives in its own file and registers
// itself on the app; main parses, and returns the exit code the command chose:
// 0 ok, 1 findings, 2 usage or input error, 3 environment error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "blueprint/staged_dir.h"

#include "cli/completion.h"
#include "cli/config_command.h"
#include "cli/exit.h"
#include "cli/help_format.h"
#include "cli/export_command.h"
#include "cli/host_command.h"
#include "cli/impact_command.h"
#include "cli/lab_command.h"
#include "cli/plan_command.h"
#include "cli/probe_command.h"
#include "cli/profile_command.h"
#include "cli/progress.h"
#include "cli/stdout_check.h"
#include "cli/switch_command.h"
#include "cli/query_command.h"
#include "cli/verify_command.h"
#include "blueprint/diagnostics.h"

namespace {

// The command the parse reached: "plan", "lab up", or "" for none.
const CLI::App* deepest(const CLI::App& app, std::string& path) {
  const CLI::App* at = &app;
  for (;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return at;
    at = subs.front();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
}

// The options a command takes, as typed ("--output", "-o"), its ancestors'
// too (the global flags fall through).
std::vector<std::string> option_names(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::App* a = command; a != nullptr; a = a->get_parent()) {
    for (const auto* o : a->get_options()) {
      for (const auto& n : o->get_lnames()) names.push_back("--" + n);
      for (const auto& n : o->get_snames()) names.push_back("-" + n);
    }
  }
  return names;
}

// CLI11's parse errors as hpnctl says errors: prefixed, naming the command
// and the option as the user typed it, with a "did you mean" for a
// mistyped option and the help to read.
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  std::string path;
  const CLI::App* command = deepest(app, path);
  const std::string help = path.empty() ? "'hpnctl --help'" : fmt::format("'hpnctl {} --help'", path);
  const std::string where = path.empty() ? "" : path + ": ";
  std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // "The following argument(s) were not expected: --ouput x"
    const auto colon = what.find(": ");
    std::vector<std::string> extras;
    std::string rest = colon == std::string::npos ? std::string() : what.substr(colon + 2);
    for (size_t at = 0; at < rest.size();) {
      const size_t space = rest.find(' ', at);
      extras.push_back(rest.substr(at, space == std::string::npos ? std::string::npos : space - at));
      at = space == std::string::npos ? rest.size() : space + 1;
    }
    for (const auto& x : extras) {
      if (x.empty() || x[0] != '-') continue;
      const std::string name = x.substr(0, x.find('='));
      const std::string guess = hpn::closest_match(name, option_names(command));
      return fmt::format("{}unknown option '{}'{}; see {}", where, name,
                         guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess), help);
    }
    std::string typed;  // CLI11 lists them last first
    for (auto x = extras.rbegin(); x != extras.rend(); ++x) typed += (typed.empty() ? "" : " ") + *x;
    return fmt::format("{}unexpected argument{} '{}'; see {}", where, extras.size() == 1 ? "" : "s", typed, help);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    // "Could not convert: --segment = abc"
    const auto colon = what.find(": "), equals = what.find(" = ");
    if (colon != std::string::npos && equals != std::string::npos && equals > colon) {
      return fmt::format("{}{}: '{}' is not a valid value; see {}", where, what.substr(colon + 2, equals - colon - 2),
                         what.substr(equals + 3), help);
    }
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what.find("ubcommand") != std::string::npos) {
    // "A subcommand is required": the word after the command, if any, is a mistyped one.
    std::vector<std::string> names;
    for (const auto* sub : command->get_subcommands({})) names.push_back(sub->get_name());
    const auto it = std::find(args.begin(), args.end(), command->get_name());
    if (it != args.end() && std::next(it) != args.end() && !std::next(it)->empty() && (*std::next(it))[0] != '-') {
      const std::string guess = hpn::closest_match(*std::next(it), names);
      return fmt::format("{}unknown command '{}'{}; see {}", where, *std::next(it),
                         guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess), help);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return fmt::format("{}a command is required, one of {}; see {}", where, list, help);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    // "target is required": a positional, named as the usage line shows it.
    if (const auto is = what.find(" is required"); is != std::string::npos && what[0] != '-') {
      std::string name = what.substr(0, is);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
      return fmt::format("{}{} is required; see {}", where, name, help);
    }
  }
  return fmt::format("{}{}; see {}", where, what, help);
}

// The last resort, for an exception nothing caught: one line and exit 3,
// never an abort with a core dump. Reached through std::terminate (an
// exception in another thread, or through a noexcept function), nothing
// unwinds, so the staging directories are removed here.
[[noreturn]] void die_of_uncaught() {
  std::string what = "an unknown exception";
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
  } else {
    what = "std::terminate without an exception";
  }
  hpn::remove_staging_directories();
  hpn::cli::fail(hpn::cli::kEnvironmentError, fmt::format("internal error: {}; please report it", what));
  std::_Exit(hpn::cli::kEnvironmentError);
}

int run(int argc, char** argv) {
  using namespace hpn::cli;
  CLI::App app{"hpnctl: plan, wire and verify the back-end network of an Alibaba HPN GPU cluster"};
  app.formatter(std::make_shared<WrappingFormatter>());  // before the commands: they copy it
  app.set_version_flag("--version", HPNCTL_VERSION);
  app.require_subcommand(1);
  app.footer("Exit status: 0 ok, 1 findings, 2 usage or input error, 3 environment error.\n"
             "See hpnctl(1) and hpn-pod.yaml(5).");

  // Global --quiet / --verbose, before the commands: they inherit passing them up.
  add_verbosity_flags(app);

  // The command table, in the order `hpnctl --help` lists it.
  int exit_code = -1;
  add_plan_commands(app, exit_code);
  add_query_commands(app, exit_code);
  add_impact_command(app, exit_code);
  add_verify_command(app, exit_code);
  add_lab_commands(app, exit_code);
  add_probe_commands(app, exit_code);
  add_profile_command(app, exit_code);
  add_config_command(app, exit_code);
  add_export_command(app, exit_code);
  add_host_commands(app, exit_code);
  add_switch_commands(app, exit_code);
  add_completion_command(app, exit_code);  // last: it walks the whole table

  // "did you mean" for a mistyped command, before CLI11's generic message.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string guess = hpn::closest_match(argv[1], names);
      return fail(kInputError, fmt::format("unknown command '{}'{}; see 'hpnctl --help'", argv[1],
                                           guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
    }
  }

  const auto started = std::chrono::steady_clock::now();
  try {
    app.parse(argc, argv);
    report_command_time(app, started);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kInputError, parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc)));
  }
  return exit_code >= 0 ? exit_code : kInputError;
}

}  // namespace

// What the command printed has reached stdout, or the run fails: output
// lost to a full disk, /dev/full or a file size limit is an environment
// error (exit 3) naming stdout, not a success (cli/stdout_check.h). A
// command that failed already said why, and its exit code stands.
// An exception nothing caught is one line and exit 3, never an abort: out
// of a command, its stack has unwound (staging directories removed by
// their destructors) when it gets here; through std::terminate,
// die_of_uncaught() removes them.
int main(int argc, char** argv) {
  using namespace hpn::cli;
  std::set_terminate(die_of_uncaught);
  StdoutCheck out;
  int code = kEnvironmentError;
  try {
    code = run(argc, argv);
  } catch (const std::exception& e) {
    return fail(kEnvironmentError, fmt::format("internal error: {}; please report it", e.what()));
  } catch (...) {
    return fail(kEnvironmentError, "internal error: an unknown exception; please report it");
  }
  const int error = out.finish();
  if (error == 0 || (code != kOk && code != kFindings)) return code;
  return fail(kEnvironmentError, fmt::format("stdout: write failed: {}", std::strerror(error)));
}
