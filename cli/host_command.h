// `hpnctl host apply` and `hpnctl host announce`: a host profile made real on
// the host it belongs to, through netlink, and announced to both ToRs of
// every bond. See hpnctl-host(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the `host` subcommand tree on `app`. When one of its commands
// runs, its exit code lands in `exit_code` (0 ok or nothing to change, 2 bad
// input or a profile of another host, 3 not root or a kernel operation
// failed); it stays untouched when the command was not given.
void add_host_commands(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
