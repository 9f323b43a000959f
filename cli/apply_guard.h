// What host apply and switch apply share on the command line: a signal
// guard under which an apply stops between steps and rolls back, and running
// the work inside a named network namespace (--netns).
#pragma once

#include <csignal>
#include <functional>
#include <string>

#include "blueprint/result.h"

namespace hpn::cli {

// SIGINT, SIGTERM and SIGHUP while it lives are noted, not fatal: the apply
// asks apply_signal() between steps (apply_plan's `stop`) and rolls back.
// The earlier handlers come back when it goes. One at a time.
class ApplySignalGuard {
 public:
  ApplySignalGuard();
  ~ApplySignalGuard();
  ApplySignalGuard(const ApplySignalGuard&) = delete;
  ApplySignalGuard& operator=(const ApplySignalGuard&) = delete;

 private:
  struct sigaction old_[3];
};

// The signal noted since the guard was made, or 0.
int apply_signal();

// Runs `work` inside the named namespace, or here when `netns` is empty.
Status in_namespace(const std::string& netns, const std::function<Status()>& work);

}  // namespace hpn::cli
