// DatagramNetwork over real UDP/IPv6 sockets, one per (interface, port).
//
// Why sockets and not libpcap: the kernel already demultiplexes the probe
// port, hands over the Hop-by-Hop header (IPV6_RECVHOPOPTS) and the arrival
// interface and destination address (IPV6_RECVPKTINFO) as ancillary data,
// and inserts our pre-allocated trace on send (IPV6_HOPOPTS) — the one way to
// send IOAM on this kernel, which has no `encap ioam6` (FIELD.md §3). A
// capture would need raw link-layer parsing, a BPF filter that cannot say
// `udp port N` once a Hop-by-Hop header is present (FIELD.md §3), and raw
// frame injection with our own neighbour resolution. Privilege (CAP_NET_RAW)
// is needed only to set Hop-by-Hop options, and for SO_BINDTODEVICE on some
// kernels; no capture handle, no promiscuous mode.
//
// Each socket is bound to its interface with SO_BINDTODEVICE, which makes the
// kernel route strictly out of that interface (a reply leaves by the port its
// probe came in on even when the routing table prefers another), and delivers
// to it only what arrives on that interface. Sockets on different interfaces
// may share a port, so the listener answers from the probe port itself and a
// reply's five-tuple mirrors its probe's.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "probe/socket.h"

namespace hpn::probe {

class UdpNetwork final : public DatagramNetwork {
 public:
  // Every datagram sent carries `hop_by_hop` (a whole Hop-by-Hop header, e.g.
  // from build_ioam_hbh()); empty: none.
  explicit UdpNetwork(std::vector<std::byte> hop_by_hop);
  ~UdpNetwork() override;
  UdpNetwork(const UdpNetwork&) = delete;
  UdpNetwork& operator=(const UdpNetwork&) = delete;

  hpn::Status open(const std::string& interface, const Endpoint& local) override;
  hpn::Status send(const Datagram& datagram) override;
  std::optional<Datagram> receive(std::int64_t timeout_ns) override;

  // Also hand up the ICMPv6 errors that quote our probes (hop-limited
  // probes, probes to a switch): a raw ICMPv6 socket, which needs
  // CAP_NET_RAW, passing Time Exceeded and Destination Unreachable only.
  // An error whose quoted probe left by none of our sockets is dropped.
  hpn::Status open_icmp();

 private:
  struct Socket {
    int fd = -1;
    std::string interface;
    Endpoint local;
  };
  std::optional<Datagram> read_one(const Socket& socket);
  std::optional<Datagram> read_icmp();
  std::string interface_name(int ifindex, const std::string& fallback);

  std::vector<std::byte> hop_by_hop_;
  std::vector<Socket> sockets_;
  std::map<std::pair<std::string, std::uint16_t>, std::size_t> by_endpoint_;
  std::map<int, std::string> names_;  // ifindex -> name, cached
  std::size_t next_ = 0;              // round-robin start, so one busy socket cannot starve the rest
  int icmp_fd_ = -1;
};

// The probe an ICMPv6 error message quotes (RFC 4443 §3.1, §3.3), as a
// datagram: `icmp` set, `remote` the quoted source, `local` the quoted
// destination, `hop_by_hop` and `payload` as quoted. `message` is the ICMPv6
// message from its type on (what a raw ICMPv6 socket delivers). nullopt for
// anything else: another type or code, a quoted packet that is not UDP, or
// is cut short. Every byte is read through a ByteReader.
//
//    ICMPv6 header (8): type, code, checksum, unused
//    IPv6 header (40):  version 6 ... next header, hop limit, source, destination
//    Hop-by-Hop (8 x (len + 1)), optional: next header, len, options (the IOAM trace)
//    UDP header (8):    source port, destination port, length, checksum
//    payload:           the probe, as far as it is quoted
std::optional<Datagram> quoted_probe(std::span<const std::byte> message, const std::string& reporter);

// The address a probe leaves `interface` from: its first global-scope IPv6
// address (not link-local, loopback or multicast), in the kernel's order.
hpn::Result<std::string> interface_global_address(const std::string& interface);

// Interfaces a listener answers on by default: up, not loopback, with an IPv6
// address. Sorted by name.
hpn::Result<std::vector<std::string>> probe_interfaces();

// "2001:DB8::0:1" -> "2001:db8::1"; an error for text that is not IPv6.
hpn::Result<std::string> canonical_ipv6(const std::string& text);

}  // namespace hpn::probe
