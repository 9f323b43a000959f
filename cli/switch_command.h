// `hpnctl switch`: what runs on a switch. `switch agent --config FILE` is the
// ToR host-route agent (switch/host_routes.h), as the packaged unit
// hpnctl-switch-agent.service runs it. See hpnctl-switch(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the command group on `app`; its exit code lands in `exit_code`.
void add_switch_commands(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
