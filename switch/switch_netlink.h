// The machine's side of `switch apply`: its state read through rtnetlink
// (libnl-route 3.7) and /proc/sys, and each Change made and undone the same
// way, in the calling thread's network namespace (enter one with
// lab::run_in_netns). Changing needs CAP_NET_ADMIN.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "switch/switch_apply.h"

namespace hpn::sw {

Result<SwitchState> read_switch_state(const std::vector<std::string>& sysctl_keys);

class NetlinkSwitchOps final : public SwitchOps {
 public:
  NetlinkSwitchOps();
  ~NetlinkSwitchOps() override;
  Status apply(const Change& change) override;
  Status undo(const Change& change) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpn::sw
