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

#include "dataplane/lab_state.h"
#include "dataplane/network_ops.h"

namespace hpn::lab {

struct PortStatus {
  StatePort recorded;
  // "up", "no-carrier" (up, but the far end is down), "down", or "missing"
  // (no such interface, or no namespace).
  std::string state = "missing";
  std::string mac;                     // as the kernel reports it
  std::vector<std::string> addresses;  // IPv6, "addr/len"
};

struct DeviceStatus {
  StateDevice recorded;
  bool present = false;  // its namespace exists
  std::vector<PortStatus> ports;
};

struct LabStatus {
  LabState state;
  std::vector<DeviceStatus> devices;
};

// `live` holds, per namespace that exists, its interfaces.
LabStatus build_status(const LabState& state,
                       const std::map<std::string, std::vector<InterfaceState>>& live);

nlohmann::ordered_json status_json(const LabStatus& status);
void render_status(const LabStatus& status, std::ostream& out);

}  // namespace hpn::lab
