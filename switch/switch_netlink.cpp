#include "switch/switch_netlink.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/ioam6_genl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "blueprint/mac.h"
#include "system/nl_util.h"
#include "system/sysctl.h"

namespace hpn::sw {

namespace nl = hpn::host::nl;

namespace {

using Link = std::unique_ptr<rtnl_link, nl::Deleter<rtnl_link, rtnl_link_put>>;
using AddrObj = std::unique_ptr<rtnl_addr, nl::Deleter<rtnl_addr, rtnl_addr_put>>;

// One RTM_SETLINK on an existing link with only the attribute asked for.
Status edit_link(nl_sock* sk, const std::string& name, ChangeKind kind, const std::string& value) {
  rtnl_link* found = nullptr;
  if (int err = rtnl_link_get_kernel(sk, 0, name.c_str(), &found); err < 0) return nl::error(name, err);
  Link orig(found), change(rtnl_link_alloc());
  nl::Addr mac;
  switch (kind) {
    case ChangeKind::link_up: rtnl_link_set_flags(change.get(), IFF_UP); break;
    case ChangeKind::link_down: rtnl_link_unset_flags(change.get(), IFF_UP); break;
    case ChangeKind::set_mtu: rtnl_link_set_mtu(change.get(), static_cast<unsigned>(std::stoi(value))); break;
    case ChangeKind::set_mac: {
      Mac b;
      if (!parse_mac(value, b)) return Error{fmt::format("{}: bad MAC {}", name, value)};
      mac.reset(nl_addr_build(AF_LLC, b.data(), b.size()));
      rtnl_link_set_addr(change.get(), mac.get());
      break;
    }
    default: return Error{"not a link change"};
  }
  if (int err = rtnl_link_change(sk, orig.get(), change.get(), 0); err < 0) {
    return nl::error(fmt::format("{} {}", to_string(kind), name), err);
  }
  return {};
}

Status address(nl_sock* sk, const Change& c, bool add) {
  const unsigned index = if_nametoindex(c.target.c_str());
  if (index == 0) return add ? Status(Error{fmt::format("no interface {}", c.target)}) : Status{};
  auto local = nl::parse(c.prefix.address, c.prefix.length, c.prefix.family);
  if (!local) return local.error();
  AddrObj a(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(a.get(), static_cast<int>(index));
  rtnl_addr_set_family(a.get(), c.prefix.family == 4 ? AF_INET : AF_INET6);
  rtnl_addr_set_local(a.get(), local->get());
  rtnl_addr_set_prefixlen(a.get(), c.prefix.length);
  // No duplicate address detection: every host port of a ToR answers for
  // the one gateway address by design.
  if (add && c.prefix.family == 6) rtnl_addr_set_flags(a.get(), IFA_F_NODAD);
  const int err = add ? rtnl_addr_add(sk, a.get(), NLM_F_CREATE | NLM_F_EXCL) : rtnl_addr_delete(sk, a.get(), 0);
  // The kernel drops a link's IPv6 addresses when the link goes down (an
  // earlier undo): an undo that finds its address gone is done.
  if (err < 0 && (add || (err != -NLE_OBJ_NOTFOUND && err != -NLE_NOADDR && err != -NLE_NODEV))) {
    return nl::error(fmt::format("addr {} dev {}", c.prefix.text(), c.target), err);
  }
  return {};
}

// The IOAM6 generic netlink family, connected in the calling thread's
// namespace; -1 as the family when this kernel has no IPv6 IOAM.
struct IoamSocket {
  nl::Sock sk;
  int family = -1;
};

Result<IoamSocket> connect_ioam() {
  IoamSocket out{nl::Sock(nl_socket_alloc())};
  if (!out.sk) return Error{"netlink: out of memory"};
  if (int err = genl_connect(out.sk.get()); err < 0) return nl::error("generic netlink connect", err);
  out.family = genl_ctrl_resolve(out.sk.get(), IOAM6_GENL_NAME);
  return out;
}

int collect_namespace(nl_msg* msg, void* arg) {
  auto* out = static_cast<std::vector<SwitchIoamNamespace>*>(arg);
  nlattr* attrs[IOAM6_ATTR_MAX + 1] = {};
  if (genlmsg_parse(nlmsg_hdr(msg), 0, attrs, IOAM6_ATTR_MAX, nullptr) < 0 || attrs[IOAM6_ATTR_NS_ID] == nullptr) {
    return NL_SKIP;
  }
  SwitchIoamNamespace n;
  n.id = nla_get_u16(attrs[IOAM6_ATTR_NS_ID]);
  if (attrs[IOAM6_ATTR_NS_DATA] != nullptr) n.data = nla_get_u32(attrs[IOAM6_ATTR_NS_DATA]);
  if (attrs[IOAM6_ATTR_NS_DATA_WIDE] != nullptr) n.data_wide = nla_get_u64(attrs[IOAM6_ATTR_NS_DATA_WIDE]);
  if (attrs[IOAM6_ATTR_SC_ID] != nullptr) n.schema = nla_get_u32(attrs[IOAM6_ATTR_SC_ID]);
  out->push_back(n);
  return NL_OK;
}

Status read_ioam_namespaces(SwitchState& state) {
  auto io = connect_ioam();
  if (!io) return io.error();
  if (io->family < 0) {
    state.ioam = false;
    return {};
  }
  if (int err = nl_socket_modify_cb(io->sk.get(), NL_CB_VALID, NL_CB_CUSTOM, collect_namespace, &state.ioam_namespaces);
      err < 0) {
    return nl::error("IOAM namespaces", err);
  }
  if (int err = genl_send_simple(io->sk.get(), io->family, IOAM6_CMD_DUMP_NAMESPACES, IOAM6_GENL_VERSION, NLM_F_DUMP);
      err < 0) {
    return nl::error("IOAM namespaces", err);
  }
  if (int err = nl_recvmsgs_default(io->sk.get()); err < 0) return nl::error("IOAM namespaces", err);
  return {};
}

// `ip ioam namespace add|del ID`: a bare namespace, no data, no schema.
Status ioam_namespace(const std::string& id_text, bool add) {
  auto io = connect_ioam();
  if (!io) return io.error();
  if (io->family < 0) return Error{"this kernel has no IPv6 IOAM (generic netlink family IOAM6)"};
  const int id = std::stoi(id_text);
  nl_msg* msg = nlmsg_alloc();
  if (msg == nullptr) return Error{"netlink: out of memory"};
  genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, io->family, 0, 0,
              add ? IOAM6_CMD_ADD_NAMESPACE : IOAM6_CMD_DEL_NAMESPACE, IOAM6_GENL_VERSION);
  nla_put_u16(msg, IOAM6_ATTR_NS_ID, static_cast<std::uint16_t>(id));
  const int err = nl_send_sync(io->sk.get(), msg);  // frees msg
  // An undo that finds the namespace gone is done.
  if (err < 0 && (add || err != -NLE_OBJ_NOTFOUND)) {
    return nl::error(fmt::format("IOAM namespace {} {}", add ? "add" : "del", id), err);
  }
  return {};
}

}  // namespace

Result<SwitchState> read_switch_state(const std::vector<std::string>& sysctl_keys) {
  auto sk = nl::connect_route();
  if (!sk) return sk.error();
  SwitchState state;
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sk->get(), AF_UNSPEC, &raw); err < 0) return nl::error("read links", err);
  nl::Cache links(raw);
  std::map<int, std::string> names;
  for (nl_object* o = nl_cache_get_first(links.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* l = reinterpret_cast<rtnl_link*>(o);  // libnl's caches hand out base objects
    SwitchLink s;
    s.name = rtnl_link_get_name(l);
    names[rtnl_link_get_ifindex(l)] = s.name;
    if (nl_addr* mac = rtnl_link_get_addr(l); mac != nullptr && nl_addr_get_len(mac) == 6) {
      Mac b;
      std::copy_n(static_cast<const std::uint8_t*>(nl_addr_get_binary_addr(mac)), 6, b.begin());
      s.mac = hpn::to_string(b);
    }
    s.mtu = static_cast<int>(rtnl_link_get_mtu(l));
    s.up = (rtnl_link_get_flags(l) & IFF_UP) != 0;
    state.links.push_back(std::move(s));
  }

  if (int err = rtnl_addr_alloc_cache(sk->get(), &raw); err < 0) return nl::error("read addresses", err);
  nl::Cache addrs(raw);
  for (nl_object* o = nl_cache_get_first(addrs.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    auto it = names.find(rtnl_addr_get_ifindex(a));
    const int family = rtnl_addr_get_family(a);
    if (it == names.end() || (family != AF_INET && family != AF_INET6)) continue;
    SwitchAddress s{it->second,
                    {family == AF_INET ? 4 : 6, nl::text(rtnl_addr_get_local(a), family), rtnl_addr_get_prefixlen(a)}};
    s.link_scope = rtnl_addr_get_scope(a) >= RT_SCOPE_LINK;
    state.addresses.push_back(std::move(s));
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
    SwitchRoute s;
    nl_addr* dst = rtnl_route_get_dst(r);
    s.to = {family == AF_INET ? 4 : 6, nl::text(dst, family),
            dst != nullptr ? static_cast<int>(nl_addr_get_prefixlen(dst)) : 0};
    s.table = static_cast<int>(rtnl_route_get_table(r));
    s.protocol = rtnl_route_get_protocol(r);
    for (int i = 0; i < rtnl_route_get_nnexthops(r); ++i) {
      if (auto it = names.find(rtnl_route_nh_get_ifindex(rtnl_route_nexthop_n(r, i))); it != names.end()) {
        s.devices.push_back(it->second);
      }
    }
    state.routes.push_back(std::move(s));
  }

  for (const auto& key : sysctl_keys) {
    if (auto value = read_sysctl(key)) state.sysctls[key] = *value;
  }
  if (auto ok = read_ioam_namespaces(state); !ok) return ok.error();
  return state;
}

struct NetlinkSwitchOps::Impl {
  nl::Sock sk;
  // Connected on first use, so the socket belongs to the namespace of the
  // thread that applies.
  Result<nl_sock*> socket() {
    if (!sk) {
      auto s = nl::connect_route();
      if (!s) return s.error();
      sk = std::move(s.value());
    }
    return sk.get();
  }
};

NetlinkSwitchOps::NetlinkSwitchOps() : impl_(std::make_unique<Impl>()) {}
NetlinkSwitchOps::~NetlinkSwitchOps() = default;

Status NetlinkSwitchOps::apply(const Change& c) {
  auto sk = impl_->socket();
  if (!sk) return sk.error();
  switch (c.kind) {
    case ChangeKind::add_ioam_namespace: return ioam_namespace(c.value, true);
    case ChangeKind::sysctl: return write_sysctl(c.target, c.value);
    case ChangeKind::add_address: return address(*sk, c, true);
    default: return edit_link(*sk, c.target, c.kind, c.value);
  }
}

Status NetlinkSwitchOps::undo(const Change& c) {
  auto sk = impl_->socket();
  if (!sk) return sk.error();
  switch (c.kind) {
    case ChangeKind::add_ioam_namespace: return ioam_namespace(c.value, false);
    case ChangeKind::sysctl: return write_sysctl(c.target, c.old_value);
    case ChangeKind::add_address: return address(*sk, c, false);
    case ChangeKind::link_up: return edit_link(*sk, c.target, ChangeKind::link_down, {});
    case ChangeKind::link_down: return edit_link(*sk, c.target, ChangeKind::link_up, {});
    default: return edit_link(*sk, c.target, c.kind, c.old_value);
  }
}

}  // namespace hpn::sw
