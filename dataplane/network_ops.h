// The side effects of the lab, behind one narrow interface (STYLE.md §2):
// named network namespaces, veth pairs between them, one declarative
// configuration per namespace, and reading interfaces back. netlink_ops.h
// is the real one (libnl); tests use a fake that records what it is asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "dataplane/lab_topology.h"
#include "dataplane/routing.h"

namespace hpn::lab {

// One end of a veth pair to create, in an existing named namespace.
struct VethEnd {
  std::string netns;
  std::string ifname;
  Mac mac{};
};

// A /proc/sys entry, as a path below /proc/sys ("net/ipv6/conf/etp5/ioam6_id"):
// slashes, not sysctl(8)'s dots, because interface names may hold dots.
struct Sysctl {
  std::string key;
  std::string value;
  bool optional = false;  // skipped where this kernel does not have the key
};

struct AddressConfig {
  std::string ifname;
  std::string address;  // without length
  int prefix_len = 64;
  // IFA_F_NOPREFIXROUTE: the address without its on-link prefix route (a
  // host's bond address on each member port, reached only through a ToR).
  bool no_prefix_route = false;
};

struct NeighbourConfig {
  std::string ifname;
  std::string address;
  Mac mac{};
};

// Everything inside one namespace, applied in this order: sysctls, IOAM
// namespaces, addresses, links up (with "lo"), permanent neighbours, source
// rules, routes, nftables.
struct NamespaceConfig {
  std::vector<Sysctl> sysctls;
  std::vector<std::uint16_t> ioam_namespaces;
  std::vector<AddressConfig> addresses;
  std::vector<std::string> links_up;
  std::vector<NeighbourConfig> neighbours;
  std::vector<SourceRule> rules;
  std::vector<Route> routes;
  std::string nft_script;  // empty: none
};

// An interface as the kernel reports it.
struct InterfaceState {
  std::string ifname;
  std::string mac;                     // "02:01:00:00:00:50"
  bool up = false;                     // administratively up
  bool carrier = false;                // lower layer up (the veth peer is up)
  std::vector<std::string> addresses;  // "fd48:504e::10/64", IPv6 only
};

class NetworkOps {
 public:
  virtual ~NetworkOps() = default;
  // As `ip netns add NAME`: a bind mount under /run/netns.
  virtual Status create_namespace(const std::string& name) = 0;
  // As `ip netns del NAME`; a name that does not exist is not an error.
  virtual Status delete_namespace(const std::string& name) = 0;
  // Every named namespace (the names under /run/netns).
  virtual Result<std::vector<std::string>> namespaces() = 0;
  virtual Status add_veth(const VethEnd& a, const VethEnd& z) = 0;
  virtual Status configure(const std::string& netns, const NamespaceConfig& config) = 0;
  virtual Result<std::vector<InterfaceState>> interfaces(const std::string& netns) = 0;
};

}  // namespace hpn::lab
