#include "cli/apply_guard.h"

#include "system/netns.h"

namespace hpn::cli {

namespace {

volatile std::sig_atomic_t g_signal = 0;
extern "C" void note_apply_signal(int sig) { g_signal = sig; }
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

ApplySignalGuard::ApplySignalGuard() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = note_apply_signal;
  sa.sa_flags = SA_RESTART;  // netlink calls go on; the apply stops between steps
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
}

ApplySignalGuard::~ApplySignalGuard() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

int apply_signal() { return g_signal; }

Status in_namespace(const std::string& netns, const std::function<Status()>& work) {
  if (netns.empty()) return work();
  return lab::run_in_netns(netns, work);
}

}  // namespace hpn::cli
