#include "switch/host_routes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>

#include "system/netns.h"
#include "switchconfig/frr_conf.h"

namespace hpn::lab {

namespace {

using Address = std::array<std::uint8_t, 16>;

// How often a host once confirmed on a port, and not confirmed there now,
// is asked again.
constexpr std::chrono::seconds kReask{5};

// linux/if.h's IFF_LOWER_UP; that header clashes with glibc's net/if.h.
constexpr unsigned kIffLowerUp = 1u << 16;

using switchconfig::HostPrefix;

std::string text_of(int family, const Address& a) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(family, a.data(), buf, sizeof buf);
  return buf;
}

// A netlink request with its attributes, built in a flat buffer.
class Request {
 public:
  Request(std::uint16_t type, std::uint16_t flags) {
    buf_.resize(NLMSG_HDRLEN);
    header()->nlmsg_type = type;
    header()->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
  }
  template <class T>
  void body(const T& t) {
    append(&t, sizeof t);
  }
  void attr(std::uint16_t type, const void* data, size_t len) {
    rtattr a{static_cast<unsigned short>(RTA_LENGTH(len)), type};
    const size_t start = buf_.size();
    append(&a, sizeof a);
    append(data, len);
    buf_.resize(start + RTA_ALIGN(RTA_LENGTH(len)));
  }
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buf_.data()); }
  std::vector<char>& finish(std::uint32_t seq) {
    header()->nlmsg_len = static_cast<std::uint32_t>(buf_.size());
    header()->nlmsg_seq = seq;
    return buf_;
  }

 private:
  void append(const void* data, size_t len) {
    const size_t at = NLMSG_ALIGN(buf_.size());
    buf_.resize(at + len);
    std::memcpy(buf_.data() + at, data, len);
  }
  std::vector<char> buf_;
};

// What the first neighbour dump said of an address on a port.
struct Seen {
  std::uint16_t state = 0;
  std::vector<std::uint8_t> lladdr;
};

struct Entry {
  std::set<int> ports;  // ifindexes where the neighbour is valid and confirmed
  int routed = 0;       // the ifindex the installed route leaves by, 0 for none
  // Per ifindex where it was ever confirmed, its MAC: a host is asked again
  // there when the kernel lets its entry go, and while it is not confirmed.
  std::map<int, std::vector<std::uint8_t>> known;
};

using Key = std::pair<int, Address>;

class Agent {
 public:
  Agent(const HostRouteTarget& target, const AgentHooks& hooks) : target_(target), hooks_(hooks) {}

  Status open() {
    for (const auto& p : target_.pools) {
      auto pool = switchconfig::parse_host_prefix(p);
      if (!pool) return Error{fmt::format("host-route prefix {}", pool.error().message)};
      pools_.push_back(*pool);
    }
    auto events = socket_in_netns(target_.netns, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (!events) return events.error();
    events_ = *events;
    sockaddr_nl groups{};
    groups.nl_family = AF_NETLINK;
    groups.nl_groups = RTMGRP_LINK | RTMGRP_NEIGH;
    if (bind(events_, reinterpret_cast<sockaddr*>(&groups), sizeof groups) != 0) {
      return Error{fmt::format("{}: netlink bind: {}", target_.netns, std::strerror(errno))};
    }
    int size = 1 << 22;
    setsockopt(events_, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    auto requests = socket_in_netns(target_.netns, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (!requests) return requests.error();
    requests_ = *requests;
    // What is there already: the links, the routes it owns, then the
    // neighbours; then each owned route is kept or withdrawn (settle()).
    if (auto ok = dump(RTM_GETLINK); !ok) return ok;
    for (const auto& name : target_.ports) {
      bool present = false;
      for (const auto& [index, n] : names_) present = present || n == name;
      if (!present) say(fmt::format("port {}: no such interface; routing the other ports, watching for it", name));
    }
    if (auto ok = dump(RTM_GETROUTE); !ok) return ok;
    starting_ = true;
    auto ok = dump(RTM_GETNEIGH);
    starting_ = false;
    if (!ok) return ok;
    settle();
    return {};
  }

  int fd() const { return events_; }

  HostRouteCount count() const {
    HostRouteCount c;
    for (const auto& [key, e] : entries_) {
      if (e.routed == 0) continue;
      ++(key.first == AF_INET ? c.ipv4 : c.ipv6);
    }
    c.ports = static_cast<int>(ports_.size());
    for (const auto& name : target_.ports) {
      bool present = false;
      for (const auto& [index, n] : names_) present = present || n == name;
      c.missing_ports += present ? 0 : 1;
    }
    return c;
  }

  // Every kReask: each host once confirmed on a port that has light but
  // is not confirmed there now (its solicitation failed) is asked again,
  // as rdnbrd's keepalive does: a host back after a stall is routed again
  // without having to speak first.
  void reask() {
    for (auto& [key, e] : entries_) {
      for (const auto& [port, mac] : e.known) {
        if (!e.ports.count(port) && carrier_.count(port)) ask(key, port, mac);
      }
    }
  }

  // Handles what arrived on the event socket.
  void drain() {
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = recv(events_, buf, sizeof buf, 0);
      if (n < 0 && errno == ENOBUFS) {
        // Events were lost: read the neighbour table again.
        (void)dump(RTM_GETNEIGH);
        continue;
      }
      if (n <= 0) return;
      handle(buf, static_cast<size_t>(n));
    }
  }

 private:
  Status dump(std::uint16_t type) {
    Request r(type, NLM_F_DUMP);
    if (type == RTM_GETLINK) {
      r.body(ifinfomsg{});
    } else if (type == RTM_GETROUTE) {
      r.body(rtmsg{});
    } else {
      r.body(ndmsg{});
    }
    auto& msg = r.finish(++seq_);
    if (send(requests_, msg.data(), msg.size(), 0) < 0) {
      return Error{fmt::format("{}: netlink dump: {}", target_.netns, std::strerror(errno))};
    }
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = recv(requests_, buf, sizeof buf, 0);
      if (n <= 0) return Error{fmt::format("{}: netlink dump: {}", target_.netns, std::strerror(errno))};
      bool done = false;
      ssize_t left = n;
      for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, static_cast<unsigned>(left));
           h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) done = true;
      }
      handle(buf, static_cast<size_t>(n));
      if (done) return {};
    }
  }

  // Sends a request and reads its acknowledgement; the kernel's error, or 0.
  int transact(Request& r) {
    auto& msg = r.finish(++seq_);
    if (send(requests_, msg.data(), msg.size(), 0) < 0) return -errno;
    char buf[8192];
    const ssize_t n = recv(requests_, buf, sizeof buf, 0);
    if (n < static_cast<ssize_t>(NLMSG_HDRLEN)) return -EIO;
    auto* h = reinterpret_cast<nlmsghdr*>(buf);
    if (h->nlmsg_type != NLMSG_ERROR) return 0;
    return reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
  }

  void handle(char* buf, size_t len) {
    ssize_t n = static_cast<ssize_t>(len);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, static_cast<unsigned>(n)); h = NLMSG_NEXT(h, n)) {
      switch (h->nlmsg_type) {
        case RTM_NEWLINK:
        case RTM_DELLINK: link(h); break;
        case RTM_NEWNEIGH:
        case RTM_DELNEIGH: neighbour(h); break;
        case RTM_NEWROUTE: owned_route(h); break;
        default: break;
      }
    }
  }

  void link(nlmsghdr* h) {
    auto* ifi = static_cast<ifinfomsg*>(NLMSG_DATA(h));
    int len = static_cast<int>(IFLA_PAYLOAD(h));
    std::string name;
    for (auto* a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type == IFLA_IFNAME) name = static_cast<const char*>(RTA_DATA(a));
    }
    bool host_port = false;
    for (const auto& p : target_.ports) host_port = host_port || p == name;
    if (!host_port) return;
    if (h->nlmsg_type == RTM_DELLINK) {
      say(fmt::format("port {}: removed", name));
    } else if (!ports_.count(ifi->ifi_index) && ready_) {
      say(fmt::format("port {}: appeared; watching it", name));
    }
    changed_ = changed_ || !ports_.count(ifi->ifi_index) || h->nlmsg_type == RTM_DELLINK;
    ports_.insert(ifi->ifi_index);
    names_[ifi->ifi_index] = name;
    const bool carrier = h->nlmsg_type == RTM_NEWLINK && (ifi->ifi_flags & kIffLowerUp) && (ifi->ifi_flags & IFF_UP);
    if (carrier) {
      carrier_.insert(ifi->ifi_index);
    } else {
      carrier_.erase(ifi->ifi_index);
      // No light: every host behind this port goes with it.
      for (auto& [key, e] : entries_) {
        if (e.ports.erase(ifi->ifi_index)) update(key);
      }
      for (auto it = probed_.begin(); it != probed_.end();) {
        it = it->first == ifi->ifi_index ? probed_.erase(it) : std::next(it);
      }
      if (h->nlmsg_type == RTM_DELLINK) {
        ports_.erase(ifi->ifi_index);
        names_.erase(ifi->ifi_index);
      }
    }
  }

  // A route of the dump: one of the agent's own (its table and protocol,
  // one address long) is recorded as what the kernel routes, for settle().
  void owned_route(nlmsghdr* h) {
    auto* rt = static_cast<rtmsg*>(NLMSG_DATA(h));
    if (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6) return;
    if (rt->rtm_protocol != target_.protocol) return;
    int len = static_cast<int>(RTM_PAYLOAD(h));
    std::uint32_t table = rt->rtm_table;
    Address dst{};
    bool have_dst = false;
    int oif = 0;
    for (auto* a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type == RTA_TABLE && RTA_PAYLOAD(a) == sizeof(std::uint32_t)) {
        std::memcpy(&table, RTA_DATA(a), sizeof table);
      } else if (a->rta_type == RTA_DST && RTA_PAYLOAD(a) == (rt->rtm_family == AF_INET ? 4u : 16u)) {
        std::memcpy(dst.data(), RTA_DATA(a), RTA_PAYLOAD(a));
        have_dst = true;
      } else if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) == sizeof(int)) {
        std::memcpy(&oif, RTA_DATA(a), sizeof oif);
      }
    }
    if (table != target_.table) return;
    if (!have_dst || oif == 0 || rt->rtm_dst_len != (rt->rtm_family == AF_INET ? 32 : 128)) {
      say(fmt::format("table {} protocol {}: a route that is not one host's out of one port; left alone",
                      target_.table, target_.protocol));
      return;
    }
    entries_[{rt->rtm_family, dst}].routed = oif;
  }

  // After the first dumps: each route the kernel already had is kept while
  // its host may still be there, or withdrawn (see host_routes.h).
  void settle() {
    for (auto& [key, e] : entries_) {
      if (e.routed == 0 || e.ports.count(e.routed)) continue;
      const int port = e.routed;
      const std::string what = fmt::format("{}/{} dev {}", text_of(key.first, key.second),
                                           key.first == AF_INET ? 32 : 128, name_of(port));
      if (!pooled(key)) {
        say(fmt::format("{}: outside the accepted prefixes; withdrawing it", what));
        e.routed = 0;
        route(RTM_DELROUTE, key, port);
        continue;
      }
      if (!ports_.count(port) || !carrier_.count(port)) {
        say(fmt::format("{}: {}; withdrawing it", what, ports_.count(port) ? "no carrier" : "not a host-facing port"));
        update(key);
        continue;
      }
      const auto seen = initial_.find({port, key});
      if (seen != initial_.end() && (seen->second.state & NUD_FAILED)) {
        say(fmt::format("{}: its neighbour is FAILED; withdrawing it", what));
        update(key);
        continue;
      }
      // Heard but not confirmed, or forgotten by the kernel: kept, and
      // asked; an unanswered ask (FAILED) withdraws it.
      e.ports.insert(port);
      std::vector<std::uint8_t> mac;
      if (seen != initial_.end()) mac = seen->second.lladdr;
      if (!mac.empty()) e.known[port] = mac;
      if (verbose()) say(fmt::format("{}: kept from before the start; asking it", what));
      if (probed_.insert({port, key}).second) ask(key, port, mac);
      update(key);
    }
    initial_.clear();
    ready_ = true;
  }

  bool pooled(const Key& key) const {
    for (const auto& p : pools_) {
      if (p.contains(key.first, key.second.data())) return true;
    }
    return false;
  }

  std::string name_of(int port) const {
    const auto it = names_.find(port);
    return it == names_.end() ? fmt::format("if{}", port) : it->second;
  }

  void neighbour(nlmsghdr* h) {
    auto* nd = static_cast<ndmsg*>(NLMSG_DATA(h));
    if (!ports_.count(nd->ndm_ifindex)) return;
    if (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6) return;
    int len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof(ndmsg)));
    Address dst{};
    bool have_dst = false;
    std::vector<std::uint8_t> lladdr;
    for (auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(nd) + NLMSG_ALIGN(sizeof(ndmsg)));
         RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type == NDA_DST) {
        const size_t size = RTA_PAYLOAD(a);
        if (size != (nd->ndm_family == AF_INET ? 4u : 16u)) return;
        std::memcpy(dst.data(), RTA_DATA(a), size);
        have_dst = true;
      } else if (a->rta_type == NDA_LLADDR) {
        const auto* b = static_cast<const std::uint8_t*>(RTA_DATA(a));
        lladdr.assign(b, b + RTA_PAYLOAD(a));
      }
    }
    if (!have_dst) return;
    const Key key{nd->ndm_family, dst};
    const int port = nd->ndm_ifindex;
    const std::uint16_t state = nd->ndm_state;
    if (!pooled(key)) {
      // Link-local and multicast neighbours are never hosts' back-end
      // addresses: not worth a line.
      const bool link_local = key.first == AF_INET6 ? dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80
                                                    : dst[0] == 169 && dst[1] == 254;
      const bool multicast = key.first == AF_INET6 ? dst[0] == 0xff : (dst[0] & 0xf0) == 0xe0;
      const bool heard = state & (NUD_REACHABLE | NUD_STALE | NUD_PERMANENT);
      if (heard && !link_local && !multicast && refused_.insert({port, key}).second) {
        say(fmt::format("refused {} on {}: outside the accepted prefixes ({})", text_of(key.first, key.second),
                        name_of(port), prefix_list()));
      }
      return;
    }
    if (starting_) initial_[{port, key}] = {state, lladdr};
    Entry& e = entries_[key];
    // Only an unanswered solicitation says a host is gone. An entry the
    // kernel deleted (its garbage collector, past gc_thresh2, takes any
    // entry not updated for 5 s) or is resolving again says nothing of
    // the host: withdrawing it then would black-hole it here, for a host
    // whose gateway neighbours are pinned never solicits the ToR again.
    // It stays routed and is asked again; FAILED follows if it is gone.
    const bool deleted = h->nlmsg_type == RTM_DELNEIGH || state == NUD_NONE;
    if (deleted || (state & (NUD_FAILED | NUD_INCOMPLETE))) {
      probed_.erase({port, key});
      if (!e.ports.count(port)) return;
      if (state & NUD_FAILED) {
        e.ports.erase(port);
        update(key);
      } else if (deleted && carrier_.count(port)) {
        const auto mac = e.known.find(port);
        ask(key, port, mac == e.known.end() ? std::vector<std::uint8_t>{} : mac->second);
      }
      return;
    }
    if (state & (NUD_REACHABLE | NUD_PERMANENT | NUD_NOARP)) {
      probed_.erase({port, key});
      if (!lladdr.empty()) e.known[port] = lladdr;
      if (e.ports.insert(port).second) update(key);
      return;
    }
    // STALE, DELAY or PROBE. Already confirmed: it stays routed. Heard but
    // never confirmed (an announcement, a solicitation): ask it now, and
    // remember its MAC, so that a first ask that goes unanswered (the
    // host's address still tentative, a loaded machine) is asked again
    // every kReask rather than never.
    if (e.ports.count(port)) return;
    if ((state & NUD_STALE) && !lladdr.empty() && probed_.insert({port, key}).second) {
      e.known[port] = lladdr;
      ask(key, port, lladdr);
    }
  }

  // Sets the neighbour to PROBE with the MAC it had, making it if the
  // kernel let it go: the kernel solicits it by unicast, and its answer
  // (REACHABLE) or silence (FAILED) comes back as an event.
  // Without a MAC (the kernel forgot it before this agent learnt it),
  // NTF_USE makes the kernel resolve it as it would for a packet: a
  // broadcast ARP or multicast NS, then REACHABLE or FAILED.
  void ask(const Key& key, int port, const std::vector<std::uint8_t>& lladdr) {
    Request r(RTM_NEWNEIGH, NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
    ndmsg nd{};
    nd.ndm_family = static_cast<std::uint8_t>(key.first);
    nd.ndm_ifindex = port;
    nd.ndm_state = lladdr.empty() ? NUD_NONE : NUD_PROBE;
    nd.ndm_flags = lladdr.empty() ? NTF_USE : 0;
    r.body(nd);
    r.attr(NDA_DST, key.second.data(), key.first == AF_INET ? 4 : 16);
    if (!lladdr.empty()) r.attr(NDA_LLADDR, lladdr.data(), lladdr.size());
    if (int err = transact(r); err != 0) {
      say(fmt::format("ask {} on {}: {}", text_of(key.first, key.second), name_of(port), std::strerror(-err)));
    } else if (verbose()) {
      say(fmt::format("ask {} on {}", text_of(key.first, key.second), name_of(port)));
    }
  }

  // Makes the kernel's route match the entry: out of its lowest-numbered
  // confirmed port, or none.
  void update(const Key& key) {
    Entry& e = entries_[key];
    const int want = e.ports.empty() ? 0 : *e.ports.begin();
    if (want == e.routed) return;
    if (e.routed != 0) route(RTM_DELROUTE, key, e.routed);
    if (want != 0) route(RTM_NEWROUTE, key, want);
    e.routed = want;
    changed_ = true;
  }

  void route(std::uint16_t type, const Key& key, int port) {
    Request r(type, NLM_F_ACK | (type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_REPLACE : 0));
    rtmsg rt{};
    rt.rtm_family = static_cast<std::uint8_t>(key.first);
    rt.rtm_dst_len = key.first == AF_INET ? 32 : 128;
    rt.rtm_table = static_cast<std::uint8_t>(target_.table < 256 ? target_.table : std::uint32_t{RT_TABLE_UNSPEC});
    rt.rtm_protocol = static_cast<std::uint8_t>(target_.protocol);
    rt.rtm_scope = RT_SCOPE_LINK;
    rt.rtm_type = RTN_UNICAST;
    r.body(rt);
    r.attr(RTA_DST, key.second.data(), key.first == AF_INET ? 4 : 16);
    r.attr(RTA_OIF, &port, sizeof port);
    const std::uint32_t table = target_.table;
    r.attr(RTA_TABLE, &table, sizeof table);
    const int err = transact(r);
    const std::string what = fmt::format("{} {}/{} dev {}", type == RTM_NEWROUTE ? "add" : "del",
                                         text_of(key.first, key.second), rt.rtm_dst_len, name_of(port));
    // A route the kernel already dropped with its link is not an error.
    if (err != 0 && !(type == RTM_DELROUTE && err == -ESRCH)) {
      say(fmt::format("{}: {}", what, std::strerror(-err)));
    } else {
      say(what);  // each change is logged, verbose or not
    }
  }

  std::string prefix_list() const {
    std::string out;
    for (const auto& p : pools_) out += (out.empty() ? "" : ", ") + p.text;
    return out;
  }

  bool verbose() const { return hooks_.verbose; }

  void say(const std::string& line) {
    const std::string text = target_.netns.empty() ? line : target_.netns + " " + line;
    if (hooks_.log) {
      hooks_.log(text);
    } else {
      std::cerr << "hpnctl host-routes: " << text << '\n' << std::flush;
    }
  }

 public:
  // Whether the count may have changed since the last call.
  bool take_changed() { return std::exchange(changed_, false); }

 private:
  const HostRouteTarget& target_;
  const AgentHooks& hooks_;
  std::vector<HostPrefix> pools_;
  bool starting_ = false, ready_ = false, changed_ = false;
  std::map<std::pair<int, Key>, Seen> initial_;  // (port, address) -> the first dump's entry
  std::set<std::pair<int, Key>> refused_;        // logged once each
  int events_ = -1, requests_ = -1;
  std::uint32_t seq_ = 0;
  std::set<int> ports_;
  std::set<int> carrier_;  // host-facing ifindexes up with carrier
  std::map<int, std::string> names_;
  std::map<Key, Entry> entries_;
  std::set<std::pair<int, Key>> probed_;
};

}  // namespace

HostRouteTarget host_route_target(const switchconfig::AgentConfig& config) {
  HostRouteTarget t;
  t.ports = config.ports;
  for (const auto& p : config.prefixes) t.pools.push_back(p.text);
  t.table = config.table;
  t.protocol = config.protocol;
  return t;
}

namespace {

// Whether this process may change routes and neighbours: CAP_NET_ADMIN in
// its effective set (root, or the unit's AmbientCapabilities).
bool have_net_admin() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_NET_ADMIN / 32].effective & (1u << (CAP_NET_ADMIN % 32))) != 0;
}

}  // namespace

Status run_host_route_agent(const std::vector<HostRouteTarget>& targets, const AgentHooks& hooks) {
  if (!have_net_admin()) {
    return Error{"the agent needs CAP_NET_ADMIN to change routes and neighbours (root, or the unit's "
                 "AmbientCapabilities=CAP_NET_ADMIN)"};
  }
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  const int stop = signalfd(-1, &mask, SFD_CLOEXEC);
  if (stop < 0) return Error{fmt::format("signalfd: {}", std::strerror(errno))};
  std::vector<std::unique_ptr<Agent>> agents;
  for (const auto& t : targets) {
    agents.push_back(std::make_unique<Agent>(t, hooks));
    if (auto ok = agents.back()->open(); !ok) return ok;
  }
  const auto total = [&] {
    HostRouteCount sum;
    for (const auto& a : agents) {
      const HostRouteCount c = a->count();
      sum.ipv4 += c.ipv4;
      sum.ipv6 += c.ipv6;
      sum.ports += c.ports;
      sum.missing_ports += c.missing_ports;
    }
    return sum;
  };
  for (const auto& a : agents) (void)a->take_changed();
  HostRouteCount last = total();
  if (hooks.status) hooks.status(last, true);
  std::vector<pollfd> fds{{stop, POLLIN, 0}};
  for (const auto& a : agents) fds.push_back({a->fd(), POLLIN, 0});
  auto next_reask = std::chrono::steady_clock::now() + kReask;
  for (;;) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_reask - std::chrono::steady_clock::now());
    if (poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(wait.count(), 0))) < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("poll: {}", std::strerror(errno))};
    }
    if (fds[0].revents & POLLIN) return {};
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents) agents[i - 1]->drain();
    }
    if (std::chrono::steady_clock::now() >= next_reask) {
      for (const auto& a : agents) a->reask();
      next_reask = std::chrono::steady_clock::now() + kReask;
    }
    bool changed = false;
    for (const auto& a : agents) changed = a->take_changed() || changed;
    if (changed && hooks.status) {
      const HostRouteCount now = total();
      if (now.ipv4 != last.ipv4 || now.ipv6 != last.ipv6 || now.ports != last.ports ||
          now.missing_ports != last.missing_ports) {
        hooks.status(now, false);
      }
      last = now;
    }
  }
}

Result<int> spawn_switch_agent(const SwitchAgentLaunch& launch) {
  // systemd's side of sd_notify: a datagram socket the agent writes to.
  const std::string notify_path = launch.config + ".notify";
  ::unlink(notify_path.c_str());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (notify_path.size() >= sizeof address.sun_path) return Error{fmt::format("{}: path too long", notify_path)};
  std::memcpy(address.sun_path, notify_path.c_str(), notify_path.size());
  const int notify = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (notify < 0 || bind(notify, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int err = errno;
    if (notify >= 0) close(notify);
    return Error{fmt::format("{}: {}", notify_path, std::strerror(err))};
  }
  // Everything the child needs, made before fork: after it, a child of a
  // threaded process may only make async-signal-safe calls.
  const std::string netns_path = std::string(kNetnsRunDir) + "/" + launch.netns;
  std::vector<std::string> args = {launch.binary, "switch", "agent", "--config", launch.config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string notify_env = "NOTIFY_SOCKET=" + notify_path;
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "NOTIFY_SOCKET=", 14) != 0) envp.push_back(*e);
  }
  envp.push_back(notify_env.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(notify);
    return Error{fmt::format("fork: {}", std::strerror(errno))};
  }
  if (pid == 0) {
    setsid();
    const int ns = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) _exit(126);
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    const int out = open(launch.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
    }
    if (out >= 0) dup2(out, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  // Wait for READY=1, or for the agent to stop.
  const auto until = std::chrono::steady_clock::now() + launch.ready_timeout;
  std::string why;
  for (;;) {
    pollfd p{notify, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      char buf[1024];
      const ssize_t n = recv(notify, buf, sizeof buf, 0);
      if (n > 0 && std::string_view(buf, static_cast<size_t>(n)).find("READY=1") != std::string_view::npos) break;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      why = WIFEXITED(status) ? fmt::format("exited with {}", WEXITSTATUS(status))
                              : fmt::format("killed by signal {}", WTERMSIG(status));
      break;
    }
    if (std::chrono::steady_clock::now() >= until) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      why = "not ready in time";
      break;
    }
  }
  close(notify);
  ::unlink(notify_path.c_str());
  if (!why.empty()) {
    return Error{fmt::format("{} switch agent in {}: {} (see {})", launch.binary, launch.netns, why, launch.log)};
  }
  return static_cast<int>(pid);
}

}  // namespace hpn::lab
