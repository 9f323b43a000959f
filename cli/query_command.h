// `hpnctl devices`, `hpnctl cables` (pull lists) and `hpnctl cable`. See hpnctl(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the command(s) on `app`. When one runs, its exit code lands in
// `exit_code`; it stays untouched when none was given.
void add_query_commands(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
