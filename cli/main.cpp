// hpnctl: the command line. Each command lives in its own file and registers
// itself on the app; main parses, and returns the exit code the command chose:
// 0 ok, 1 findings, 2 usage or input error, 3 environment error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cli/completion.h"
#include "cli/config_command.h"
#include "cli/exit.h"
#include "cli/export_command.h"
#include "cli/host_command.h"
#include "cli/lab_command.h"
#include "cli/plan_command.h"
#include "cli/probe_command.h"
#include "cli/profile_command.h"
#include "cli/progress.h"
#include "cli/query_command.h"
#include "cli/verify_command.h"
#include "planner/diagnostics.h"

int main(int argc, char** argv) {
  using namespace hpn::cli;
  CLI::App app{"hpnctl: plan, wire and verify the back-end network of an Alibaba HPN GPU cluster"};
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
  add_verify_command(app, exit_code);
  add_lab_commands(app, exit_code);
  add_probe_commands(app, exit_code);
  add_profile_command(app, exit_code);
  add_config_command(app, exit_code);
  add_export_command(app, exit_code);
  add_host_commands(app, exit_code);
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
    app.exit(e);
    return kInputError;
  }
  return exit_code >= 0 ? exit_code : kInputError;
}
