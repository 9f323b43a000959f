// `hpnctl host announce`: tell both ToRs of every bond where the host is.
// A bond in balance-xor sends its own gratuitous ARP by hash, out of one
// member only (FIELD.md section 4), so the other ToR learns the host late.
// This sends, for each bond's addresses, a gratuitous ARP (IPv4) and an
// unsolicited neighbour advertisement (IPv6) out of EACH member port
// directly, injected with libpcap below the bond.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "host/host_profile.h"
#include "host/host_state.h"

namespace hpn::host {

enum class AnnounceKind { garp, na };

struct Announcement {
  std::string port;     // the member port it leaves by
  std::string bond;     // the bond it speaks for
  AnnounceKind kind = AnnounceKind::garp;
  std::string address;  // the bond's address (IPv4 for GARP, IPv6 for NA)
  Mac mac{};       // the sender MAC: the bond's (or, without a bond, the port's own)
};

// One announcement per member port and address of each bond, in profile
// order. The MAC is what the link carries now: the bond's when the bond
// exists, else each member's own (after `host apply --no-bond` that is the
// bond's MAC from the profile). Error: a member port missing or down.
Result<std::vector<Announcement>> plan_announcements(const HostNetwork& profile, const HostState& state);

// The frames, byte for byte.
std::vector<std::uint8_t> garp_frame(const Mac& mac, const std::string& ipv4);
std::vector<std::uint8_t> na_frame(const Mac& mac, const std::string& ipv6);
std::vector<std::uint8_t> announcement_frame(const Announcement& a);

// Sends a frame out of one device; PcapFrameSender for real, a fake in tests.
class FrameSender {
 public:
  virtual ~FrameSender() = default;
  virtual Status send(const std::string& port, const std::vector<std::uint8_t>& frame) = 0;
};

// libpcap injection (pcap_inject) on each device, handles opened on first
// use in the calling thread's network namespace. Needs CAP_NET_RAW.
class PcapFrameSender final : public FrameSender {
 public:
  ~PcapFrameSender() override;
  Status send(const std::string& port, const std::vector<std::uint8_t>& frame) override;

 private:
  std::vector<std::pair<std::string, void*>> handles_;  // pcap_t*, kept opaque here
};

// Sends every announcement `rounds` times, one second between rounds (as
// arping -U does). Stops at the first error.
Status send_announcements(const std::vector<Announcement>& announcements, int rounds, FrameSender& sender);

}  // namespace hpn::host
