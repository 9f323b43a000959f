// `lab status`: the lab's record joined with what the kernel reports for
// each port, one model rendered as text or as JSON
// (schemas/lab-status.schema.json).
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/lab_state.h"
#include "lab/network_ops.h"
#include "validator/bgp.h"

namespace hpn::lab {

struct PortStatus {
  StatePort recorded;
  // "up", "no-carrier" (up, but the far end is down), "down", or "missing"
  // (no such interface, or no namespace).
  std::string state = "missing";
  std::string mac;                     // as the kernel reports it
  std::vector<std::string> addresses;  // IPv6, "addr/len"
};

// A switch's BGP session on one port, joined with the port's recorded far end.
struct SessionStatus {
  std::string port;
  std::string peer_device, peer_port;  // as wired (the lab's record)
  validator::BgpSession bgp;           // as bgpd reports it
};

struct DeviceStatus {
  StateDevice recorded;
  bool present = false;  // its namespace exists
  std::vector<PortStatus> ports;
  std::vector<SessionStatus> sessions;  // switches; empty while the lab is not up
};

struct LabStatus {
  LabState state;
  std::vector<DeviceStatus> devices;
};

// `live` holds, per namespace that exists, its interfaces; `sessions` per
// switch namespace what its bgpd reported.
LabStatus build_status(const LabState& state, const std::map<std::string, std::vector<InterfaceState>>& live,
                       const std::map<std::string, std::vector<validator::BgpSession>>& sessions = {});

nlohmann::ordered_json status_json(const LabStatus& status);
void render_status(const LabStatus& status, std::ostream& out);

}  // namespace hpn::lab
