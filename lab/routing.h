// The routes and source rules a lab namespace can be given
// (NamespaceConfig in network_ops.h) and the tables they go in. Which routes
// the fabric converges to is FRR's business in the lab; the forwarding model
// that the lab's routing tests hold FRR's routes against is test support
// (fabricmodel/routes.h), not part of the lab.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hpn::lab {

inline constexpr std::uint32_t kMainTable = 254;  // RT_TABLE_MAIN
// A host's per-NIC table is kHostTableBase + NIC number, its rule's
// priority the same number (before the main table's 32766): the host
// profiles' tables (blueprint/host_profile_format.h kBackendTableBase), which lab up
// applies to the lab's hosts.
inline constexpr std::uint32_t kHostTableBase = 1000;

struct NextHop {
  std::string ifname;   // the interface of this device the route leaves by
  std::string gateway;  // the peer port's link-local address
  friend bool operator==(const NextHop&, const NextHop&) = default;
  friend auto operator<=>(const NextHop&, const NextHop&) = default;
};

struct Route {
  std::string prefix;  // "fd48:504e::10", "::"
  int prefix_len = 128;
  std::uint32_t table = kMainTable;
  std::vector<NextHop> nexthops;  // sorted; several = ECMP
};

// `ip -6 rule add from PREFIX/LEN table TABLE priority PRIORITY`
struct SourceRule {
  std::string from;
  int from_len = 128;
  std::uint32_t table = kMainTable;
  std::uint32_t priority = 0;
};

}  // namespace hpn::lab
