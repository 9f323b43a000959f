// Test helpers for a real lab: send IPv6/UDP probes carrying an IOAM
// pre-allocated trace from a host namespace, capture them at the receiving
// host, write them to a pcap for tshark, and check decoded hops against the
// cables as wired.
#pragma once

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "blueprint/csv.h"
#include "blueprint/model.h"
#include "system/netns.h"
#include "probe/byte_reader.h"
#include "probe/ioam_trace.h"

namespace hpn::test {

inline constexpr std::uint16_t kProbePort = 33434;

inline sockaddr_in6 ipv6_sockaddr(const std::string& address, std::uint16_t port) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(port);
  REQUIRE(inet_pton(AF_INET6, address.c_str(), &a.sin6_addr) == 1);
  return a;
}

// One probe per source port, from `src` (bound to the bond address, so the
// host's per-NIC source rule picks the NIC; to one port when `device` is set).
inline void send_probes(const std::string& netns, const std::string& src, const std::string& dst,
                        const std::vector<std::uint16_t>& sports, std::uint16_t ns_id,
                        const std::string& device = "") {
  probe::IoamTraceRequest req;
  req.namespace_id = ns_id;
  req.hops = 6;  // room for the longest path: ToR, agg, core, agg, ToR, and one spare
  const auto hbh = probe::build_ioam_hbh(req).value();
  auto sent = lab::run_in_netns(netns, [&]() -> Status {
    for (auto sport : sports) {
      const int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return Error{"socket"};
      auto local = ipv6_sockaddr(src, sport);
      auto remote = ipv6_sockaddr(dst, kProbePort);
      bool ok = bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0 &&
                setsockopt(fd, IPPROTO_IPV6, IPV6_HOPOPTS, hbh.data(), hbh.size()) == 0 &&
                (device.empty() ||
                 setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, device.c_str(), device.size()) == 0);
      const std::string payload = fmt::format("hpn {}", sport);
      ok = ok && sendto(fd, payload.data(), payload.size(), 0, reinterpret_cast<sockaddr*>(&remote),
                        sizeof remote) == static_cast<ssize_t>(payload.size());
      const int saved = errno;
      close(fd);
      if (!ok) return Error{fmt::format("probe from port {}: {}", sport, std::strerror(saved))};
    }
    return {};
  });
  REQUIRE(sent.ok());
}

struct CapturedProbe {
  std::vector<std::byte> frame;  // Ethernet, as received
  std::string ifname;            // where it arrived
  std::uint16_t sport = 0;
};

// A packet socket in the receiving host's namespace (plus a UDP socket on
// the probe port, so the host does not answer with port unreachable).
class Receiver {
 public:
  explicit Receiver(const std::string& netns) {
    auto raw = lab::socket_in_netns(netns, AF_PACKET, SOCK_RAW, htons(ETH_P_IPV6));
    REQUIRE(raw.ok());
    raw_ = raw.value();
    auto udp = lab::socket_in_netns(netns, AF_INET6, SOCK_DGRAM, 0);
    REQUIRE(udp.ok());
    udp_ = udp.value();
    auto any = ipv6_sockaddr("::", kProbePort);
    REQUIRE(bind(udp_, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0);
    auto names = lab::run_in_netns(netns, [&]() -> Status {
      struct if_nameindex* list = if_nameindex();
      for (auto* n = list; n != nullptr && n->if_index != 0; ++n) ifnames_[static_cast<int>(n->if_index)] = n->if_name;
      if_freenameindex(list);
      return {};
    });
    REQUIRE(names.ok());
  }
  ~Receiver() {
    close(raw_);
    close(udp_);
  }

  // Probes (IPv6, Hop-by-Hop, UDP to kProbePort) until `count` arrived or
  // `wait` passed (the lab delivers in milliseconds; waiting out the full
  // time is how a test sees that nothing comes).
  std::vector<CapturedProbe> collect(size_t count, std::chrono::milliseconds wait = std::chrono::seconds(2)) {
    std::vector<CapturedProbe> out;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      pollfd p{raw_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      std::vector<std::byte> buf(2048);
      sockaddr_ll from{};
      socklen_t len = sizeof from;
      const ssize_t n = recvfrom(raw_, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from), &len);
      if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING) continue;
      buf.resize(static_cast<size_t>(n));
      const auto sport = probe_source_port(buf);
      if (sport == 0) continue;
      out.push_back({std::move(buf), ifnames_[from.sll_ifindex], sport});
    }
    return out;
  }

  // The UDP source port of an IPv6 probe with a Hop-by-Hop header sent to
  // kProbePort, or 0 for any other frame.
  static std::uint16_t probe_source_port(std::span<const std::byte> frame) {
    probe::ByteReader r(frame);
    auto value = [](auto result) -> long { return result ? static_cast<long>(*result) : -1; };
    if (!r.skip(12) || value(r.be16()) != 0x86DD) return 0;    // Ethernet: IPv6
    if (!r.skip(6) || value(r.u8()) != 0) return 0;            // next header: Hop-by-Hop
    if (!r.skip(33) || value(r.u8()) != 17) return 0;          // then UDP
    const long ext = value(r.u8());                            // Hdr Ext Len, 8-byte units
    if (ext < 0 || !r.skip(static_cast<size_t>(ext) * 8 + 6)) return 0;
    const long sport = value(r.be16()), dport = value(r.be16());
    return dport == kProbePort && sport > 0 ? static_cast<std::uint16_t>(sport) : 0;
  }

 private:
  int raw_ = -1, udp_ = -1;
  std::map<int, std::string> ifnames_;
};

// The IOAM hops of a captured probe, in path order.
inline std::vector<probe::IoamHopRecord> hops_of(const CapturedProbe& p) {
  auto traces = probe::decode_ioam_ipv6(std::span<const std::byte>(p.frame).subspan(14));
  REQUIRE(traces.ok());
  REQUIRE(traces->size() == 1);
  CHECK_FALSE(traces->front().overflow());
  return traces->front().hops;
}

inline void write_pcap(const std::string& path, const std::vector<CapturedProbe>& probes) {
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
  REQUIRE(dead != nullptr);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  REQUIRE(dumper != nullptr);
  for (const auto& p : probes) {
    pcap_pkthdr header{};
    header.caplen = header.len = static_cast<bpf_u_int32>(p.frame.size());
    // libpcap's C API takes the dumper and the frame as u_char pointers.
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, reinterpret_cast<const u_char*>(p.frame.data()));
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
}

// The cables of a wiring text (cabling.csv columns), both ways:
// (device, port) -> (device, port). Read here, not by the code under test.
using End = std::pair<std::string, std::string>;
inline std::map<End, End> wires_of(const std::string& csv) {
  std::map<End, End> far;
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> f, header;
  std::getline(in, line);
  REQUIRE(parse_csv_line(line, header));
  auto col = [&](const char* name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return static_cast<size_t>(at - header.begin());
  };
  const size_t ad = col("a_device"), ap = col("a_port"), zd = col("z_device"), zp = col("z_port");
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    REQUIRE(parse_csv_line(line, f));
    far[{f[ad], f[ap]}] = {f[zd], f[zp]};
    far[{f[zd], f[zp]}] = {f[ad], f[ap]};
  }
  return far;
}

// A probe's decoded path, checked hop by hop against the wiring: each hop
// is a switch of the blueprint; its ingress port is cabled to the previous
// hop's egress port (the first hop's to the sending host); the last hop's
// egress port is cabled to the port the probe arrived on; the hop limit
// drops by one per hop. Returns what is wrong, empty when all is right, and
// the devices traversed in `path`.
inline std::string check_path(const Blueprint& bp, const std::map<End, End>& wires, const std::string& src,
                              const std::string& dst, const std::string& arrival,
                              const std::vector<probe::IoamHopRecord>& hops, std::vector<std::string>& path) {
  std::map<std::uint32_t, int> by_node;
  for (size_t i = 0; i < bp.devices.size(); ++i) by_node[bp.devices[i].node_id] = static_cast<int>(i);
  auto port_name = [&](int device, std::uint16_t id) -> std::string {
    for (const auto& p : bp.panels[bp.devices[device].panel].ports) {
      if (p.port_id == id) return p.name;
    }
    return "?" + std::to_string(id);
  };
  auto far = [&](const End& e) {
    auto it = wires.find(e);
    return it == wires.end() ? End{"(nothing)", ""} : it->second;
  };
  path.clear();
  if (hops.empty()) return "no hops";
  End previous{src, ""};
  for (size_t i = 0; i < hops.size(); ++i) {
    const auto& h = hops[i];
    if (!h.node_id || !h.ingress_if || !h.egress_if || !h.hop_limit) return fmt::format("hop {}: fields missing", i);
    auto d = by_node.find(h.node_id->value);
    if (d == by_node.end()) return fmt::format("hop {}: node ID {} is no device", i, h.node_id->value);
    const std::string& name = bp.devices[d->second].name;
    path.push_back(name);
    const End in{name, port_name(d->second, h.ingress_if->value)};
    const End out{name, port_name(d->second, h.egress_if->value)};
    const End came_from = far(in);
    if (came_from.first != previous.first || (i > 0 && came_from != previous)) {
      return fmt::format("hop {} ({}): ingress {} is cabled to {}:{}, but the probe came from {}:{}", i, name,
                         in.second, came_from.first, came_from.second, previous.first, previous.second);
    }
    if (h.hop_limit->value != 63 - i) return fmt::format("hop {}: hop limit {}", i, h.hop_limit->value);
    previous = out;
  }
  const End last = far(previous);
  if (last != End{dst, arrival}) {
    return fmt::format("last hop's egress {}:{} is cabled to {}:{}, but the probe arrived at {}:{}", previous.first,
                       previous.second, last.first, last.second, dst, arrival);
  }
  return "";
}

}  // namespace hpn::test
