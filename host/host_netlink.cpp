#include "host/host_netlink.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "system/nl_util.h"

namespace hpn::host {

namespace {

// linux/if_bonding.h (it clashes with glibc's net/if.h): bonding modes and
// hash policies as IFLA_BOND_MODE / IFLA_BOND_XMIT_HASH_POLICY take them.
constexpr std::uint8_t kBondModeActiveBackup = 1, kBondModeXor = 2, kBondMode8023ad = 4;
constexpr std::uint8_t kXmitPolicyLayer34 = 1;
// drivers/net/bonding/bond_options.c: arp_validate "active" = 1, "all" = active|backup.
constexpr std::uint32_t kArpValidateActive = 1, kArpValidateAll = 3;

using Link = std::unique_ptr<rtnl_link, nl::Deleter<rtnl_link, rtnl_link_put>>;
using AddrObj = std::unique_ptr<rtnl_addr, nl::Deleter<rtnl_addr, rtnl_addr_put>>;
using RuleObj = std::unique_ptr<rtnl_rule, nl::Deleter<rtnl_rule, rtnl_rule_put>>;
using RouteObj = std::unique_ptr<rtnl_route, nl::Deleter<rtnl_route, rtnl_route_put>>;
using NeighObj = std::unique_ptr<rtnl_neigh, nl::Deleter<rtnl_neigh, rtnl_neigh_put>>;

int af(int family) { return family == 4 ? AF_INET : AF_INET6; }

Result<int> ifindex(const std::string& ifname) {
  const unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) return Error{fmt::format("no interface {}", ifname)};
  return static_cast<int>(index);
}

// RTM_NEWLINK of kind "bond" with its options as raw IFLA_BOND_* attributes
// (libnl 3.7 has no setters for them; linux/if_link.h, bond_netlink.c).
Status create_bond(nl_sock* sk, const Bond& b) {
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  if (msg == nullptr) return Error{"netlink: out of memory"};
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  bool built = nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO) == 0 && nla_put_string(msg, IFLA_IFNAME, b.name.c_str()) == 0 &&
               nla_put(msg, IFLA_ADDRESS, 6, b.mac.data()) == 0 && nla_put_u32(msg, IFLA_MTU, static_cast<std::uint32_t>(b.mtu)) == 0;
  nlattr* info = nla_nest_start(msg, IFLA_LINKINFO);
  built = built && info != nullptr && nla_put_string(msg, IFLA_INFO_KIND, "bond") == 0;
  nlattr* data = nla_nest_start(msg, IFLA_INFO_DATA);
  const std::uint8_t mode = b.mode == BondMode::balance_xor ? kBondModeXor
                            : b.mode == BondMode::lacp      ? kBondMode8023ad
                                                                : kBondModeActiveBackup;
  // The mode first: the kernel applies options in attribute order, and the
  // others are checked against it.
  built = built && data != nullptr && nla_put_u8(msg, IFLA_BOND_MODE, mode) == 0;
  if (b.layer34) built = built && nla_put_u8(msg, IFLA_BOND_XMIT_HASH_POLICY, kXmitPolicyLayer34) == 0;
  if (b.arp_monitor) {
    built = built && nla_put_u32(msg, IFLA_BOND_ARP_INTERVAL, static_cast<std::uint32_t>(b.arp_interval_ms)) == 0;
    nlattr* targets = nla_nest_start(msg, IFLA_BOND_ARP_IP_TARGET);
    built = built && targets != nullptr;
    for (size_t i = 0; built && i < b.arp_targets.size(); ++i) {
      in_addr a{};
      inet_pton(AF_INET, b.arp_targets[i].c_str(), &a);
      built = nla_put_u32(msg, static_cast<int>(i), a.s_addr) == 0;  // network order, as nla_get_be32 reads it
    }
    if (built) nla_nest_end(msg, targets);
    built = built && nla_put_u32(msg, IFLA_BOND_ARP_VALIDATE, b.arp_validate_all ? kArpValidateAll : kArpValidateActive) == 0 &&
            nla_put_u32(msg, IFLA_BOND_ARP_ALL_TARGETS, 0) == 0;  // "any"
  } else {
    built = built && nla_put_u32(msg, IFLA_BOND_MIIMON, static_cast<std::uint32_t>(b.miimon_ms)) == 0;
  }
  if (b.lacp_fast) built = built && nla_put_u8(msg, IFLA_BOND_AD_LACP_RATE, 1) == 0;
  if (!built) {
    nlmsg_free(msg);
    return Error{fmt::format("bond {}: netlink message too large", b.name)};
  }
  nla_nest_end(msg, data);
  nla_nest_end(msg, info);
  const int err = nl_send_sync(sk, msg);  // frees msg, waits for the kernel's answer
  if (err == -NLE_OPNOTSUPP || err == -NLE_NODEV) {
    return Error{fmt::format("bond {}: this kernel has no bonding module (creating a link of kind 'bond' failed: {}); "
                             "load it (modprobe bonding), or run with --no-bond to configure the member ports "
                             "without a bond",
                             b.name, nl_geterror(err))};
  }
  if (err < 0) return nl::error(fmt::format("bond {}", b.name), err);
  return {};
}

std::uint8_t mode_number(const std::string& mode) {
  static const char* const names[] = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                      "802.3ad",    "balance-tlb",   "balance-alb"};
  for (std::uint8_t i = 0; i < 7; ++i) {
    if (mode == names[i]) return i;
  }
  return kBondModeXor;
}

// RTM_NEWLINK on an existing bond with mode, hash policy and monitor (the
// kernel refuses a mode change while the bond is up or has ports: that
// error is the step's, and rollback follows).
Status set_bond_options(nl_sock* sk, const std::string& name, const BondState& b) {
  nl_msg* msg = nlmsg_alloc_simple(RTM_NEWLINK, 0);
  if (msg == nullptr) return Error{"netlink: out of memory"};
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  bool built = nlmsg_append(msg, &ifi, sizeof ifi, NLMSG_ALIGNTO) == 0 && nla_put_string(msg, IFLA_IFNAME, name.c_str()) == 0;
  nlattr* info = nla_nest_start(msg, IFLA_LINKINFO);
  built = built && info != nullptr && nla_put_string(msg, IFLA_INFO_KIND, "bond") == 0;
  nlattr* data = nla_nest_start(msg, IFLA_INFO_DATA);
  built = built && data != nullptr && nla_put_u8(msg, IFLA_BOND_MODE, mode_number(b.mode)) == 0 &&
          nla_put_u8(msg, IFLA_BOND_XMIT_HASH_POLICY, b.xmit_hash_policy == "layer3+4" ? kXmitPolicyLayer34 : 0) == 0;
  if (b.arp_interval_ms > 0) {
    built = built && nla_put_u32(msg, IFLA_BOND_MIIMON, 0) == 0 &&
            nla_put_u32(msg, IFLA_BOND_ARP_INTERVAL, static_cast<std::uint32_t>(b.arp_interval_ms)) == 0;
    nlattr* targets = nla_nest_start(msg, IFLA_BOND_ARP_IP_TARGET);
    built = built && targets != nullptr;
    for (size_t i = 0; built && i < b.arp_targets.size(); ++i) {
      in_addr a{};
      inet_pton(AF_INET, b.arp_targets[i].c_str(), &a);
      built = nla_put_u32(msg, static_cast<int>(i), a.s_addr) == 0;
    }
    if (built) nla_nest_end(msg, targets);
  } else {
    built = built && nla_put_u32(msg, IFLA_BOND_ARP_INTERVAL, 0) == 0 &&
            nla_put_u32(msg, IFLA_BOND_MIIMON, static_cast<std::uint32_t>(b.miimon_ms)) == 0;
  }
  if (!built) {
    nlmsg_free(msg);
    return Error{fmt::format("bond {}: netlink message too large", name)};
  }
  nla_nest_end(msg, data);
  nla_nest_end(msg, info);
  if (int err = nl_send_sync(sk, msg); err < 0) return nl::error(fmt::format("bond {} options", name), err);
  return {};
}

BondState bond_state_of(const Bond& b) {
  BondState s;
  s.mode = std::string(to_string(b.mode));
  s.xmit_hash_policy = b.layer34 ? "layer3+4" : "layer2";
  if (b.arp_monitor) {
    s.arp_interval_ms = b.arp_interval_ms;
    s.arp_targets = b.arp_targets;
  } else {
    s.miimon_ms = b.miimon_ms;
  }
  return s;
}

Status delete_link(nl_sock* sk, const std::string& name) {
  Link link(rtnl_link_alloc());
  rtnl_link_set_name(link.get(), name.c_str());
  if (int err = rtnl_link_delete(sk, link.get()); err < 0) return nl::error(fmt::format("delete {}", name), err);
  return {};
}

// One RTM_NEWLINK/SETLINK on an existing link with only the attributes asked for.
struct LinkEdit {
  std::optional<bool> up;
  std::optional<std::string> master;  // "" releases
  std::optional<std::string> mac;
  std::optional<int> mtu;
  std::optional<std::string> name;
};

LinkEdit set_up(bool up) {
  LinkEdit e;
  e.up = up;
  return e;
}
LinkEdit set_master(const std::string& master) {
  LinkEdit e;
  e.master = master;
  return e;
}
LinkEdit set_mac(const std::string& mac) {
  LinkEdit e;
  e.mac = mac;
  return e;
}
LinkEdit set_name(const std::string& name) {
  LinkEdit e;
  e.name = name;
  return e;
}
LinkEdit set_mtu(const std::string& mtu) {
  LinkEdit e;
  e.mtu = std::stoi(mtu);
  return e;
}

Status edit_link(nl_sock* sk, const std::string& name, const LinkEdit& e) {
  rtnl_link* found = nullptr;
  if (int err = rtnl_link_get_kernel(sk, 0, name.c_str(), &found); err < 0) return nl::error(name, err);
  Link orig(found), change(rtnl_link_alloc());
  if (e.up) {
    if (*e.up) rtnl_link_set_flags(change.get(), IFF_UP);
    else rtnl_link_unset_flags(change.get(), IFF_UP);
  }
  if (e.master) {
    int master = 0;
    if (!e.master->empty()) {
      auto index = ifindex(*e.master);
      if (!index) return index.error();
      master = *index;
    }
    rtnl_link_set_master(change.get(), master);
  }
  nl::Addr mac;
  if (e.mac) {
    Mac b;
    if (!parse_mac(*e.mac, b)) return Error{fmt::format("{}: bad MAC {}", name, *e.mac)};
    mac.reset(nl_addr_build(AF_LLC, b.data(), b.size()));
    rtnl_link_set_addr(change.get(), mac.get());
  }
  if (e.mtu) rtnl_link_set_mtu(change.get(), static_cast<unsigned>(*e.mtu));
  if (e.name) rtnl_link_set_name(change.get(), e.name->c_str());
  if (int err = rtnl_link_change(sk, orig.get(), change.get(), 0); err < 0) return nl::error(name, err);
  return {};
}

Result<AddrObj> address_object(const std::string& ifname, const IpPrefix& p) {
  auto index = ifindex(ifname);
  if (!index) return index.error();
  auto local = nl::parse(p.address, p.length, p.family);
  if (!local) return local.error();
  AddrObj a(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(a.get(), *index);
  rtnl_addr_set_family(a.get(), af(p.family));
  rtnl_addr_set_local(a.get(), local->get());
  rtnl_addr_set_prefixlen(a.get(), p.length);
  return a;
}

// An undo that finds its object gone already is done: the kernel removes
// IPv6 addresses with their link going down, routes with their link.
bool gone(int err) { return err == -NLE_OBJ_NOTFOUND || err == -NLE_NOADDR || err == -NLE_NODEV; }

Status address(nl_sock* sk, const Change& c, bool add) {
  auto a = address_object(c.target, c.prefix);
  if (!a) return add ? a.error() : Status{};  // the link itself is gone
  // No duplicate address detection: the plan made the address unique, and
  // `host announce` tells the ToRs; DAD would hold it tentative meanwhile.
  unsigned flags = c.prefix.family == 6 ? IFA_F_NODAD : 0;
  if (c.no_prefix_route) flags |= IFA_F_NOPREFIXROUTE;
  if (add) rtnl_addr_set_flags(a->get(), flags);
  const int err = add ? rtnl_addr_add(sk, a->get(), NLM_F_CREATE | NLM_F_EXCL) : rtnl_addr_delete(sk, a->get(), 0);
  if (err < 0 && !(!add && gone(err))) return nl::error(fmt::format("addr {} dev {}", c.prefix.text(), c.target), err);
  return {};
}

Status rule(nl_sock* sk, const Change& c, bool add) {
  auto src = nl::parse(c.prefix.address, c.prefix.length, c.prefix.family);
  if (!src) return src.error();
  RuleObj r(rtnl_rule_alloc());
  rtnl_rule_set_family(r.get(), af(c.prefix.family));
  rtnl_rule_set_src(r.get(), src->get());
  rtnl_rule_set_table(r.get(), static_cast<std::uint32_t>(c.table));
  rtnl_rule_set_prio(r.get(), static_cast<std::uint32_t>(c.priority));
  rtnl_rule_set_action(r.get(), FR_ACT_TO_TBL);
  const int err = add ? rtnl_rule_add(sk, r.get(), NLM_F_CREATE | NLM_F_EXCL) : rtnl_rule_delete(sk, r.get(), 0);
  if (err < 0 && !(!add && gone(err))) return nl::error(fmt::format("rule from {} table {}", c.prefix.text(), c.table), err);
  return {};
}

// Adds (hops given, `flags` CREATE|EXCL or CREATE|REPLACE) or deletes (no
// hops: every next hop of the route goes) the route of c's table, prefix
// and metric (the kernel's key: another metric is another route).
Status route(nl_sock* sk, const Change& c, const std::vector<NextHopState>& hops, int protocol, int flags) {
  auto dst = nl::parse(c.prefix.address, c.prefix.length, c.prefix.family);
  if (!dst) return dst.error();
  RouteObj r(rtnl_route_alloc());
  rtnl_route_set_family(r.get(), static_cast<std::uint8_t>(af(c.prefix.family)));
  rtnl_route_set_dst(r.get(), dst->get());
  rtnl_route_set_table(r.get(), static_cast<std::uint32_t>(c.table));
  rtnl_route_set_type(r.get(), RTN_UNICAST);
  rtnl_route_set_priority(r.get(), static_cast<std::uint32_t>(c.metric));
  for (const auto& h : hops) {
    auto index = ifindex(h.ifname);
    if (!index) return index.error();
    rtnl_nexthop* nh = rtnl_route_nh_alloc();  // the route owns it once added
    rtnl_route_nh_set_ifindex(nh, *index);
    if (!h.gateway.empty()) {
      auto gw = nl::parse(h.gateway, c.prefix.family == 4 ? 32 : 128, c.prefix.family);
      if (!gw) {
        rtnl_route_nh_free(nh);
        return gw.error();
      }
      rtnl_route_nh_set_gateway(nh, gw->get());
    }
    if (h.onlink) rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
    rtnl_route_add_nexthop(r.get(), nh);
  }
  const std::string what = fmt::format("route {} table {} metric {}", c.prefix.text(), c.table, c.metric);
  if (hops.empty()) {
    // Universe, as the route was made: without it libnl guesses scope link
    // for a route without gateways, and the kernel finds nothing to delete.
    rtnl_route_set_scope(r.get(), RT_SCOPE_UNIVERSE);
    if (protocol != 0) rtnl_route_set_protocol(r.get(), static_cast<std::uint8_t>(protocol));
    if (int err = rtnl_route_delete(sk, r.get(), 0); err < 0 && !gone(err)) return nl::error(what, err);
    return {};
  }
  rtnl_route_set_protocol(r.get(), static_cast<std::uint8_t>(protocol));
  rtnl_route_set_scope(r.get(), RT_SCOPE_UNIVERSE);
  if (int err = rtnl_route_add(sk, r.get(), flags); err < 0) return nl::error(what, err);
  return {};
}

Status neighbour(nl_sock* sk, const Change& c, const std::string& mac) {
  auto index = ifindex(c.target);
  if (!index) return index.error();
  auto dst = nl::parse(c.prefix.address, c.prefix.length, c.prefix.family);
  if (!dst) return dst.error();
  NeighObj n(rtnl_neigh_alloc());
  rtnl_neigh_set_family(n.get(), af(c.prefix.family));
  rtnl_neigh_set_ifindex(n.get(), *index);
  rtnl_neigh_set_dst(n.get(), dst->get());
  const std::string what = fmt::format("neigh {} dev {}", c.prefix.address, c.target);
  if (mac.empty()) {
    if (int err = rtnl_neigh_delete(sk, n.get(), 0); err < 0 && !gone(err)) return nl::error(what, err);
    return {};
  }
  Mac b;
  if (!parse_mac(mac, b)) return Error{fmt::format("{}: bad MAC {}", what, mac)};
  nl::Addr ll(nl_addr_build(AF_LLC, b.data(), b.size()));
  rtnl_neigh_set_lladdr(n.get(), ll.get());
  rtnl_neigh_set_state(n.get(), NUD_PERMANENT);
  if (int err = rtnl_neigh_add(sk, n.get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0) return nl::error(what, err);
  return {};
}

}  // namespace

struct NetlinkHostOps::Impl {
  nl::Sock sk;
};

NetlinkHostOps::NetlinkHostOps() : impl_(std::make_unique<Impl>()) {}
NetlinkHostOps::~NetlinkHostOps() = default;

// Connected on first use, so the socket belongs to the namespace of the
// thread that applies.
Result<nl_sock*> NetlinkHostOps::socket() {
  if (!impl_->sk) {
    auto sk = nl::connect_route();
    if (!sk) return sk.error();
    impl_->sk = std::move(sk.value());
  }
  return impl_->sk.get();
}

Status NetlinkHostOps::apply(const Change& c) {
  auto sk = socket();
  if (!sk) return sk.error();
  switch (c.kind) {
    case ChangeKind::sysctl: return write_sysctl(c.target, c.value);
    case ChangeKind::create_bond: return create_bond(*sk, *c.bond);
    case ChangeKind::bond_options: return set_bond_options(*sk, c.target, bond_state_of(*c.bond));
    case ChangeKind::release: return edit_link(*sk, c.target, set_master(""));
    case ChangeKind::remove_address: return address(*sk, c, false);
    case ChangeKind::remove_route: return route(*sk, c, {}, c.protocol, 0);
    case ChangeKind::link_down: return edit_link(*sk, c.target, set_up(false));
    case ChangeKind::link_up: return edit_link(*sk, c.target, set_up(true));
    case ChangeKind::enslave: return edit_link(*sk, c.target, set_master(c.value));
    case ChangeKind::set_mac: return edit_link(*sk, c.target, set_mac(c.value));
    case ChangeKind::rename: return edit_link(*sk, c.target, set_name(c.value));
    case ChangeKind::set_mtu: return edit_link(*sk, c.target, set_mtu(c.value));
    case ChangeKind::add_address: return address(*sk, c, true);
    case ChangeKind::add_rule: return rule(*sk, c, true);
    case ChangeKind::set_route:
      return route(*sk, c, c.nexthops, RTPROT_STATIC,
                   NLM_F_CREATE | (c.old_nexthops.empty() ? NLM_F_EXCL : NLM_F_REPLACE));
    case ChangeKind::set_neighbour: return neighbour(*sk, c, c.mac);
  }
  return Error{"unknown change"};
}

Status NetlinkHostOps::undo(const Change& c) {
  auto sk = socket();
  if (!sk) return sk.error();
  switch (c.kind) {
    case ChangeKind::sysctl:
      // A key that did not exist before belonged to a link this run made;
      // it goes with the link.
      if (c.old_value.empty()) return {};
      return write_sysctl(c.target, c.old_value);
    case ChangeKind::create_bond: return delete_link(*sk, c.target);
    case ChangeKind::bond_options: return set_bond_options(*sk, c.target, c.old_bond);
    case ChangeKind::release: return edit_link(*sk, c.target, set_master(c.old_value));
    case ChangeKind::remove_address: return address(*sk, c, true);  // no DAD: it was in use already
    case ChangeKind::remove_route: return route(*sk, c, c.old_nexthops, c.protocol, NLM_F_CREATE | NLM_F_EXCL);
    case ChangeKind::link_down: return edit_link(*sk, c.target, set_up(true));
    case ChangeKind::link_up: return edit_link(*sk, c.target, set_up(false));
    case ChangeKind::enslave: return edit_link(*sk, c.target, set_master(c.old_value));
    case ChangeKind::set_mac: return edit_link(*sk, c.target, set_mac(c.old_value));
    case ChangeKind::rename: return edit_link(*sk, c.value, set_name(c.target));
    case ChangeKind::set_mtu: return edit_link(*sk, c.target, set_mtu(c.old_value));
    case ChangeKind::add_address: return address(*sk, c, false);
    case ChangeKind::add_rule: return rule(*sk, c, false);
    case ChangeKind::set_route:
      if (c.old_nexthops.empty()) return route(*sk, c, {}, kStaticProtocol, 0);
      return route(*sk, c, c.old_nexthops, c.protocol, NLM_F_CREATE | NLM_F_REPLACE);
    case ChangeKind::set_neighbour: return neighbour(*sk, c, c.old_mac);
  }
  return Error{"unknown change"};
}

}  // namespace hpn::host
