// `hpnctl probe listen | send`: argument parsing, signals and exit codes for
// the probe agent (probe/agent_*.h does the work).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the `probe` subcommand tree on `app`. When one of its commands
// runs (during app.parse()), its exit code is stored in `exit_code`, which
// stays -1 otherwise: 0 ok (lost probes are data, not errors), 2 bad
// arguments or mapping file, 3 environment (no such interface or address, no
// privilege for SO_BINDTODEVICE, output not writable, interrupted send).
void add_probe_commands(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
