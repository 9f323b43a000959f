#include "host/host_state.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "system/nl_util.h"

namespace hpn::host {

const LinkState* HostState::link(const std::string& name) const {
  for (const auto& l : links) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

std::string protocol_name(int protocol) {
  switch (protocol) {
    case RTPROT_UNSPEC: return "unspec";
    case RTPROT_REDIRECT: return "redirect";
    case RTPROT_KERNEL: return "kernel";
    case RTPROT_BOOT: return "boot";
    case RTPROT_STATIC: return "static";
    case RTPROT_RA: return "ra";
    case RTPROT_ZEBRA: return "zebra";
    case RTPROT_BIRD: return "bird";
    case RTPROT_DHCP: return "dhcp";
    case RTPROT_KEEPALIVED: return "keepalived";
    case RTPROT_BGP: return "bgp";
    default: return std::to_string(protocol);
  }
}

namespace {

// linux/if_bonding.h names (it clashes with glibc's net/if.h).
const char* bond_mode_name(unsigned mode) {
  static const char* const names[] = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                      "802.3ad",    "balance-tlb",   "balance-alb"};
  return mode < 7 ? names[mode] : "unknown";
}
const char* hash_policy_name(unsigned policy) {
  static const char* const names[] = {"layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4", "vlan+srcmac"};
  return policy < 6 ? names[policy] : "unknown";
}

// The options of every bond, by ifindex, from one raw RTM_GETLINK dump:
// libnl 3.7 parses IFLA_INFO_DATA of bonds into nothing it hands out.
struct BondDump {
  std::map<int, BondState> by_index;
};

int on_link(nl_msg* msg, void* arg) {
  auto* dump = static_cast<BondDump*>(arg);
  nlmsghdr* h = nlmsg_hdr(msg);
  if (h->nlmsg_type != RTM_NEWLINK) return NL_OK;
  const auto* ifi = static_cast<const ifinfomsg*>(nlmsg_data(h));
  nlattr* tb[IFLA_MAX + 1];
  if (nlmsg_parse(h, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr) < 0 || tb[IFLA_LINKINFO] == nullptr) return NL_OK;
  nlattr* info[IFLA_INFO_MAX + 1];
  if (nla_parse_nested(info, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr) < 0 || info[IFLA_INFO_KIND] == nullptr ||
      std::string(nla_get_string(info[IFLA_INFO_KIND])) != "bond" || info[IFLA_INFO_DATA] == nullptr) {
    return NL_OK;
  }
  nlattr* bond[IFLA_BOND_MAX + 1];
  if (nla_parse_nested(bond, IFLA_BOND_MAX, info[IFLA_INFO_DATA], nullptr) < 0) return NL_OK;
  BondState b;
  if (bond[IFLA_BOND_MODE]) b.mode = bond_mode_name(nla_get_u8(bond[IFLA_BOND_MODE]));
  if (bond[IFLA_BOND_XMIT_HASH_POLICY]) b.xmit_hash_policy = hash_policy_name(nla_get_u8(bond[IFLA_BOND_XMIT_HASH_POLICY]));
  if (bond[IFLA_BOND_MIIMON]) b.miimon_ms = static_cast<int>(nla_get_u32(bond[IFLA_BOND_MIIMON]));
  if (bond[IFLA_BOND_ARP_INTERVAL]) b.arp_interval_ms = static_cast<int>(nla_get_u32(bond[IFLA_BOND_ARP_INTERVAL]));
  if (bond[IFLA_BOND_ARP_IP_TARGET]) {
    nlattr* target;
    int rem;
    nla_for_each_nested(target, bond[IFLA_BOND_ARP_IP_TARGET], rem) {
      if (nla_len(target) != 4) continue;
      char text[INET_ADDRSTRLEN] = "";
      inet_ntop(AF_INET, nla_data(target), text, sizeof text);
      b.arp_targets.push_back(text);
    }
  }
  dump->by_index[ifi->ifi_index] = std::move(b);
  return NL_OK;
}

Result<BondDump> read_bonds() {
  auto sk = nl::connect_route();
  if (!sk) return sk.error();
  BondDump dump;
  nl_socket_modify_cb(sk->get(), NL_CB_VALID, NL_CB_CUSTOM, on_link, &dump);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  if (int err = nl_send_simple(sk->get(), RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof ifi); err < 0) {
    return nl::error("read bonds", err);
  }
  if (int err = nl_recvmsgs_default(sk->get()); err < 0) return nl::error("read bonds", err);
  return dump;
}

}  // namespace

Result<HostState> read_host_state(const std::vector<std::string>& sysctl_keys) {
  auto sk = nl::connect_route();
  if (!sk) return sk.error();
  HostState state;
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sk->get(), AF_UNSPEC, &raw); err < 0) return nl::error("read links", err);
  nl::Cache links(raw);
  auto bonds = read_bonds();
  if (!bonds) return bonds.error();
  std::map<int, std::string> names;
  for (nl_object* o = nl_cache_get_first(links.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* l = reinterpret_cast<rtnl_link*>(o);  // libnl's caches hand out base objects
    names[rtnl_link_get_ifindex(l)] = rtnl_link_get_name(l);
  }
  for (nl_object* o = nl_cache_get_first(links.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* l = reinterpret_cast<rtnl_link*>(o);
    LinkState s;
    s.name = rtnl_link_get_name(l);
    s.ifindex = rtnl_link_get_ifindex(l);
    if (const char* kind = rtnl_link_get_type(l)) s.kind = kind;
    if (nl_addr* mac = rtnl_link_get_addr(l); mac != nullptr && nl_addr_get_len(mac) == 6) {
      Mac b;
      std::copy_n(static_cast<const std::uint8_t*>(nl_addr_get_binary_addr(mac)), 6, b.begin());
      s.mac = hpn::to_string(b);
    }
    s.mtu = static_cast<int>(rtnl_link_get_mtu(l));
    s.up = (rtnl_link_get_flags(l) & IFF_UP) != 0;
    if (int master = rtnl_link_get_master(l); master > 0 && names.count(master)) s.master = names[master];
    if (auto b = bonds->by_index.find(s.ifindex); b != bonds->by_index.end()) s.bond = b->second;
    state.links.push_back(std::move(s));
  }

  if (int err = rtnl_addr_alloc_cache(sk->get(), &raw); err < 0) return nl::error("read addresses", err);
  nl::Cache addrs(raw);
  for (nl_object* o = nl_cache_get_first(addrs.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    auto it = names.find(rtnl_addr_get_ifindex(a));
    const int family = rtnl_addr_get_family(a);
    if (it == names.end() || (family != AF_INET && family != AF_INET6)) continue;
    AddressState s{it->second,
                   {family == AF_INET ? 4 : 6, nl::text(rtnl_addr_get_local(a), family), rtnl_addr_get_prefixlen(a)}};
    s.link_scope = rtnl_addr_get_scope(a) >= RT_SCOPE_LINK;
    s.no_prefix_route = (rtnl_addr_get_flags(a) & IFA_F_NOPREFIXROUTE) != 0;
    state.addresses.push_back(std::move(s));
  }

  if (int err = rtnl_rule_alloc_cache(sk->get(), AF_UNSPEC, &raw); err < 0) return nl::error("read rules", err);
  nl::Cache rules(raw);
  for (nl_object* o = nl_cache_get_first(rules.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_rule*>(o);
    const int family = rtnl_rule_get_family(r);
    if (family != AF_INET && family != AF_INET6) continue;
    RuleState s;
    s.family = family == AF_INET ? 4 : 6;
    nl_addr* src = rtnl_rule_get_src(r);
    s.from = {s.family, nl::text(src, family), src != nullptr ? static_cast<int>(nl_addr_get_prefixlen(src)) : 0};
    s.table = static_cast<int>(rtnl_rule_get_table(r));
    s.priority = static_cast<int>(rtnl_rule_get_prio(r));
    state.rules.push_back(std::move(s));
  }

  if (int err = rtnl_route_alloc_cache(sk->get(), AF_UNSPEC, 0, &raw); err < 0) return nl::error("read routes", err);
  nl::Cache routes(raw);
  for (nl_object* o = nl_cache_get_first(routes.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_route*>(o);
    const int family = rtnl_route_get_family(r);
    if ((family != AF_INET && family != AF_INET6) || rtnl_route_get_type(r) != RTN_UNICAST ||
        rtnl_route_get_table(r) == RT_TABLE_LOCAL) {
      continue;
    }
    RouteState s;
    s.family = family == AF_INET ? 4 : 6;
    nl_addr* dst = rtnl_route_get_dst(r);
    s.to = {s.family, nl::text(dst, family), dst != nullptr ? static_cast<int>(nl_addr_get_prefixlen(dst)) : 0};
    s.table = static_cast<int>(rtnl_route_get_table(r));
    s.protocol = rtnl_route_get_protocol(r);
    s.metric = static_cast<int>(rtnl_route_get_priority(r));
    for (int i = 0; i < rtnl_route_get_nnexthops(r); ++i) {
      rtnl_nexthop* nh = rtnl_route_nexthop_n(r, i);
      NextHopState hop;
      if (nl_addr* gw = rtnl_route_nh_get_gateway(nh)) hop.gateway = nl::text(gw, family);
      if (auto it = names.find(rtnl_route_nh_get_ifindex(nh)); it != names.end()) hop.ifname = it->second;
      hop.onlink = (rtnl_route_nh_get_flags(nh) & RTNH_F_ONLINK) != 0;
      s.nexthops.push_back(std::move(hop));
    }
    std::sort(s.nexthops.begin(), s.nexthops.end(), [](const auto& a, const auto& b) {
      return std::tie(a.gateway, a.ifname) < std::tie(b.gateway, b.ifname);
    });
    state.routes.push_back(std::move(s));
  }

  if (int err = rtnl_neigh_alloc_cache(sk->get(), &raw); err < 0) return nl::error("read neighbours", err);
  nl::Cache neighbours(raw);
  for (nl_object* o = nl_cache_get_first(neighbours.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* n = reinterpret_cast<rtnl_neigh*>(o);
    const int family = rtnl_neigh_get_family(n);
    auto it = names.find(rtnl_neigh_get_ifindex(n));
    if ((family != AF_INET && family != AF_INET6) || it == names.end()) continue;
    NeighbourState s;
    s.ifname = it->second;
    s.family = family == AF_INET ? 4 : 6;
    s.address = nl::text(rtnl_neigh_get_dst(n), family);
    if (nl_addr* ll = rtnl_neigh_get_lladdr(n); ll != nullptr && nl_addr_get_len(ll) == 6) {
      Mac b;
      std::copy_n(static_cast<const std::uint8_t*>(nl_addr_get_binary_addr(ll)), 6, b.begin());
      s.mac = hpn::to_string(b);
    }
    s.permanent = (rtnl_neigh_get_state(n) & NUD_PERMANENT) != 0;
    state.neighbours.push_back(std::move(s));
  }

  for (const auto& key : sysctl_keys) {
    if (auto value = read_sysctl(key)) state.sysctls[key] = *value;
  }
  return state;
}

}  // namespace hpn::host
