// Exit codes and error printing shared by every command.
//   0 ok, 1 findings, 2 usage or input error, 3 environment error.
#pragma once

#include <iostream>
#include <string>

#include "blueprint/input_file.h"

namespace hpn::cli {

constexpr int kOk = 0;
constexpr int kFindings = 1;
constexpr int kInputError = 2;
constexpr int kEnvironmentError = 3;

// A message for stderr: its lines kept, every other control byte escaped
// (blueprint/input_file.h), so that nothing read from a file or typed can
// drive the terminal.
inline std::string shown(const std::string& message) { return printable(message, true); }

// "hpnctl: MESSAGE" on stderr; returns `code` so a command can `return fail(...)`.
inline int fail(int code, const std::string& message) {
  std::cerr << "hpnctl: " << shown(message);
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
  return code;
}

// Messages that start with their `file:line:col:` location (spec and design
// diagnostics, wiring errors), and may go on with the line quoted and a
// caret under it: prefixed like every other error, and otherwise as they are.
inline int fail_located(int code, const std::string& message) {
  std::cerr << "hpnctl: " << shown(message);
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
  return code;
}

}  // namespace hpn::cli
