// A NetworkOps that only records: what the lab would make, checked
// without root. It can be told to fail at the Nth operation.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/network_ops.h"

namespace hpn::lab::testing {

class FakeNetworkOps final : public NetworkOps {
 public:
  std::set<std::string> netns;  // the named namespaces that "exist"
  std::vector<std::pair<VethEnd, VethEnd>> veths;
  std::vector<std::pair<std::string, NamespaceConfig>> configured;
  int fail_at = -1;  // the index of the operation that fails, -1 never
  int operations = 0;

  Status create_namespace(const std::string& name) override {
    if (auto f = maybe_fail("create " + name); !f) return f;
    if (!netns.insert(name).second) return Error{"exists: " + name};
    return {};
  }
  Status delete_namespace(const std::string& name) override {
    netns.erase(name);
    return {};
  }
  Result<std::vector<std::string>> namespaces() override {
    return std::vector<std::string>(netns.begin(), netns.end());
  }
  Status add_veth(const VethEnd& a, const VethEnd& z) override {
    if (auto f = maybe_fail("veth " + a.ifname); !f) return f;
    if (!netns.count(a.netns) || !netns.count(z.netns)) return Error{"no such namespace"};
    veths.emplace_back(a, z);
    return {};
  }
  Status configure(const std::string& name, const NamespaceConfig& config) override {
    if (auto f = maybe_fail("configure " + name); !f) return f;
    configured.emplace_back(name, config);
    return {};
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
  Status maybe_fail(const std::string& what) {
    if (operations++ == fail_at) return Error{"injected failure at " + what};
    return {};
  }
};

}  // namespace hpn::lab::testing
