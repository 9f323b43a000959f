#include "lab/lab_status.h"

#include <fmt/format.h>

#include "blueprint/text_table.h"

namespace hpn::lab {

LabStatus build_status(const LabState& state, const std::map<std::string, std::vector<InterfaceState>>& live,
                       const std::map<std::string, std::vector<validator::BgpSession>>& sessions) {
  LabStatus s{state, {}};
  for (const auto& d : state.devices) {
    DeviceStatus dev{d, false, {}, {}};
    if (auto it = sessions.find(d.netns); it != sessions.end()) {
      for (const auto& b : it->second) {
        SessionStatus st{b.neighbor, "", "", b};
        for (const auto& p : d.ports) {
          if (p.ifname == b.neighbor) {
            st.port = p.port;
            st.peer_device = p.peer_device;
            st.peer_port = p.peer_port;
          }
        }
        dev.sessions.push_back(std::move(st));
      }
    }
    const auto ns = live.find(d.netns);
    dev.present = ns != live.end();
    for (const auto& p : d.ports) {
      PortStatus port{p, "missing", "", {}};
      if (dev.present) {
        for (const auto& i : ns->second) {
          if (i.ifname != p.ifname) continue;
          port.state = !i.up ? "down" : i.carrier ? "up" : "no-carrier";
          port.mac = i.mac;
          port.addresses = i.addresses;
        }
      }
      dev.ports.push_back(std::move(port));
    }
    s.devices.push_back(std::move(dev));
  }
  return s;
}

namespace {

using Json = nlohmann::ordered_json;  // keys in the order written: name first

Json or_null(const std::string& text) { return text.empty() ? Json() : Json(text); }

}  // namespace

nlohmann::ordered_json status_json(const LabStatus& s) {
  Json devices = Json::array();
  for (const auto& d : s.devices) {
    Json ports = Json::array();
    for (const auto& p : d.ports) {
      ports.push_back({{"port", p.recorded.port},
                       {"port_id", p.recorded.port_id},
                       {"ifname", p.recorded.ifname},
                       // The kernel's word when the interface exists, else the record's.
                       {"mac", p.mac.empty() ? p.recorded.mac : p.mac},
                       {"link_local", p.recorded.link_local},
                       {"addresses", p.addresses},
                       {"state", p.state},
                       {"peer", {{"device", p.recorded.peer_device}, {"port", p.recorded.peer_port}}},
                       {"cable", or_null(p.recorded.cable)},
                       {"fault", or_null(p.recorded.fault)}});
    }
    Json sessions = Json::array();
    for (const auto& st : d.sessions) {
      sessions.push_back({{"port", st.port},
                          {"ifname", st.bgp.neighbor},
                          {"peer", st.peer_device.empty() ? Json() : Json({{"device", st.peer_device}, {"port", st.peer_port}})},
                          {"state", st.bgp.state},
                          {"established", st.bgp.established()},
                          {"peer_hostname", or_null(st.bgp.hostname)},
                          {"peer_as", st.bgp.remote_as == 0 ? Json() : Json(st.bgp.remote_as)},
                          {"peer_address", or_null(st.bgp.peer_address)},
                          {"prefixes_received", st.bgp.prefixes_received},
                          {"messages_received", st.bgp.messages_received},
                          {"last_reset", or_null(st.bgp.last_reset)}});
    }
    devices.push_back({{"name", d.recorded.name},
                       {"role", d.recorded.role},
                       {"netns", d.recorded.netns},
                       {"node_id", d.recorded.node_id},
                       {"present", d.present},
                       {"ports", std::move(ports)},
                       {"sessions", std::move(sessions)}});
  }
  return {{"lab", s.state.id},
          {"prefix", s.state.prefix},
          {"phase", s.state.phase},
          {"pid", s.state.pid},
          {"blueprint", s.state.blueprint},
          {"wiring", or_null(s.state.wiring)},
          {"ioam_namespace", s.state.ioam_namespace},
          {"devices", std::move(devices)}};
}

void render_status(const LabStatus& s, std::ostream& out) {
  out << fmt::format("lab {} ({}): {} devices from {}, wired {}; IOAM namespace {}\n", s.state.id,
                     s.state.phase, s.devices.size(), s.state.blueprint,
                     s.state.wiring.empty() ? "as planned" : "by " + s.state.wiring, s.state.ioam_namespace);
  TextTable devices({"device", "role", "node_id", "netns", "ports up"});
  TextTable hosts({"host", "port", "ifname", "mac", "state", "addresses", "cabled to"});
  TextTable faults({"device", "port", "cable", "fault", "cabled to"});
  TextTable bgp({"switch", "port", "peer (wired)", "state", "peer says", "prefixes"});
  for (const auto& d : s.devices) {
    int up = 0;
    for (const auto& p : d.ports) up += p.state == "up" ? 1 : 0;
    devices.add({d.recorded.name, d.recorded.role, std::to_string(d.recorded.node_id),
                 d.present ? d.recorded.netns : d.recorded.netns + " (missing)",
                 fmt::format("{}/{}", up, d.ports.size())});
    for (const auto& p : d.ports) {
      const std::string peer = p.recorded.peer_device + ":" + p.recorded.peer_port;
      if (d.recorded.role == "host") {
        hosts.add({d.recorded.name, p.recorded.port, p.recorded.ifname, p.mac.empty() ? p.recorded.mac : p.mac,
                   p.state, fmt::format("{}", fmt::join(p.addresses, " ")), peer});
      }
      if (!p.recorded.fault.empty()) {
        faults.add({d.recorded.name, p.recorded.port, p.recorded.cable, p.recorded.fault, peer});
      }
    }
    for (const auto& st : d.sessions) {
      bgp.add({d.recorded.name, st.port.empty() ? st.bgp.neighbor : st.port,
               st.peer_device.empty() ? "-" : st.peer_device + ":" + st.peer_port, st.bgp.state,
               st.bgp.hostname.empty() ? "-" : fmt::format("{} AS {}", st.bgp.hostname, st.bgp.remote_as),
               std::to_string(st.bgp.prefixes_received)});
    }
  }
  out << '\n';
  devices.render(out);
  if (hosts.size() > 0) {
    out << '\n';
    hosts.render(out);
  }
  if (faults.size() > 0) {
    out << '\n';
    faults.render(out);
  }
  if (bgp.size() > 0) {
    out << '\n';
    bgp.render(out);
  }
}

}  // namespace hpn::lab
