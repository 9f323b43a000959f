// The probe agent's only window on the network: UDP datagrams over IPv6, sent
// out of and received on named interfaces. Three methods, so the sender's and
// the listener's run loops are tested against an in-memory network
// (tests/agent/) and run against real sockets (socket_udp.h) unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::probe {

struct Endpoint {
  std::string address;  // IPv6, canonical text (inet_ntop); "::" for any
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// An ICMPv6 error a switch sent back about one of our probes (RFC 4443):
// Time Exceeded (type 3, code 0: its hop limit ran out there) or
// Destination Unreachable, port unreachable (type 1, code 4: it was
// addressed to the switch itself). Linux quotes the probe as it arrived,
// Hop-by-Hop header and all, so the IOAM trace holds every switch up to
// and including the one that answered.
struct IcmpReport {
  std::uint8_t type = 0;
  std::uint8_t code = 0;
  std::string reporter;  // the error's source address
  friend bool operator==(const IcmpReport&, const IcmpReport&) = default;
};
inline constexpr std::uint8_t kIcmpTimeExceeded = 3, kIcmpUnreachable = 1, kIcmpPortUnreachable = 4;

struct Datagram {
  // Send: the interface to leave by; it must have been open()ed with
  // local.port. Receive: the interface it arrived on.
  std::string interface;
  Endpoint local;   // send: the source (address "::" lets the socket's bind decide)
  Endpoint remote;  // send: the destination; receive: the sender
  std::vector<std::byte> payload;
  // Receive only: the IPv6 Hop-by-Hop header as it arrived, empty when the
  // packet had none. What a datagram is sent with is the network's business
  // (every socket carries the same pre-allocated trace).
  std::vector<std::byte> hop_by_hop;
  std::int64_t realtime_ns = 0;  // receive only: arrival, CLOCK_REALTIME
  // Receive only: how many datagrams the receiving socket has dropped so
  // far for want of buffer room (SO_RXQ_OVFL); 0 where the network does
  // not say. A listener counting a train must know its own drops from the
  // network's.
  std::uint32_t drops = 0;
  // Send only: the IPv6 hop limit, 0 for the system's default.
  int hop_limit = 0;
  // Receive only: set when this is a probe of ours quoted in an ICMPv6
  // error. `payload` and `hop_by_hop` are then the quoted probe's, `remote`
  // its source (this host), `local` its destination, `interface` the one
  // the probe left by.
  std::optional<IcmpReport> icmp;
};

class DatagramNetwork {
 public:
  virtual ~DatagramNetwork() = default;
  // Receive datagrams addressed to `local` that arrive on `interface`, and
  // allow sending from local.port out of it. Opening the same pair twice is
  // an error.
  virtual hpn::Status open(const std::string& interface, const Endpoint& local) = 0;
  // Errors are per datagram (no route, interface down); the caller counts them.
  virtual hpn::Status send(const Datagram& datagram) = 0;
  // The next datagram from any open endpoint, or nullopt after `timeout_ns`
  // (or earlier, when a signal interrupts the wait).
  virtual std::optional<Datagram> receive(std::int64_t timeout_ns) = 0;
};

}  // namespace hpn::probe
