// Exit codes and error printing shared by every command.
//   0 ok, 1 findings, 2 usage or input error, 3 environment error.
#pragma once

#include <iostream>
#include <string>

namespace hpn::cli {

constexpr int kOk = 0;
constexpr int kFindings = 1;
constexpr int kInputError = 2;
constexpr int kEnvironmentError = 3;

// "hpnctl: MESSAGE" on stderr; returns `code` so a command can `return fail(...)`.
inline int fail(int code, const std::string& message) {
  std::cerr << "hpnctl: " << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
  return code;
}

// Messages that already start with their `file:line:col:` location (spec and
// design diagnostics, wiring errors) are printed as they are.
inline int fail_located(int code, const std::string& message) {
  std::cerr << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
  return code;
}

}  // namespace hpn::cli
