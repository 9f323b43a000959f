// A DatagramNetwork that seals everything it sends and hands up only what a
// ProbeGuard accepts (probe_auth.h): the listener's and the sender's run
// loops stay as they are, and never see a forged, foreign-run, replayed or
// over-rate datagram.
#pragma once

#include "probe/agent_clock.h"
#include "probe/probe_auth.h"
#include "probe/socket.h"

namespace hpn::probe {

class AuthenticatedNetwork final : public DatagramNetwork {
 public:
  AuthenticatedNetwork(DatagramNetwork& inner, ProbeGuard& guard, Clock& clock)
      : inner_(inner), guard_(guard), clock_(clock) {}

  hpn::Status open(const std::string& interface, const Endpoint& local) override {
    return inner_.open(interface, local);
  }
  hpn::Status send(const Datagram& datagram) override { return inner_.send(guard_.seal(datagram)); }
  // Rejected datagrams are counted by the guard and skipped; the wait still
  // ends after `timeout_ns`, however many of them arrive meanwhile.
  std::optional<Datagram> receive(std::int64_t timeout_ns) override;

 private:
  DatagramNetwork& inner_;
  ProbeGuard& guard_;
  Clock& clock_;
};

}  // namespace hpn::probe
