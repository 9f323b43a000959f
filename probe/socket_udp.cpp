#include "probe/socket_udp.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>

#include "probe/byte_reader.h"
#include "probe/payload.h"

namespace hpn::probe {

namespace {

// Room for any valid payload plus one byte, so a datagram the kernel cut to
// this size still fails the decoders' length checks.
constexpr std::size_t kReceiveBuffer = 4096;
constexpr int kSocketBuffer = 4 << 20;
static_assert(kReceiveBuffer > kMaxPayloadSize);
// A full-size Hop-by-Hop header, the packet info and a timestamp, with slack.
constexpr std::size_t kControlBuffer = kMaxHopByHopSize + 512;

std::string errno_text() { return std::strerror(errno); }

hpn::Status set_int(int fd, int level, int name, int value, const char* what) {
  if (setsockopt(fd, level, name, &value, sizeof value) != 0) {
    return Error{fmt::format("{}: {}", what, errno_text())};
  }
  return {};
}

std::string to_text(const in6_addr& a) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  inet_ntop(AF_INET6, &a, text.data(), text.size());
  return text.data();
}

hpn::Result<in6_addr> parse_address(const std::string& text) {
  in6_addr a{};
  if (text.empty()) return in6addr_any;
  if (inet_pton(AF_INET6, text.c_str(), &a) != 1) return Error{fmt::format("'{}' is not an IPv6 address", text)};
  return a;
}

std::int64_t realtime_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

UdpNetwork::UdpNetwork(std::vector<std::byte> hop_by_hop) : hop_by_hop_(std::move(hop_by_hop)) {}

UdpNetwork::~UdpNetwork() {
  for (const auto& s : sockets_) ::close(s.fd);
  if (icmp_fd_ >= 0) ::close(icmp_fd_);
}

hpn::Status UdpNetwork::open_icmp() {
  if (icmp_fd_ >= 0) return {};
  const int fd = ::socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6);
  if (fd < 0) {
    const bool privilege = errno == EPERM || errno == EACCES;
    return Error{"raw ICMPv6 socket (for hop-limited probes): " + errno_text() +
                 (privilege ? " (needs root or CAP_NET_RAW)" : "")};
  }
  icmp6_filter filter{};
  ICMP6_FILTER_SETBLOCKALL(&filter);
  ICMP6_FILTER_SETPASS(kIcmpTimeExceeded, &filter);
  ICMP6_FILTER_SETPASS(kIcmpUnreachable, &filter);
  if (setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof filter) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    return Error{"ICMP6_FILTER: " + why};
  }
  icmp_fd_ = fd;
  return {};
}

std::optional<Datagram> quoted_probe(std::span<const std::byte> message, const std::string& reporter) {
  ByteReader r(message);
  const auto type = r.u8(), code = r.u8();
  if (!type || !code || !r.skip(6)) return std::nullopt;
  const bool expired = *type == kIcmpTimeExceeded && *code == 0;
  const bool unreachable = *type == kIcmpUnreachable && *code == kIcmpPortUnreachable;
  if (!expired && !unreachable) return std::nullopt;
  // The invoking packet.
  const auto version = r.u8();
  if (!version || (*version >> 4) != 6 || !r.skip(5)) return std::nullopt;
  auto next = r.u8();
  if (!next || !r.skip(1)) return std::nullopt;
  auto src = r.bytes(16), dst = r.bytes(16);
  if (!src || !dst) return std::nullopt;
  Datagram d;
  if (*next == 0) {  // Hop-by-Hop
    auto first = r.bytes(2);
    if (!first) return std::nullopt;
    const std::size_t length = (static_cast<std::size_t>((*first)[1]) + 1) * 8;
    auto rest = r.bytes(length - 2);
    if (!rest) return std::nullopt;
    d.hop_by_hop.assign(first->begin(), first->end());
    d.hop_by_hop.insert(d.hop_by_hop.end(), rest->begin(), rest->end());
    next = static_cast<std::uint8_t>((*first)[0]);
  }
  if (*next != IPPROTO_UDP) return std::nullopt;
  const auto sport = r.be16(), dport = r.be16(), udp_length = r.be16();
  if (!sport || !dport || !udp_length || !r.skip(2) || *udp_length < 8) return std::nullopt;
  const std::size_t want = std::min<std::size_t>(*udp_length - 8, r.remaining());
  auto payload = r.bytes(want);
  if (!payload) return std::nullopt;
  d.payload.assign(payload->begin(), payload->end());
  in6_addr a{}, b{};
  std::memcpy(&a, src->data(), 16);
  std::memcpy(&b, dst->data(), 16);
  d.remote = {to_text(a), *sport};
  d.local = {to_text(b), *dport};
  d.icmp = IcmpReport{*type, *code, reporter};
  return d;
}

std::optional<Datagram> UdpNetwork::read_icmp() {
  std::vector<std::byte> buffer(kReceiveBuffer);
  sockaddr_in6 from{};
  socklen_t from_len = sizeof from;
  const ssize_t n = ::recvfrom(icmp_fd_, buffer.data(), buffer.size(), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
  if (n <= 0) return std::nullopt;
  auto d = quoted_probe(std::span<const std::byte>(buffer.data(), static_cast<std::size_t>(n)), to_text(from.sin6_addr));
  if (!d) return std::nullopt;
  // Ours only: the quoted probe left by one of our sockets.
  for (const auto& s : sockets_) {
    if (s.local.port == d->remote.port && (s.local.address == d->remote.address || s.local.address == "::")) {
      d->interface = s.interface;
      d->realtime_ns = realtime_now();
      return d;
    }
  }
  return std::nullopt;
}

hpn::Status UdpNetwork::open(const std::string& interface, const Endpoint& local) {
  const auto key = std::pair{interface, local.port};
  if (by_endpoint_.count(key) != 0) return Error{fmt::format("{} port {} is already open", interface, local.port)};
  if (interface.empty() || interface.size() >= IFNAMSIZ) return Error{fmt::format("'{}' is not an interface name", interface)};
  auto address = parse_address(local.address);
  if (!address) return address.error();
  const int fd = ::socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) return Error{"UDP/IPv6 socket: " + errno_text()};
  auto fail = [&](hpn::Status s) {
    ::close(fd);
    return s;
  };
  // Before bind(): the port is then taken on this interface only.
  if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, interface.c_str(), static_cast<socklen_t>(interface.size())) != 0) {
    const bool privilege = errno == EPERM;
    return fail(Error{fmt::format("bind to interface {}: {}{}", interface, errno_text(),
                                  privilege ? " (needs root or CAP_NET_RAW)" : "")});
  }
  struct Flag {
    int level, name;
    const char* what;
  };
  for (const Flag& f : {Flag{IPPROTO_IPV6, IPV6_V6ONLY, "IPV6_V6ONLY"},
                        Flag{IPPROTO_IPV6, IPV6_RECVHOPOPTS, "IPV6_RECVHOPOPTS"},
                        Flag{IPPROTO_IPV6, IPV6_RECVPKTINFO, "IPV6_RECVPKTINFO"},
                        Flag{SOL_SOCKET, SO_TIMESTAMPNS, "SO_TIMESTAMPNS"},
                        Flag{SOL_SOCKET, SO_RXQ_OVFL, "SO_RXQ_OVFL"}}) {
    if (auto s = set_int(fd, f.level, f.name, 1, f.what); !s) return fail(s);
  }
  // Room for a burst of train datagrams (probe/payload.h) while the agent
  // is busy: what the socket drops for want of room is no cable's loss.
  // Forced past rmem_max where privileged; otherwise as far as it allows.
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &kSocketBuffer, sizeof kSocketBuffer) != 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBuffer, sizeof kSocketBuffer);
  }
  if (!hop_by_hop_.empty() &&
      setsockopt(fd, IPPROTO_IPV6, IPV6_HOPOPTS, hop_by_hop_.data(), static_cast<socklen_t>(hop_by_hop_.size())) != 0) {
    const bool privilege = errno == EPERM;
    return fail(Error{"IPV6_HOPOPTS (the probe's IOAM trace): " + errno_text() +
                      (privilege ? " (needs root or CAP_NET_RAW)" : "")});
  }
  sockaddr_in6 sa{};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(local.port);
  sa.sin6_addr = *address;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    return fail(Error{fmt::format("bind [{}]:{} on {}: {}", to_text(*address), local.port, interface, errno_text())});
  }
  by_endpoint_[key] = sockets_.size();
  sockets_.push_back({fd, interface, {to_text(*address), local.port}});
  return {};
}

hpn::Status UdpNetwork::send(const Datagram& d) {
  auto it = by_endpoint_.find({d.interface, d.local.port});
  if (it == by_endpoint_.end()) return Error{fmt::format("{} port {} is not open", d.interface, d.local.port)};
  const Socket& s = sockets_[it->second];
  auto remote = parse_address(d.remote.address);
  if (!remote) return remote.error();
  sockaddr_in6 to{};
  to.sin6_family = AF_INET6;
  to.sin6_port = htons(d.remote.port);
  to.sin6_addr = *remote;
  if (IN6_IS_ADDR_LINKLOCAL(&to.sin6_addr)) to.sin6_scope_id = if_nametoindex(d.interface.c_str());
  iovec iov{const_cast<std::byte*>(d.payload.data()), d.payload.size()};
  msghdr msg{};
  msg.msg_name = &to;
  msg.msg_namelen = sizeof to;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  // The source address, when the socket is bound to "::" (the listener,
  // answering from the address its probe was sent to).
  alignas(cmsghdr) std::array<unsigned char, CMSG_SPACE(sizeof(in6_pktinfo)) + CMSG_SPACE(sizeof(int))> control{};
  auto source = parse_address(d.local.address);
  if (!source) return source.error();
  std::size_t used = 0;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (!IN6_IS_ADDR_UNSPECIFIED(&*source)) {
    c->cmsg_level = IPPROTO_IPV6;
    c->cmsg_type = IPV6_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof(in6_pktinfo));
    in6_pktinfo info{};
    info.ipi6_addr = *source;
    std::memcpy(CMSG_DATA(c), &info, sizeof info);
    used += CMSG_SPACE(sizeof(in6_pktinfo));
    c = CMSG_NXTHDR(&msg, c);
  }
  // A hop-limited probe: it runs out at the switch `hop_limit` hops away.
  if (d.hop_limit > 0) {
    c->cmsg_level = IPPROTO_IPV6;
    c->cmsg_type = IPV6_HOPLIMIT;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    const int hops = d.hop_limit;
    std::memcpy(CMSG_DATA(c), &hops, sizeof hops);
    used += CMSG_SPACE(sizeof(int));
  }
  msg.msg_controllen = used;
  if (used == 0) msg.msg_control = nullptr;
  if (::sendmsg(s.fd, &msg, 0) < 0) {
    return Error{fmt::format("send to [{}]:{} out of {}: {}", d.remote.address, d.remote.port, d.interface, errno_text())};
  }
  return {};
}

std::optional<Datagram> UdpNetwork::receive(std::int64_t timeout_ns) {
  std::vector<pollfd> fds;
  fds.reserve(sockets_.size() + 1);
  for (const auto& s : sockets_) fds.push_back({s.fd, POLLIN, 0});
  if (icmp_fd_ >= 0) fds.push_back({icmp_fd_, POLLIN, 0});
  if (timeout_ns < 0) timeout_ns = 0;
  timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  // EINTR (a signal) returns early on purpose: the caller checks its stop flag.
  if (::ppoll(fds.data(), fds.size(), &timeout, nullptr) <= 0) return std::nullopt;
  if (icmp_fd_ >= 0 && (fds.back().revents & POLLIN) != 0) {
    if (auto d = read_icmp()) return d;
  }
  for (std::size_t k = 0; k < sockets_.size(); ++k) {
    const std::size_t i = (next_ + k) % sockets_.size();
    if ((fds[i].revents & POLLIN) == 0) continue;
    if (auto d = read_one(sockets_[i])) {
      next_ = i + 1;
      return d;
    }
  }
  return std::nullopt;
}

std::optional<Datagram> UdpNetwork::read_one(const Socket& s) {
  std::vector<std::byte> buffer(kReceiveBuffer);
  alignas(cmsghdr) std::array<unsigned char, kControlBuffer> control{};
  sockaddr_in6 from{};
  iovec iov{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_name = &from;
  msg.msg_namelen = sizeof from;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  const ssize_t n = ::recvmsg(s.fd, &msg, 0);
  if (n < 0) return std::nullopt;  // EAGAIN after a spurious wake-up, or a queued ICMP error
  Datagram d;
  buffer.resize(static_cast<std::size_t>(n));
  d.payload = std::move(buffer);
  d.interface = s.interface;
  d.local = s.local;
  d.remote = {to_text(from.sin6_addr), ntohs(from.sin6_port)};
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    const std::size_t len = c->cmsg_len - CMSG_LEN(0);
    const auto* data = CMSG_DATA(c);
    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPOPTS) {
      // A cut control buffer would hand over part of the header: drop it,
      // the receiver then sees a packet without a trace.
      if ((msg.msg_flags & MSG_CTRUNC) == 0) {
        const auto* p = reinterpret_cast<const std::byte*>(data);
        d.hop_by_hop.assign(p, p + len);
      }
    } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO && len >= sizeof(in6_pktinfo)) {
      in6_pktinfo info{};
      std::memcpy(&info, data, sizeof info);
      d.local.address = to_text(info.ipi6_addr);
      d.interface = interface_name(static_cast<int>(info.ipi6_ifindex), s.interface);
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL && len >= sizeof(std::uint32_t)) {
      std::memcpy(&d.drops, data, sizeof d.drops);
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS && len >= sizeof(timespec)) {
      timespec ts{};
      std::memcpy(&ts, data, sizeof ts);
      d.realtime_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
  }
  if (d.realtime_ns == 0) d.realtime_ns = realtime_now();
  return d;
}

std::string UdpNetwork::interface_name(int ifindex, const std::string& fallback) {
  if (ifindex <= 0) return fallback;
  auto it = names_.find(ifindex);
  if (it != names_.end()) return it->second;
  std::array<char, IF_NAMESIZE> name{};
  if (if_indextoname(static_cast<unsigned>(ifindex), name.data()) == nullptr) return fallback;
  return names_[ifindex] = name.data();
}

namespace {

// getifaddrs() with its list freed on every path.
struct InterfaceList {
  ifaddrs* head = nullptr;
  InterfaceList() {
    if (getifaddrs(&head) != 0) head = nullptr;
  }
  ~InterfaceList() {
    if (head) freeifaddrs(head);
  }
  InterfaceList(const InterfaceList&) = delete;
  InterfaceList& operator=(const InterfaceList&) = delete;
};

const in6_addr* ipv6_of(const ifaddrs* a) {
  if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET6) return nullptr;
  return &reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr;
}

}  // namespace

hpn::Result<std::string> interface_global_address(const std::string& interface) {
  if (if_nametoindex(interface.c_str()) == 0) return Error{fmt::format("no interface '{}' here", interface)};
  InterfaceList list;
  if (list.head == nullptr) return Error{"getifaddrs: " + errno_text()};
  for (const ifaddrs* a = list.head; a != nullptr; a = a->ifa_next) {
    const in6_addr* addr = ipv6_of(a);
    if (addr == nullptr || interface != a->ifa_name) continue;
    if (IN6_IS_ADDR_LINKLOCAL(addr) || IN6_IS_ADDR_LOOPBACK(addr) || IN6_IS_ADDR_MULTICAST(addr)) continue;
    return to_text(*addr);
  }
  return Error{fmt::format("interface '{}' has no global IPv6 address to send probes from", interface)};
}

hpn::Result<std::vector<std::string>> probe_interfaces() {
  InterfaceList list;
  if (list.head == nullptr) return Error{"getifaddrs: " + errno_text()};
  std::set<std::string> names;
  for (const ifaddrs* a = list.head; a != nullptr; a = a->ifa_next) {
    if (ipv6_of(a) == nullptr || (a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    names.insert(a->ifa_name);
  }
  return std::vector<std::string>(names.begin(), names.end());
}

hpn::Result<std::string> canonical_ipv6(const std::string& text) {
  in6_addr a{};
  if (inet_pton(AF_INET6, text.c_str(), &a) != 1) return Error{fmt::format("'{}' is not an IPv6 address", text)};
  return to_text(a);
}

}  // namespace hpn::probe
