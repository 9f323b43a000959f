#include "host/host_announce.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <pcap/pcap.h>

#include <chrono>
#include <thread>

namespace hpn::host {

namespace {

// Frames are written big-endian, field by field; nothing is cast from a struct.
class FrameWriter {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void be16(std::uint16_t v) {
    u8(static_cast<std::uint8_t>(v >> 8));
    u8(static_cast<std::uint8_t>(v));
  }
  void be32(std::uint32_t v) {
    be16(static_cast<std::uint16_t>(v >> 16));
    be16(static_cast<std::uint16_t>(v));
  }
  void raw(const std::uint8_t* p, size_t n) { bytes_.insert(bytes_.end(), p, p + n); }
  void mac(const Mac& m) { raw(m.data(), m.size()); }
  size_t size() const { return bytes_.size(); }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

constexpr Mac kBroadcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
// ff02::1 (all nodes) on Ethernet: 33:33 and its low 32 bits (RFC 2464 section 7).
constexpr Mac kAllNodesMac{0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
constexpr size_t kMinFrame = 60;  // Ethernet minimum without the FCS

// The Internet checksum (RFC 1071) of `data`, continuing from `sum`.
std::uint32_t add_words(std::uint32_t sum, const std::uint8_t* data, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (n % 2 != 0) sum += static_cast<std::uint32_t>(data[n - 1] << 8);
  return sum;
}
std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

}  // namespace

// Gratuitous ARP as an ARP announcement (RFC 5227 section 2.3; RFC 826):
// a broadcast request whose sender and target protocol addresses are both
// the host's own, target hardware address zero.
//
//   0                   1                   2                   3
//   +---------------------------------------------------------------+
//   | dst ff:ff:ff:ff:ff:ff | src MAC | ethertype 0x0806            |
//   | htype 1 | ptype 0x0800 | hlen 6 | plen 4 | oper 1 (request)   |
//   | sender MAC (6) | sender IP (4) | target MAC 0 (6) | target IP |
//   +---------------------------------------------------------------+  padded to 60 bytes
std::vector<std::uint8_t> garp_frame(const Mac& mac, const std::string& ipv4) {
  std::uint8_t ip[4] = {};
  inet_pton(AF_INET, ipv4.c_str(), ip);
  FrameWriter w;
  w.mac(kBroadcast);
  w.mac(mac);
  w.be16(0x0806);
  w.be16(1);
  w.be16(0x0800);
  w.u8(6);
  w.u8(4);
  w.be16(1);
  w.mac(mac);
  w.raw(ip, 4);
  w.mac(Mac{});
  w.raw(ip, 4);
  while (w.size() < kMinFrame) w.u8(0);
  return std::move(w.bytes());
}

// Unsolicited neighbour advertisement (RFC 4861 sections 4.4 and 7.2.6): to
// all nodes, hop limit 255 (receivers drop any other), Override set and
// Solicited clear, with the target link-layer address option (type 2).
//
//   Ethernet: dst 33:33:00:00:00:01 | src MAC | ethertype 0x86dd
//   IPv6:     ver 6 | tc 0 | flow 0 | payload 32 | next 58 | hop limit 255
//             src = the address | dst ff02::1
//   ICMPv6:   type 136 | code 0 | checksum (over the pseudo-header, RFC 8200 8.1)
//             R=0 S=0 O=1 | reserved (29 bits)
//             target address (16)
//             option type 2 | length 1 (8 bytes) | MAC (6)
std::vector<std::uint8_t> na_frame(const Mac& mac, const std::string& ipv6) {
  std::uint8_t src[16] = {}, dst[16] = {};
  inet_pton(AF_INET6, ipv6.c_str(), src);
  inet_pton(AF_INET6, "ff02::1", dst);
  constexpr std::uint16_t kIcmpLength = 32;
  FrameWriter icmp;
  icmp.u8(136);
  icmp.u8(0);
  icmp.be16(0);  // checksum, filled below
  icmp.be32(0x20000000);  // Override
  icmp.raw(src, 16);
  icmp.u8(2);
  icmp.u8(1);
  icmp.mac(mac);
  auto& body = icmp.bytes();
  std::uint32_t sum = add_words(0, src, 16);
  sum = add_words(sum, dst, 16);
  sum += kIcmpLength;
  sum += 58;
  sum = add_words(sum, body.data(), body.size());
  const std::uint16_t checksum = fold(sum);
  body[2] = static_cast<std::uint8_t>(checksum >> 8);
  body[3] = static_cast<std::uint8_t>(checksum);

  FrameWriter w;
  w.mac(kAllNodesMac);
  w.mac(mac);
  w.be16(0x86dd);
  w.be32(0x60000000);
  w.be16(kIcmpLength);
  w.u8(58);
  w.u8(255);
  w.raw(src, 16);
  w.raw(dst, 16);
  w.raw(body.data(), body.size());
  return std::move(w.bytes());
}

std::vector<std::uint8_t> announcement_frame(const Announcement& a) {
  return a.kind == AnnounceKind::garp ? garp_frame(a.mac, a.address) : na_frame(a.mac, a.address);
}

Result<std::vector<Announcement>> plan_announcements(const HostNetwork& profile, const HostState& state) {
  std::vector<Announcement> out;
  for (const auto& b : profile.bonds) {
    const LinkState* bond = state.link(b.name);
    if (bond != nullptr && bond->kind != "bond") return Error{fmt::format("{} exists here and is not a bond", b.name)};
    for (const auto& m : b.members) {
      const LinkState* port = state.link(m.port);
      if (port == nullptr) return Error{fmt::format("member port {} of {} does not exist here", m.port, b.name)};
      if (!port->up) return Error{fmt::format("member port {} of {} is down: nothing would leave it", m.port, b.name)};
      Mac mac;
      const std::string& text = bond != nullptr ? bond->mac : port->mac;
      if (!parse_mac(text, mac)) return Error{fmt::format("{} has no MAC address", bond != nullptr ? b.name : m.port)};
      if (b.ipv4) out.push_back({m.port, b.name, AnnounceKind::garp, b.ipv4->address, mac});
      if (b.ipv6) out.push_back({m.port, b.name, AnnounceKind::na, b.ipv6->address, mac});
    }
  }
  return out;
}

PcapFrameSender::~PcapFrameSender() {
  for (auto& [port, handle] : handles_) pcap_close(static_cast<pcap_t*>(handle));
}

Status PcapFrameSender::send(const std::string& port, const std::vector<std::uint8_t>& frame) {
  pcap_t* handle = nullptr;
  for (auto& [name, h] : handles_) {
    if (name == port) handle = static_cast<pcap_t*>(h);
  }
  if (handle == nullptr) {
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    handle = pcap_open_live(port.c_str(), 128, 0, 0, errbuf);
    if (handle == nullptr) return Error{fmt::format("open {} for injection: {}", port, errbuf)};
    handles_.emplace_back(port, handle);
  }
  if (pcap_inject(handle, frame.data(), frame.size()) != static_cast<int>(frame.size())) {
    return Error{fmt::format("send on {}: {}", port, pcap_geterr(handle))};
  }
  return {};
}

Status send_announcements(const std::vector<Announcement>& announcements, int rounds, FrameSender& sender) {
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    for (const auto& a : announcements) {
      if (auto sent = sender.send(a.port, announcement_frame(a)); !sent) return sent;
    }
  }
  return {};
}

}  // namespace hpn::host
