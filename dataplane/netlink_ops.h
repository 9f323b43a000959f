// The real NetworkOps: namespaces as iproute2 makes them (netns.h), links,
// addresses, neighbours, rules and routes through libnl-route, IOAM
// namespaces through generic netlink (libnl-genl, family "IOAM6"), sysctls
// through /proc/sys and faults through `nft -f -`, each inside its
// namespace. Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
#pragma once

#include "dataplane/network_ops.h"

namespace hpn::lab {

class NetlinkOps final : public NetworkOps {
 public:
  Status create_namespace(const std::string& name) override;
  Status delete_namespace(const std::string& name) override;
  Result<std::vector<std::string>> namespaces() override;
  Status add_veth(const VethEnd& a, const VethEnd& z) override;
  Status configure(const std::string& netns, const NamespaceConfig& config) override;
  Result<std::vector<InterfaceState>> interfaces(const std::string& netns) override;
};

}  // namespace hpn::lab
