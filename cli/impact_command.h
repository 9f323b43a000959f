// `hpnctl impact CABLE|DEVICE...`: what failing them costs. See hpnctl-impact(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the command on `app`; when it runs, its exit code lands in `exit_code`.
void add_impact_command(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
