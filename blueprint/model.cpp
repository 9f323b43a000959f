#include "blueprint/model.h"

namespace hpn {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::host: return "host";
    case Role::tor: return "tor";
    case Role::agg: return "agg";
    case Role::core: return "core";
    case Role::frontend: return "frontend";
  }
  return "?";
}

bool parse_role(std::string_view text, Role& out) {
  for (Role r : {Role::host, Role::tor, Role::agg, Role::core, Role::frontend}) {
    if (to_string(r) == text) {
      out = r;
      return true;
    }
  }
  return false;
}

std::string_view to_string(CableKind kind) {
  switch (kind) {
    case CableKind::host_tor: return "host-tor";
    case CableKind::tor_agg: return "tor-agg";
    case CableKind::agg_core: return "agg-core";
    case CableKind::frontend: return "frontend";
  }
  return "?";
}

bool parse_cable_kind(std::string_view text, CableKind& out) {
  for (CableKind k : {CableKind::host_tor, CableKind::tor_agg, CableKind::agg_core, CableKind::frontend}) {
    if (to_string(k) == text) {
      out = k;
      return true;
    }
  }
  return false;
}

bool parse_port_use(std::string_view text, PortUse& out) {
  for (PortUse u : {PortUse::nic, PortUse::host, PortUse::backup, PortUse::uplink, PortUse::downlink,
                    PortUse::cage, PortUse::external, PortUse::spare}) {
    if (to_string(u) == text) {
      out = u;
      return true;
    }
  }
  return false;
}

std::string_view to_string(InterfacePurpose purpose) {
  switch (purpose) {
    case InterfacePurpose::host: return "host";
    case InterfacePurpose::gateway: return "gateway";
    case InterfacePurpose::loopback: return "loopback";
  }
  return "?";
}

bool parse_interface_purpose(std::string_view text, InterfacePurpose& out) {
  for (InterfacePurpose p : {InterfacePurpose::host, InterfacePurpose::gateway, InterfacePurpose::loopback}) {
    if (to_string(p) == text) {
      out = p;
      return true;
    }
  }
  return false;
}

std::string_view to_string(State state) { return state == State::active ? "active" : "backup"; }

std::string_view to_string(PortUse use) {
  switch (use) {
    case PortUse::nic: return "nic";
    case PortUse::host: return "host";
    case PortUse::backup: return "backup";
    case PortUse::uplink: return "uplink";
    case PortUse::downlink: return "downlink";
    case PortUse::cage: return "cage";
    case PortUse::external: return "external";
    case PortUse::spare: return "spare";
  }
  return "?";
}

int Panel::find(std::string_view port) const {
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i].name == port) return static_cast<int>(i);
  }
  return -1;
}

std::string cable_label(const Blueprint& bp, const Cable& cable, bool a_end) {
  const Device& near = bp.devices[a_end ? cable.a_device : cable.z_device];
  const Device& far = bp.devices[a_end ? cable.z_device : cable.a_device];
  const std::string& near_port = a_end ? cable.a_port : cable.z_port;
  const std::string& far_port = a_end ? cable.z_port : cable.a_port;
  std::string label;
  label.reserve(96);
  label.append(cable.id).append(" ").append(near.name).append(":").append(near_port);
  if (cable.patched()) label.append(" > ").append(end_panel(bp, cable, a_end));
  label.append(" > ").append(far.name).append(":").append(far_port);
  if (far.rack != kNone) {
    label.append(" ").append(bp.racks[far.rack].name);
    if (far.ru != kNone) label.append(" U").append(std::to_string(far.ru));
  }
  return label;
}

std::string panel_port_name(const Blueprint& bp, int panel, int port) {
  return bp.patch_panels[panel].name + ":" + std::to_string(port);
}

std::string end_panel(const Blueprint& bp, const Cable& cable, bool a_end) {
  if (!cable.patched()) return "";
  const RunLeg& leg = bp.legs[cable.first_leg + (a_end ? 0 : cable.legs - 1)];
  return a_end ? panel_port_name(bp, leg.to_panel, leg.to_port) : panel_port_name(bp, leg.from_panel, leg.from_port);
}

}  // namespace hpn
