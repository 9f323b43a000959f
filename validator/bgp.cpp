#include "validator/bgp.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "validator/dump_file.h"

namespace hpn::validator {

namespace {

using json = nlohmann::json;

// Reads one session object; the first wrong type is the error.
class SessionReader {
 public:
  SessionReader(std::string_view source, std::string at) : source_(source), at_(std::move(at)) {}

  Result<BgpSession> read(const std::string& key, const json& j) {
    BgpSession s;
    s.neighbor = key;
    if (!j.is_object()) return fail("", "expected an object");
    text(j, "bgpState", s.state, true);
    text(j, "bgpNeighborAddr", s.peer_address, false);
    // A numbered session's key is its peer's address.
    if (!j.contains("bgpNeighborAddr") && key.find_first_of(".:") != std::string::npos) s.peer_address = key;
    text(j, "hostLocal", s.local_address, false);
    text(j, "hostForeign", s.foreign_address, false);
    text(j, "hostname", s.hostname, false);
    text(j, "remoteRouterId", s.remote_router_id, false);
    text(j, "lastResetDueTo", s.last_reset, false);
    // FRR's words for "not known".
    for (std::string* v : {&s.peer_address, &s.local_address, &s.foreign_address}) {
      if (*v == "none" || *v == "Unknown") v->clear();
    }
    number(j, "remoteAs", s.remote_as);
    if (auto it = j.find("messageStats"); it != j.end()) {
      if (!it->is_object()) return fail("/messageStats", "expected an object");
      number(*it, "totalRecv", s.messages_received, "/messageStats");
      number(*it, "totalSent", s.messages_sent, "/messageStats");
    }
    if (auto it = j.find("addressFamilyInfo"); it != j.end() && it->is_object()) {
      for (const auto& [family, info] : it->items()) {
        if (!info.is_object()) continue;
        std::int64_t accepted = 0;
        number(info, "acceptedPrefixCounter", accepted, "/addressFamilyInfo/" + family);
        s.prefixes_received += accepted;
      }
    }
    if (!error_.empty()) return Error{error_};
    if (s.state.empty()) return fail("/bgpState", "empty state");
    return s;
  }

 private:
  Error fail(const std::string& where, const std::string& what) {
    return Error{fmt::format("{}: {}{}: {}", source_, at_, where, what)};
  }
  void text(const json& j, const char* key, std::string& out, bool required) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required && error_.empty()) error_ = fail(std::string("/") + key, "missing").message;
      return;
    }
    if (!it->is_string()) {
      if (error_.empty()) error_ = fail(std::string("/") + key, "expected a string").message;
      return;
    }
    out = it->get<std::string>();
  }
  void number(const json& j, const char* key, std::int64_t& out, const std::string& under = "") {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_number_integer() && !it->is_number_unsigned()) {
      if (error_.empty()) error_ = fail(under + "/" + key, "expected an integer").message;
      return;
    }
    out = it->is_number_unsigned() ? static_cast<std::int64_t>(it->get<std::uint64_t>() & 0x7FFFFFFFFFFFFFFF)
                                   : it->get<std::int64_t>();
  }

  std::string_view source_;
  std::string at_;
  std::string error_;
};

}  // namespace

Result<std::vector<BgpSession>> parse_bgp_neighbors(std::string_view bytes, std::string_view source) {
  if (auto st = check_dump_shape(bytes, source, "a BGP neighbour dump"); !st) return st.error();
  json root;
  try {
    root = json::parse(bytes.begin(), bytes.end());
  } catch (const json::parse_error& e) {
    return not_json(bytes, source, e.byte, e.what());
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: not JSON: {}", source, e.what())};
  }
  if (!root.is_object()) {
    return Error{fmt::format("{}: expected an object of sessions (`vtysh -c 'show bgp neighbors json'`)", source)};
  }
  std::vector<BgpSession> out;
  for (const auto& [key, value] : root.items()) {
    SessionReader reader(source, "/" + key);
    auto s = reader.read(key, value);
    if (!s) return s.error();
    out.push_back(std::move(s.value()));
  }
  return out;
}

Result<BgpDump> read_bgp_dump(std::string_view argument) {
  auto source = parse_dump_argument(argument, "--bgp");
  if (!source) return source.error();
  auto bytes = read_dump_bytes(source->path, "a BGP neighbour dump");
  if (!bytes) return bytes.error();
  auto sessions = parse_bgp_neighbors(*bytes, source->path);
  if (!sessions) return sessions.error();
  return BgpDump{source->device, source->device_from_file_name, source->path, std::move(sessions.value())};
}

Status add_bgp_witnesses(const FabricIndex& f, const std::vector<BgpDump>& dumps, Witnesses& w) {
  const Blueprint& bp = f.blueprint();
  std::map<int, const BgpDump*> by_device;
  for (const auto& dump : dumps) {
    const int device = resolve_device(f, dump.device);
    if (device < 0) return unknown_dump_device(dump.source, dump.device, dump.device_from_file_name, "--bgp");
    auto [it, fresh] = by_device.emplace(device, &dump);
    if (!fresh) {
      return Error{fmt::format("{}: a second BGP dump of {} (the first is {})", dump.source,
                               bp.devices[device].name, it->second->source)};
    }
  }
  // What each switch reports of itself: its router ID (the plan's IPv4
  // loopback, switchconfig's `bgp router-id`) and, by the sessions it
  // connected, its address on each port. A link-local address is scoped to
  // its link and comes from the port's MAC (EUI-64), so it is matched only
  // against what the dumps show, never decoded.
  std::map<std::string, int> by_router_id;
  for (const auto& i : bp.interfaces) {
    if (i.purpose == InterfacePurpose::loopback && !i.ipv4.empty()) by_router_id.emplace(i.ipv4, i.device);
  }
  struct Connected {
    PortRef port;
    std::string foreign;  // the far end's address of the connection
  };
  std::map<std::string, std::vector<Connected>> local;  // hostLocal -> the sessions that hold it
  for (const auto& [device, dump] : by_device) {
    for (const auto& s : dump->sessions) {
      PortRef port{device, f.port_by_name(device, s.neighbor)};
      if (port.valid() && !s.local_address.empty()) local[s.local_address].push_back({port, s.foreign_address});
    }
  }
  // The far end of the session `s` on `here` whose peer's address is
  // `peer`: the device its router ID (else its host name, else the address
  // as another dump holds it) names; on it, the port whose own session is
  // the other end of this connection, else the one the plan cables to
  // `here`, else the only one the plan cables to `here`'s device. A peer
  // that names itself nowhere (no OPEN yet) is taken as the planned one
  // when its dump was read and shows no other address on that port.
  auto far_end_of = [&](PortRef here, const BgpSession& s, const std::string& peer) -> PortRef {
    int device = -1;
    if (auto it = by_router_id.find(s.remote_router_id); it != by_router_id.end()) device = it->second;
    if (device < 0 && !s.hostname.empty()) device = resolve_device(f, s.hostname);
    const auto held = local.find(peer);
    if (device < 0 && held != local.end()) {
      for (const auto& c : held->second) {
        if (device >= 0 && c.port.device != device) return {};  // an address two devices show: no answer
        device = c.port.device;
      }
    }
    const PortRef planned = f.far_end(here);
    if (device < 0) {
      if (!planned.valid() || !by_device.count(planned.device) || peer.empty()) return {};
      for (const auto& s2 : by_device.at(planned.device)->sessions) {
        if (f.port_by_name(planned.device, s2.neighbor) != planned.port) continue;
        return s2.local_address.empty() || s2.local_address == peer ? planned : PortRef{};
      }
      return {};
    }
    if (held != local.end()) {
      PortRef match;
      int matches = 0;
      for (const auto& c : held->second) {
        if (c.port.device != device) continue;
        if (s.local_address.empty() || c.foreign != s.local_address) continue;  // not this connection
        match = c.port;
        ++matches;
      }
      if (matches == 1) return match;
    }
    if (planned.valid() && planned.device == device) return planned;
    PortRef only;
    int cabled = 0;
    for (const Cable& c : bp.cables) {
      const bool a_here = c.a_device == here.device && c.z_device == device;
      if (!a_here && !(c.z_device == here.device && c.a_device == device)) continue;
      only = {device, f.port_by_name(device, a_here ? c.z_port : c.a_port)};
      ++cabled;
    }
    return cabled == 1 ? only : PortRef{};
  };
  auto link = [&](PortRef from, PortRef to) {
    CableEnd e = f.cable_at(from);
    if (e.cable >= 0 && f.end_of(e.cable, 1 - e.end) == to) {
      ++w.cables[e.cable].dir[e.end].received;
    } else {
      ++w.unplanned[{from, to}];
    }
  };
  std::set<PortRef> undecided;
  for (const auto& [device, dump] : by_device) {
    w.bgp_devices.insert(device);
    w.device_seen[device] = true;
    for (const auto& s : dump->sessions) {
      ++w.observations;
      const PortRef here{device, f.port_by_name(device, s.neighbor)};
      const std::string& peer = s.foreign_address.empty() ? s.peer_address : s.foreign_address;
      if (!here.valid()) {
        ++w.unreadable_hops;
        continue;
      }
      // Heard nothing: its silence is the evidence. An Idle session hears
      // nothing now whatever addresses it shows: bgpd keeps the last
      // connection's (hostForeign) after its link went dark, and rests in
      // Idle ("Waiting for NHT") until the interface is back.
      if (!s.established() && (peer.empty() || s.state == "Idle")) continue;
      ++w.received;
      w.device_answered[device] = true;  // it hears a peer over the fabric
      const PortRef far = far_end_of(here, s, peer);
      if (!far.valid()) {
        if (!s.hostname.empty() && resolve_device(f, s.hostname) < 0) w.unknown_devices.insert(s.hostname);
        ++w.unreadable_hops;
        undecided.insert(here);
        continue;
      }
      w.device_seen[far.device] = true;
      w.device_answered[far.device] = true;
      link(far, here);  // the peer's frames arrive here
      if (s.established()) link(here, far);
      const std::int64_t planned = bp.devices[far.device].asn;
      if (s.established() && s.remote_as != 0 && planned != kNone && s.remote_as != planned) {
        w.asn_mismatches.push_back({f.cable_at(here).cable, here, planned, s.remote_as,
                               s.hostname.empty() ? s.remote_router_id : s.hostname});
      }
    }
  }
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (c.kind != CableKind::tor_agg && c.kind != CableKind::agg_core) continue;
    if (!by_device.count(c.a_device) || !by_device.count(c.z_device)) continue;
    for (int dir = 0; dir < 2; ++dir) {
      // Direction a -> z arrives at the z-end.
      if (undecided.count(f.end_of(static_cast<int>(i), 1 - dir))) continue;
      auto& d = w.cables[i].dir[dir];
      d.bgp = true;
      ++d.sent;
    }
  }
  return {};
}

}  // namespace hpn::validator
