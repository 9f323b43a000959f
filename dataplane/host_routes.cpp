#include "dataplane/host_routes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
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

#include "dataplane/netns.h"
#include "switchconfig/frr_conf.h"

namespace hpn::lab {

namespace {

using Address = std::array<std::uint8_t, 16>;

// How often a host once confirmed on a port, and not confirmed there now,
// is asked again.
constexpr std::chrono::seconds kReask{5};

// linux/if.h's IFF_LOWER_UP; that header clashes with glibc's net/if.h.
constexpr unsigned kIffLowerUp = 1u << 16;

struct Pool {
  int family = AF_INET6;
  Address bytes{};
  int length = 0;
  bool contains(int f, const Address& a) const {
    if (f != family) return false;
    for (int bit = 0; bit < length; ++bit) {
      const int mask = 0x80 >> (bit % 8);
      if ((a[bit / 8] & mask) != (bytes[bit / 8] & mask)) return false;
    }
    return true;
  }
};

Result<Pool> parse_pool(const std::string& text) {
  const size_t slash = text.find('/');
  Pool p;
  const std::string addr = text.substr(0, slash);
  p.family = addr.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (slash == std::string::npos || inet_pton(p.family, addr.c_str(), p.bytes.data()) != 1) {
    return Error{fmt::format("host-route pool '{}' is not a prefix", text)};
  }
  p.length = std::atoi(text.c_str() + slash + 1);
  return p;
}

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

struct Entry {
  std::set<int> ports;  // ifindexes where the neighbour is valid and confirmed
  int routed = 0;       // the ifindex the installed route leaves by, 0 for none
  // Per ifindex where it was ever confirmed, its MAC: a host is asked again
  // there when the kernel lets its entry go, and while it is not confirmed.
  std::map<int, std::vector<std::uint8_t>> known;
};

class Agent {
 public:
  Agent(const HostRouteTarget& target, bool verbose) : target_(target), verbose_(verbose) {}

  Status open() {
    for (const auto& p : target_.pools) {
      auto pool = parse_pool(p);
      if (!pool) return pool.error();
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
    // What is there already: the links, then the neighbours.
    if (auto ok = dump(RTM_GETLINK); !ok) return ok;
    return dump(RTM_GETNEIGH);
  }

  int fd() const { return events_; }

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
    }
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
    bool pooled = false;
    for (const auto& p : pools_) pooled = pooled || p.contains(nd->ndm_family, dst);
    if (!pooled) return;
    const Key key{nd->ndm_family, dst};
    const int port = nd->ndm_ifindex;
    const std::uint16_t state = nd->ndm_state;
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
        ask(key, port, e.known[port]);
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
    // never confirmed (an announcement, a solicitation): ask it now.
    if (e.ports.count(port)) return;
    if ((state & NUD_STALE) && !lladdr.empty() && probed_.insert({port, key}).second) ask(key, port, lladdr);
  }

  using Key = std::pair<int, Address>;

  // Sets the neighbour to PROBE with the MAC it had, making it if the
  // kernel let it go: the kernel solicits it by unicast, and its answer
  // (REACHABLE) or silence (FAILED) comes back as an event.
  void ask(const Key& key, int port, const std::vector<std::uint8_t>& lladdr) {
    if (lladdr.empty()) return;
    Request r(RTM_NEWNEIGH, NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
    ndmsg nd{};
    nd.ndm_family = static_cast<std::uint8_t>(key.first);
    nd.ndm_ifindex = port;
    nd.ndm_state = NUD_PROBE;
    r.body(nd);
    r.attr(NDA_DST, key.second.data(), key.first == AF_INET ? 4 : 16);
    r.attr(NDA_LLADDR, lladdr.data(), lladdr.size());
    if (int err = transact(r); err != 0) {
      say(fmt::format("ask {} on {}: {}", text_of(key.first, key.second), names_[port], std::strerror(-err)));
    } else if (verbose_) {
      say(fmt::format("{} ask {} on {}", target_.netns, text_of(key.first, key.second), names_[port]));
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
  }

  void route(std::uint16_t type, const Key& key, int port) {
    Request r(type, NLM_F_ACK | (type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_REPLACE : 0));
    rtmsg rt{};
    rt.rtm_family = static_cast<std::uint8_t>(key.first);
    rt.rtm_dst_len = key.first == AF_INET ? 32 : 128;
    rt.rtm_table = RT_TABLE_MAIN;
    rt.rtm_protocol = switchconfig::kHostRouteProtocol;
    rt.rtm_scope = RT_SCOPE_LINK;
    rt.rtm_type = RTN_UNICAST;
    r.body(rt);
    r.attr(RTA_DST, key.second.data(), key.first == AF_INET ? 4 : 16);
    r.attr(RTA_OIF, &port, sizeof port);
    const int err = transact(r);
    const std::string what = fmt::format("{} {} {}/{} dev {}", target_.netns, type == RTM_NEWROUTE ? "add" : "del",
                                         text_of(key.first, key.second), rt.rtm_dst_len, names_[port]);
    // A route the kernel already dropped with its link is not an error.
    if (err != 0 && !(type == RTM_DELROUTE && err == -ESRCH)) {
      say(fmt::format("{}: {}", what, std::strerror(-err)));
    } else if (verbose_) {
      say(what);
    }
  }

  void say(const std::string& line) { std::cerr << "hpnctl host-routes: " << line << '\n' << std::flush; }

  const HostRouteTarget& target_;
  bool verbose_;
  std::vector<Pool> pools_;
  int events_ = -1, requests_ = -1;
  std::uint32_t seq_ = 0;
  std::set<int> ports_;
  std::set<int> carrier_;  // host-facing ifindexes up with carrier
  std::map<int, std::string> names_;
  std::map<Key, Entry> entries_;
  std::set<std::pair<int, Key>> probed_;
};

}  // namespace

Status run_host_route_agent(const std::vector<HostRouteTarget>& targets, bool verbose) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  const int stop = signalfd(-1, &mask, SFD_CLOEXEC);
  if (stop < 0) return Error{fmt::format("signalfd: {}", std::strerror(errno))};
  std::vector<std::unique_ptr<Agent>> agents;
  for (const auto& t : targets) {
    agents.push_back(std::make_unique<Agent>(t, verbose));
    if (auto ok = agents.back()->open(); !ok) return ok;
  }
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
  }
}

Result<int> spawn_host_route_agent(const std::vector<HostRouteTarget>& targets, const std::string& log) {
  const pid_t pid = fork();
  if (pid < 0) return Error{fmt::format("fork: {}", std::strerror(errno))};
  if (pid > 0) return static_cast<int>(pid);
  // The agent: detached from the terminal and from the caller's streams,
  // and named so that ps and pgrep tell it from the lab up it came from.
  setsid();
  prctl(PR_SET_NAME, "hpn-host-routes", 0, 0, 0);
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
  }
  if (out >= 0) dup2(out, STDERR_FILENO);
  auto ok = run_host_route_agent(targets, true);
  if (!ok) std::cerr << "hpnctl host-routes: " << ok.error().message << '\n';
  _exit(ok ? 0 : 1);
}

}  // namespace hpn::lab
