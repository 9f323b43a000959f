// `hpnctl export FORMAT`: the plan in the formats of Cumulus PTM, SONiC,
// NetBox, Batfish, a cabling workbook and Graphviz. See hpnctl-export(1).
#pragma once

#include <CLI/CLI.hpp>

namespace hpn::cli {

// Registers the command on `app`. When it runs, its exit code lands in
// `exit_code` (0 ok, 2 usage or input error, 3 environment error); it stays
// untouched when the command was not given.
void add_export_command(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
