// `hpnctl config`: one switch's configuration on stdout, or every switch's
// into a directory. See hpnctl-config(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the command on `app`; its exit code lands in `exit_code`.
void add_config_command(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
