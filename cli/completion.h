// `hpnctl completion bash|zsh`: a completion script generated from the
// command table at run time (subcommands, their options, the values of an
// option with a fixed set), so it cannot drift from the commands. See hpnctl(1).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace hpn::cli {

// Names the fixed set of an option's values for completion (and its help),
// as a CLI::IsMember check would, without checking them: the command's own
// check gives hpnctl's message. Returns `option`.
inline CLI::Option* with_values(CLI::Option* option, std::initializer_list<const char*> values) {
  std::string list;
  for (const char* v : values) list += (list.empty() ? "" : ",") + std::string(v);
  option->type_name("TEXT:{" + list + "}");
  return option;
}

// Marks an option or argument whose value is a device of the plan, so that
// completion offers the names `hpnctl devices` lists from the --blueprint
// on the command line (hpn-plan by default). `kind`: "DEVICE" (any),
// "HOST" or "SWITCH"; it is also what --help shows as the value's type.
inline CLI::Option* with_devices(CLI::Option* option, const char* kind = "DEVICE") {
  option->type_name(kind);
  return option;
}

// One command of the table as completion sees it.
struct CompletionOption {
  std::vector<std::string> names;   // "-o", "--output"
  std::string description;
  bool takes_value = false;
  std::vector<std::string> values;  // the fixed set (a CLI::IsMember check), empty if open
  std::string devices;              // with_devices(): "", "host" or "tor agg core"; "-": not a device
};

struct CompletionCommand {
  std::string path;  // "hpnctl", "hpnctl spec", "hpnctl spec check"
  std::vector<std::pair<std::string, std::string>> subcommands;  // name, description
  std::vector<CompletionOption> options;  // its own, then those it passes up (CLI11 fallthrough)
  std::vector<std::string> arguments;     // the fixed set of its positional argument, if it has one
  std::string argument_devices = "-";     // its positional is a device: the roles, as CompletionOption::devices
};

// Every visible command of `app`, depth first, root first.
std::vector<CompletionCommand> completion_table(CLI::App& app);

// The script for `shell` ("bash" or "zsh").
std::string completion_script(CLI::App& app, std::string_view shell);

// Registers `completion`; add it last, once the rest of the table is there
// (the script is generated when the command runs, so it would see later
// additions too, but the help lists commands in the order they were added).
void add_completion_command(CLI::App& app, int& exit_code);

}  // namespace hpn::cli
