// The real NetworkOps: namespaces as iproute2 makes them (netns.h), links,
// addresses, neighbours, rules and routes through libnl-route, sysctls
// through /proc/sys and faults through `nft -f -`, each inside its
// namespace; a host by host apply's code and a switch by switch apply's. Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
#pragma once

#include "lab/network_ops.h"

namespace hpn::lab {

class NetlinkOps final : public NetworkOps {
 public:
  Status create_namespace(const std::string& name) override;
  Status delete_namespace(const std::string& name) override;
  Result<std::vector<std::string>> namespaces() override;
  Status add_veth(const VethEnd& a, const VethEnd& z) override;
  Status configure(const std::string& netns, const NamespaceConfig& config) override;
  Result<std::vector<InterfaceState>> interfaces(const std::string& netns) override;
  Status check_routing(bool pbrd) override;
  Status start_routing(const RoutingDaemons& daemons, const std::string& frr_conf) override;
  Status stop_routing(const std::vector<RoutingDaemons>& daemons) override;
  std::string routing_problem(const RoutingDaemons& daemons) override;
  Result<std::string> bgpd_show(const std::string& netns, const std::string& command) override;
  Status vtysh_apply(const RoutingDaemons& daemons, const std::string& name, const std::string& lines) override;
  Result<int> start_switch_agent(const SwitchAgentLaunch& launch, const std::string& config_text) override;
  Status stop_process(int pid) override;
  Status raise_machine_sysctls(const std::map<std::string, long>& at_least) override;
  Result<std::vector<RouteState>> routes(const std::string& netns) override;
  Result<std::vector<RuleState>> rules(const std::string& netns) override;
  Result<size_t> apply_host(const std::string& netns, const HostNetwork& profile, bool no_bond) override;
  Result<size_t> apply_switch(const std::string& netns, const std::string& dir,
                              const std::vector<switchconfig::SwitchFile>& files) override;
  Status announce_host(const std::string& netns, const HostNetwork& profile,
                       const std::set<std::string>& dark) override;
  Status remove_tree(const std::string& path) override;
  Result<bool> claim_directory(const std::string& path) override;
  Status check_ssh() override;
  Result<std::string> make_ssh_keys(const std::string& dir, const std::string& comment) override;
  Result<int> start_sshd(const std::string& netns, const std::vector<std::string>& args,
                         const std::string& pid_file) override;
  Result<int> stop_processes_in(const std::vector<std::string>& netns) override;
};

}  // namespace hpn::lab
