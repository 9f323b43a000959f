// The real HostOps: each Change made and undone through rtnetlink (libnl-route
// 3.7) and /proc/sys, in the calling thread's network namespace (enter one
// with lab::run_in_netns). Needs CAP_NET_ADMIN.
#pragma once

#include <memory>

#include "host/host_apply.h"

struct nl_sock;

namespace hpn::host {

class NetlinkHostOps final : public HostOps {
 public:
  NetlinkHostOps();
  ~NetlinkHostOps() override;
  Status apply(const Change& change) override;
  Status undo(const Change& change) override;

 private:
  Result<nl_sock*> socket();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpn::host
