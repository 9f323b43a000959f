// The NIC map reader (hostconfig/nic_map.h) that `hpnctl profile --nic-map`
// takes: a host's `ip -j link`, `rdma -j link`, or a hand-written YAML map.
// What it accepts maps every planned port, each to its own interface.
#include <set>

#include "hostconfig/nic_map.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> planned = {"nic0p1", "nic0p2", "nic1p1", "nic1p2"};
  auto map = hpn::parse_nic_map({{"fuzz.json", std::string(hpn::fuzz::text_of(data, size))}}, planned);
  if (!map) return 0;
  HPN_FUZZ_CHECK(map->ports.size() == planned.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    HPN_FUZZ_CHECK(map->ports[i].planned == planned[i]);
    HPN_FUZZ_CHECK(!map->ports[i].ifname.empty() || !map->ports[i].mac.empty());
    if (!map->ports[i].ifname.empty()) HPN_FUZZ_CHECK(names.insert(map->ports[i].ifname).second);
  }
  return 0;
}
