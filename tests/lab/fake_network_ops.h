// A NetworkOps that only records: what the lab would make, checked
// without root. It can be told to fail at the Nth operation.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lab/network_ops.h"

namespace hpn::lab::testing {

class FakeNetworkOps final : public NetworkOps {
 public:
  std::set<std::string> netns;  // the named namespaces that "exist"
  std::vector<std::pair<VethEnd, VethEnd>> veths;
  std::vector<std::pair<std::string, NamespaceConfig>> configured;
  std::vector<std::string> routing_started, vtysh_applied;  // netns of each
  std::vector<std::pair<SwitchAgentLaunch, std::string>> agents;  // launch, its switch-agent.json
  std::map<std::string, std::vector<RouteState>> kernel_routes;  // by netns
  std::map<std::string, std::vector<RuleState>> kernel_rules;    // by netns
  struct HostApplied {
    std::string netns, host;
    bool no_bond = false;
  };
  std::vector<HostApplied> applied;
  struct SwitchApplied {
    std::string netns, dir;
    std::vector<switchconfig::SwitchFile> files;
  };
  std::vector<SwitchApplied> switches_applied;
  std::vector<std::pair<std::string, std::string>> announced;  // netns, "port address"
  int stopped_routers = 0;
  std::vector<int> stopped_processes;
  int fail_at = -1;  // the index of the operation that fails, -1 never
  int operations = 0;

  Status create_namespace(const std::string& name) override {
    if (auto f = maybe_fail("create " + name); !f) return f;
    if (!netns.insert(name).second) return Error{"exists: " + name};
    return {};
  }
  Status delete_namespace(const std::string& name) override {
    netns.erase(name);
    // A veth pair goes with either end's namespace.
    std::erase_if(veths, [&](const auto& v) { return v.first.netns == name || v.second.netns == name; });
    return {};
  }
  Result<std::vector<std::string>> namespaces() override {
    return std::vector<std::string>(netns.begin(), netns.end());
  }
  Status add_veth(const VethEnd& a, const VethEnd& z) override {
    if (auto f = maybe_fail("veth " + a.ifname); !f) return f;
    // "" is the machine's own namespace, always there.
    if ((!a.netns.empty() && !netns.count(a.netns)) || (!z.netns.empty() && !netns.count(z.netns))) {
      return Error{"no such namespace"};
    }
    veths.emplace_back(a, z);
    return {};
  }
  Status configure(const std::string& name, const NamespaceConfig& config) override {
    if (auto f = maybe_fail("configure " + name); !f) return f;
    configured.emplace_back(name, config);
    return {};
  }
  std::string routing_missing;  // check_routing's error, when set
  Status check_routing(bool) override {
    if (!routing_missing.empty()) return Error{routing_missing};
    return {};
  }
  Status start_routing(const RoutingDaemons& d, const std::string&) override {
    std::lock_guard<std::mutex> guard(lock_);  // lab up starts routers in parallel
    if (auto f = maybe_fail("routing " + d.netns); !f) return f;
    routing_started.push_back(d.netns);
    return {};
  }
  std::string routing_problem(const RoutingDaemons&) override { return ""; }
  Status stop_routing(const std::vector<RoutingDaemons>& sets) override {
    stopped_routers += static_cast<int>(sets.size());
    return {};
  }
  // Every session of a started router is up: one per interface it has.
  Result<std::string> bgpd_show(const std::string& name, const std::string&) override {
    std::string out = "{";
    for (const auto& [a, z] : veths) {
      for (const auto* end : {&a, &z}) {
        if (end->netns != name) continue;
        out += (out.size() > 1 ? "," : "") + fmt::format("\"{}\":{{\"bgpState\":\"Established\"}}", end->ifname);
      }
    }
    return out + "}";
  }
  Status vtysh_apply(const RoutingDaemons& d, const std::string&, const std::string&) override {
    vtysh_applied.push_back(d.netns);
    return {};
  }
  Result<int> start_switch_agent(const SwitchAgentLaunch& launch, const std::string& config_text) override {
    agents.emplace_back(launch, config_text);
    return 4242 + static_cast<int>(agents.size()) - 1;
  }
  std::map<std::string, long> machine_sysctls;  // what lab up raised them to
  Status raise_machine_sysctls(const std::map<std::string, long>& at_least) override {
    for (const auto& [key, value] : at_least) machine_sysctls[key] = std::max(machine_sysctls[key], value);
    return {};
  }
  Status stop_process(int pid) override {
    stopped_processes.push_back(pid);
    return {};
  }
  // Called from several threads at once (lab up polls routers in parallel):
  // look-ups only.
  Result<std::vector<RouteState>> routes(const std::string& name) override {
    if (name.empty()) return machine_routes;
    auto it = kernel_routes.find(name);
    return it == kernel_routes.end() ? std::vector<RouteState>{} : it->second;
  }
  Result<std::vector<RuleState>> rules(const std::string& name) override {
    auto it = kernel_rules.find(name);
    return it == kernel_rules.end() ? std::vector<RuleState>{} : it->second;
  }
  Result<size_t> apply_host(const std::string& name, const HostNetwork& profile, bool no_bond) override {
    std::lock_guard<std::mutex> guard(lock_);  // lab up applies hosts in parallel
    if (auto f = maybe_fail("host apply " + name); !f) return f.error();
    applied.push_back({name, profile.host, no_bond});
    return profile.bonds.size();
  }
  Result<size_t> apply_switch(const std::string& name, const std::string& dir,
                              const std::vector<switchconfig::SwitchFile>& files) override {
    std::lock_guard<std::mutex> guard(lock_);  // lab up applies switches in parallel
    if (auto f = maybe_fail("switch apply " + name); !f) return f.error();
    switches_applied.push_back({name, dir, files});
    return files.size();
  }
  // What a ToR's host-route agent would make of an announcement: a route
  // to each address of the bond out of the port at each member's far end.
  Status announce_host(const std::string& name, const HostNetwork& profile,
                       const std::set<std::string>& dark) override {
    for (const auto& b : profile.bonds) {
      for (const auto& m : b.members) {
        if (dark.count(m.port)) continue;
        for (const auto* address : {&b.ipv4, &b.ipv6}) {
          if (!*address) continue;
          const auto& a = **address;
          announced.emplace_back(name, m.port + " " + a.address);
          for (const auto& [x, y] : veths) {
            for (auto [mine, far] : {std::pair{&x, &y}, std::pair{&y, &x}}) {
              if (mine->netns == name && mine->ifname == m.port) {
                kernel_routes[far->netns].push_back(
                    {a.family, a.address + (a.family == 4 ? "/32" : "/128"), 254, 80, {far->ifname}});
              }
            }
          }
        }
      }
    }
    return {};
  }
  Status remove_tree(const std::string& path) override {
    claimed.erase(path);
    return {};
  }
  std::set<std::string> claimed;  // claim_directory's, until remove_tree
  Result<bool> claim_directory(const std::string& path) override { return claimed.insert(path).second; }
  std::vector<std::string> ssh_keys;                          // the directories keys were made in
  std::vector<std::pair<std::string, std::string>> sshd;      // netns, its ListenAddress
  std::vector<std::vector<std::string>> processes_stopped_in;  // each stop_processes_in call
  std::vector<RouteState> machine_routes;                     // routes("") answers these
  Status check_ssh() override { return {}; }
  Result<std::string> make_ssh_keys(const std::string& dir, const std::string&) override {
    ssh_keys.push_back(dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);  // where known_hosts and sshd_config go
    return std::string("ssh-ed25519 AAAAfake");
  }
  Result<int> start_sshd(const std::string& name, const std::vector<std::string>& args, const std::string&) override {
    if (auto f = maybe_fail("sshd " + name); !f) return f.error();
    std::string listen;
    for (const auto& a : args) {
      if (a.starts_with("ListenAddress=")) listen = a.substr(14);
    }
    sshd.emplace_back(name, listen);
    return static_cast<int>(1000 + sshd.size());
  }
  Result<int> stop_processes_in(const std::vector<std::string>& names) override {
    processes_stopped_in.push_back(names);
    return 0;
  }
  Result<std::vector<InterfaceState>> interfaces(const std::string& name) override {
    std::vector<InterfaceState> out;
    for (const auto& [a, z] : veths) {
      for (const auto* end : {&a, &z}) {
        if (end->netns == name) out.push_back({end->ifname, to_string(end->mac), true, true, {}});
      }
    }
    return out;
  }

 private:
  std::mutex lock_;
  Status maybe_fail(const std::string& what) {
    if (operations++ == fail_at) return Error{"injected failure at " + what};
    return {};
  }
};

}  // namespace hpn::lab::testing
