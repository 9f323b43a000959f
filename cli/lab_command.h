// `hpnctl lab up | down | status`: argument parsing and exit codes for the
// lab (lab/lab.h does the work).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the `lab` subcommand tree on `app`. When one of its commands
// runs (during app.parse()), its exit code is stored in `exit_code`, which
// stays -1 otherwise: 0 ok, 2 bad input (blueprint, wiring file, size),
// 3 environment (not root, a lab already up, a kernel operation failed).
void add_lab_commands(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
