#include "planner/expand.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "blueprint/mac.h"
#include "planner/addressing.h"
#include "planner/bom.h"
#include "planner/design_check.h"
#include "planner/layout.h"
#include "planner/naming.h"
#include "planner/plant.h"
#include "planner/topology.h"

namespace hpn {
namespace {

// A switch's front panel: `host_ports` host-facing (sub)ports on the first
// cages (broken out `breakout` ways), `uplinks` uplink cages from
// `first_uplink_cage` on, the rest spare. Port IDs: cage * 16, plus 1 + sub-port for breakout children, so an
// ID read off a telemetry trace decodes by eye (0x232 = cage 35, sub-port b).
struct SwitchPanel {
  int panel = 0;                       // index into Blueprint::panels
  std::vector<PanelPort> ports;
  std::vector<std::string> host_port;  // name of host-facing port k
  std::vector<std::string> uplink;     // name of uplink u
};

SwitchPanel switch_panel(const std::string& pattern, int radix, int speed, int breakout,
                         int host_ports, int active_ports, int first_uplink_cage, int uplinks,
                         PortUse uplink_use, PortUse host_use) {
  SwitchPanel panel;
  const int host_cages = ceil_div(host_ports, breakout);
  for (int cage = 1; cage <= radix; ++cage) {
    std::string cage_name = switch_port_name(pattern, cage, "");
    uint16_t cage_id = static_cast<uint16_t>(cage * 16);
    if (cage <= host_cages && breakout > 1) {
      panel.ports.push_back({cage_name, cage_id, speed, kNone, "", PortUse::cage});
      for (int sub = 0; sub < breakout; ++sub) {
        int k = (cage - 1) * breakout + sub;
        PortUse use = k >= host_ports ? PortUse::spare : k < active_ports ? host_use : PortUse::backup;
        std::string name = switch_port_name(pattern, cage, letter(sub));
        panel.ports.push_back({name, static_cast<uint16_t>(cage_id + sub + 1), speed / breakout,
                               kNone, cage_name, use});
        if (k < host_ports) panel.host_port.push_back(name);
      }
    } else if (cage <= host_cages) {
      int k = cage - 1;
      PortUse use = k < active_ports ? host_use : PortUse::backup;
      panel.ports.push_back({cage_name, cage_id, speed, kNone, "", use});
      panel.host_port.push_back(cage_name);
    } else if (cage >= first_uplink_cage && cage < first_uplink_cage + uplinks) {
      panel.ports.push_back({cage_name, cage_id, speed, kNone, "", uplink_use});
      panel.uplink.push_back(cage_name);
    } else {
      panel.ports.push_back({cage_name, cage_id, speed, kNone, "", PortUse::spare});
    }
  }
  return panel;
}

class Expander {
 public:
  Expander(const Spec& spec, const Topology& topology, const std::string& tool_version)
      : s_(spec), t_(topology), layout_(spec, t_), plant_(spec, layout_, bp_) {
    bp_.spec_name = spec.name;
    bp_.spec_yaml = spec.source_text;
    bp_.tool_version = tool_version;
  }

  Result<Blueprint> run() {
    prepare();
    reserve();
    add_cores();
    for (int pod = 0; pod < t_.pods && error_.empty(); ++pod) add_pod(pod);
    if (error_.empty()) check_cable_ids();
    if (error_.empty()) add_core_rules();
    if (error_.empty()) {
      auto bom = bill_of_materials(s_, bp_);
      if (!bom) return Error{design_error(s_, {"media.optics"}, bom.error().message)};
      bp_.bom = std::move(bom.value());
    }
    if (!error_.empty()) return Error{error_};
    return std::move(bp_);
  }

 private:
  void fail(const std::vector<std::string>& keys, const std::string& message) {
    if (error_.empty()) error_ = design_error(s_, keys, message);
  }

  void prepare() {
    const auto& n = s_.naming;
    tor_ = switch_panel(n.switch_port, s_.tor.radix, s_.tor.port_speed_gbps, s_.tor.breakout,
                        t_.tor_host_ports, s_.segment.active_hosts * t_.tor_ports_per_host,
                        t_.tor_host_cages + 1, s_.tor.uplinks, PortUse::uplink, PortUse::host);
    // Aggregation uplinks on the top cages, where they stay whatever the
    // number of segments: a new segment's downlinks take spare cages below
    // them and no aggregation-core cable moves.
    const auto& a = s_.aggregation;
    agg_ = switch_panel(n.switch_port, a.radix, a.port_speed_gbps, 1, a.downlinks, a.downlinks,
                        a.radix - a.uplinks + 1, a.uplinks, PortUse::uplink, PortUse::downlink);
    core_ = switch_panel(n.switch_port, s_.core.radix, s_.core.port_speed_gbps, 1, s_.core.radix,
                         s_.core.radix, s_.core.radix + 1, 0, PortUse::uplink, PortUse::downlink);
    if (t_.fe_sides > 0) {
      fe_ = switch_panel(n.switch_port, s_.frontend.radix, s_.frontend.port_speed_gbps,
                         s_.frontend.breakout, s_.frontend.hosts_per_leaf_pair,
                         s_.frontend.hosts_per_leaf_pair, t_.fe_host_cages + 1, s_.frontend.uplinks,
                         PortUse::external, PortUse::host);
    }
    if (s_.host.frontend_nic) add_host_nic(0);
    for (int nic = 1; nic <= t_.rails; ++nic) add_host_nic(nic);
    for (auto [panel, name] : {std::pair{&host_, "host"}, {&tor_, "tor"}, {&agg_, "agg"},
                               {&core_, "core"}, {&fe_, "frontend"}}) {
      if (panel->ports.empty()) continue;
      check_port_names(*panel, panel == &host_ ? "host_port" : "switch_port");
      panel->panel = static_cast<int>(bp_.panels.size());
      bp_.panels.push_back({name, panel->ports});
    }

    Mac gateway{};
    (void)parse_mac(s_.addressing.gateway_mac, gateway);  // checked by check_design()
    gateway_mac_ = to_string(gateway);
    pool_backend4_ = parse_prefix(s_.addressing.backend_ipv4, 4).value();
    pool_backend6_ = parse_prefix(s_.addressing.backend_ipv6, 6).value();
    pool_loop4_ = parse_prefix(s_.addressing.loopback_ipv4, 4).value();
    pool_loop6_ = parse_prefix(s_.addressing.loopback_ipv6, 6).value();
    // Each kind of switch-to-switch link its own half of the link pools, so
    // ToR links added with a segment never shift an aggregation-core address.
    Prefix link4 = parse_prefix(s_.addressing.link_ipv4, 4).value();
    Prefix link6 = parse_prefix(s_.addressing.link_ipv6, 6).value();
    pool_tor_link4_ = link4.subnet(link4.length + 1, 0);
    pool_agg_link4_ = link4.subnet(link4.length + 1, 1);
    pool_tor_link6_ = link6.subnet(link6.length + 1, 0);
    pool_agg_link6_ = link6.subnet(link6.length + 1, 1);
    host_len4_ = prefix_for(4, uint64_t(s_.addressing.first_host_offset) + t_.hosts_per_segment + 1);
    if (t_.fe_sides > 0) {
      pool_fe4_ = parse_prefix(s_.addressing.frontend_ipv4, 4).value();
      pool_fe6_ = parse_prefix(s_.addressing.frontend_ipv6, 6).value();
      fe_len4_ = prefix_for(4, uint64_t(s_.addressing.first_host_offset) +
                                   s_.frontend.hosts_per_leaf_pair + 1);
    }
  }

  // Two ports of one panel with one name would make cables ambiguous.
  void check_port_names(const SwitchPanel& panel, const char* key) {
    std::unordered_map<std::string_view, size_t> seen;
    for (size_t i = 0; i < panel.ports.size(); ++i) {
      auto [it, fresh] = seen.emplace(panel.ports[i].name, i);
      if (!fresh) {
        const std::string& pattern = key == std::string_view("host_port") ? s_.naming.host_port
                                                                          : s_.naming.switch_port;
        fail({std::string("naming.") + key},
             fmt::format("naming.{}: pattern '{}' gives two ports the name '{}'; include every "
                         "field that tells them apart", key, pattern, panel.ports[i].name));
        return;
      }
    }
  }

  // Cable IDs end up on labels and in the diff's findings: they must be unique.
  void check_cable_ids() {
    std::unordered_set<std::string_view> seen;
    seen.reserve(bp_.cables.size());
    for (const auto& c : bp_.cables) {
      if (!seen.insert(c.id).second) {
        fail({"naming.cable"}, fmt::format("naming.cable: pattern '{}' gives two cables the ID '{}'; "
                                           "include every field that tells them apart",
                                           s_.naming.cable, c.id));
        return;
      }
    }
  }

  void add_host_nic(int nic) {
    for (int port = 1; port <= s_.host.ports_per_nic; ++port) {
      host_.ports.push_back({host_port_name(s_.naming.host_port, nic, port),
                             static_cast<uint16_t>(nic * 16 + port), s_.host.port_speed_gbps, nic,
                             "", PortUse::nic});
    }
  }

  void reserve() {
    size_t devices = t_.hosts() + t_.tors() + t_.aggs() + t_.cores() + t_.frontend_leaves();
    bp_.devices.reserve(devices);
    size_t cables = t_.hosts() * t_.rails * s_.host.ports_per_nic + t_.tors() * s_.tor.uplinks +
                    t_.aggs() * s_.aggregation.uplinks + t_.hosts() * t_.fe_sides;
    bp_.cables.reserve(cables);
    bp_.interfaces.reserve(t_.hosts() * (t_.rails + 1) + 2 * devices);
    bp_.links.reserve(t_.tors() * s_.tor.uplinks + t_.aggs() * s_.aggregation.uplinks);
    names_.reserve(devices);
  }

  int rack(RackSlot slot, const char* purpose) {
    auto it = racks_.find(slot);
    if (it != racks_.end()) return it->second;
    Rack r{rack_name(s_.naming.rack, slot.hall, slot.row, slot.position), slot.hall, slot.row,
           slot.position, purpose};
    if (!rack_names_.emplace(r.name, 0).second) {
      fail({"naming.rack"}, fmt::format("naming.rack: pattern '{}' gives '{}' to two racks; include "
                                        "every field that tells them apart", s_.naming.rack, r.name));
    }
    int index = static_cast<int>(bp_.racks.size());
    bp_.racks.push_back(std::move(r));
    racks_.emplace(slot, index);
    return index;
  }

  // Node IDs by position (Topology::*_position), not by a counter: a device
  // keeps its ID when segments or pods are added around it.
  uint32_t node_id(Role role, int64_t position) const {
    const IdRange& r = role == Role::host   ? s_.node_ids.host
                       : role == Role::tor  ? s_.node_ids.tor
                       : role == Role::agg  ? s_.node_ids.agg
                       : role == Role::core ? s_.node_ids.core
                                            : s_.node_ids.frontend;
    return static_cast<uint32_t>(r.first + position);
  }

  // `position` numbers the device among its role, `switch_position` among
  // all switches (its loopback); hosts have none.
  int add_device(Device d, int64_t position, int64_t switch_position, const char* naming_key,
                 const std::string& what, RackSlot slot, const char* purpose, int ru,
                 const SwitchPanel* panel) {
    d.node_id = node_id(d.role, position);
    d.rack = rack(slot, purpose);
    d.ru = ru;
    int index = static_cast<int>(bp_.devices.size());
    auto [it, fresh] = names_.emplace(d.name, index);
    if (!fresh) {
      fail({std::string("naming.") + naming_key},
           fmt::format("naming.{}: two devices are both named '{}' ({} and {}); include every "
                       "field that tells them apart", naming_key, d.name, owner_[it->second], what));
    }
    owner_.push_back(what);
    d.panel = panel ? panel->panel : host_.panel;
    if (d.role != Role::host) add_loopback(index, switch_position);
    bp_.devices.push_back(std::move(d));
    return index;
  }

  void add_loopback(int device, int64_t switch_position) {
    // Skip the pool's first address: an all-zero interface ID is IPv6's
    // subnet-router anycast address (RFC 4291 §2.6.1).
    uint64_t n = static_cast<uint64_t>(switch_position) + 1;
    bp_.interfaces.push_back({device, "Loopback0", InterfacePurpose::loopback, kNone,
                              format_address(4, pool_loop4_.base + n), 32,
                              format_address(6, pool_loop6_.base + n), 128, ""});
  }

  int switch_ru(int index_in_rack) const {
    return s_.layout.rack_units - (index_in_rack + 1) * s_.layout.switch_units + 1;
  }

  void add_cores() {
    core_index_.assign(t_.planes, {});
    for (int plane = 1; plane <= t_.planes; ++plane) {
      for (int c = 0; c < t_.cores_per_plane; ++c) {
        Device d;
        d.name = core_name(s_.naming.core, plane, c);
        d.role = Role::core;
        d.plane = plane;
        d.asn = s_.asn.core;
        int rack_no = (plane - 1) * layout_.core_racks_per_plane() + c / s_.layout.cores_per_rack;
        core_index_[plane - 1].push_back(
            add_device(d, t_.core_position(plane, c), t_.core_position(plane, c), "core",
                       fmt::format("core {} of plane {}", c, plane),
                       layout_.core_rack(rack_no), "core", switch_ru(c % s_.layout.cores_per_rack),
                       &core_));
      }
    }
  }

  std::string side_of(int side) const { return s_.segment.dual_tor ? letter(side) : ""; }
  int plane_of(int side) const { return t_.planes == 2 ? side + 1 : 1; }

  void add_pod(int pod) {
    const int hall = pod / s_.layout.pods_per_hall;
    // Aggregation switches.
    std::vector<std::vector<int>> aggs(t_.planes);
    for (int plane = 1; plane <= t_.planes; ++plane) {
      for (int j = 0; j < t_.aggs_per_plane; ++j) {
        Device d;
        d.name = agg_name(s_.naming.agg, pod, plane, j);
        d.role = Role::agg;
        d.pod = pod;
        d.plane = plane;
        d.asn = s_.asn.agg_first + pod * t_.planes + (plane - 1);
        int rack_no = (plane - 1) * layout_.agg_racks_per_plane() + j / s_.layout.aggs_per_rack;
        aggs[plane - 1].push_back(
            add_device(d, t_.agg_position(pod, plane, j), t_.agg_switch_position(pod, plane, j), "agg",
                       fmt::format("aggregation switch {} of pod {} plane {}", j, pod, plane),
                       layout_.agg_rack(pod, rack_no), "aggregation",
                       switch_ru(j % s_.layout.aggs_per_rack), &agg_));
      }
    }
    // ToRs, front-end leaves and hosts, segment by segment.
    std::vector<std::vector<std::vector<int>>> tors(t_.segments);   // [segment][rail-1][side]
    std::vector<std::vector<std::vector<int>>> leaves(t_.segments); // [segment][pair][side]
    std::vector<std::vector<int>> hosts(t_.segments);
    for (int seg = 0; seg < t_.segments; ++seg) {
      RackSlot net = layout_.network_rack(pod, seg);
      int in_rack = 0;
      // Subnets by position too: pod P's segments start at P x max_segments.
      const int64_t subnet = t_.segment_position(pod, seg) * t_.rails;
      tors[seg].assign(t_.rails, {});
      for (int rail = 1; rail <= t_.rails; ++rail) {
        for (int side = 0; side < t_.sides; ++side) {
          Device d;
          d.name = tor_name(s_.naming.tor, pod, seg, rail, side_of(side), plane_of(side));
          d.role = Role::tor;
          d.pod = pod;
          d.segment = seg;
          d.plane = plane_of(side);
          d.rail = rail;
          const int64_t position = t_.tor_position(pod, seg, rail, side);
          d.asn = s_.asn.tor_first + position;
          int index = add_device(d, position, t_.segment_switch_position(pod, seg, in_rack), "tor",
                                 fmt::format("ToR {}{} of pod {} segment {}", rail, side_of(side), pod, seg),
                                 net, "network", switch_ru(in_rack), &tor_);
          ++in_rack;
          tors[seg][rail - 1].push_back(index);
          add_gateway(index, pool_backend4_.subnet(host_len4_, subnet + rail - 1),
                      pool_backend6_.subnet(64, subnet + rail - 1), side);
        }
      }
      leaves[seg].assign(t_.fe_pairs_per_segment, {});
      for (int pair = 0; pair < t_.fe_pairs_per_segment; ++pair) {
        const int64_t fe_subnet = t_.segment_position(pod, seg) * t_.fe_pairs_per_segment + pair;
        for (int side = 0; side < t_.fe_sides; ++side) {
          Device d;
          d.name = frontend_name(s_.naming.frontend, pod, seg, pair, letter(side));
          d.role = Role::frontend;
          d.pod = pod;
          d.segment = seg;
          const int64_t position = t_.leaf_position(pod, seg, pair, side);
          d.asn = s_.asn.frontend_first + position;
          int index = add_device(d, position, t_.segment_switch_position(pod, seg, in_rack), "frontend",
                                 fmt::format("front-end leaf {}{} of pod {} segment {}", pair,
                                             letter(side), pod, seg),
                                 net, "network", switch_ru(in_rack), &fe_);
          ++in_rack;
          leaves[seg][pair].push_back(index);
          add_gateway(index, pool_fe4_.subnet(fe_len4_, fe_subnet), pool_fe6_.subnet(64, fe_subnet), side);
        }
      }
      for (int h = 0; h < t_.hosts_per_segment; ++h) {
        Device d;
        d.name = host_name(s_.naming.host, pod, seg, h, hall);
        d.role = Role::host;
        d.pod = pod;
        d.segment = seg;
        d.state = h < s_.segment.active_hosts ? State::active : State::backup;
        int rack_no = h / s_.layout.hosts_per_rack;
        int ru = 1 + (h % s_.layout.hosts_per_rack) * s_.layout.host_units;
        int index = add_device(d, t_.host_position(pod, seg, h), -1, "host",
                               fmt::format("host {} of pod {} segment {}", h, pod, seg),
                               layout_.host_rack(pod, seg, rack_no), "hosts", ru, nullptr);
        hosts[seg].push_back(index);
        add_host_interfaces(index, pod, seg, h);
      }
    }
    if (!error_.empty()) return;
    cable_hosts(pod, tors, hosts);
    cable_tors(pod, tors, aggs);
    cable_aggs(pod, aggs);
    cable_frontend(pod, leaves, hosts);
  }

  // Each ToR of a pair has its own gateway address (.1, .2) and both share
  // the gateway MAC, so a bond's frames to either are taken by whichever
  // ToR its hash sends them to.
  void add_gateway(int device, const Prefix& v4, const Prefix& v6, int side) {
    bp_.interfaces.push_back({device, "Vlan1000", InterfacePurpose::gateway, kNone,
                              format_address(4, v4.base + 1 + side), v4.length,
                              format_address(6, v6.base + 1 + side), v6.length, gateway_mac_});
  }

  void add_host_interfaces(int device, int pod, int seg, int h) {
    const uint64_t offset = s_.addressing.first_host_offset + h;
    if (t_.fe_sides > 0) {
      int64_t n = t_.segment_position(pod, seg) * t_.fe_pairs_per_segment + h / s_.frontend.hosts_per_leaf_pair;
      Prefix v4 = pool_fe4_.subnet(fe_len4_, n), v6 = pool_fe6_.subnet(64, n);
      uint64_t local = s_.addressing.first_host_offset + h % s_.frontend.hosts_per_leaf_pair;
      bp_.interfaces.push_back({device, "bond0", InterfacePurpose::host, 0, format_address(4, v4.base + local),
                                v4.length, format_address(6, v6.base + local), v6.length,
                                to_string(bond_mac(bp_.devices[device].node_id, 0))});
    }
    for (int nic = 1; nic <= t_.rails; ++nic) {
      int64_t n = t_.segment_position(pod, seg) * t_.rails + nic - 1;
      Prefix v4 = pool_backend4_.subnet(host_len4_, n), v6 = pool_backend6_.subnet(64, n);
      bp_.interfaces.push_back({device, fmt::format("bond{}", nic), InterfacePurpose::host, nic,
                                format_address(4, v4.base + offset), v4.length,
                                format_address(6, v6.base + offset), v6.length,
                                to_string(bond_mac(bp_.devices[device].node_id, nic))});
    }
  }

  // `link`: the position of a switch-to-switch cable's /31 and /127 in the
  // link pool of its kind; none for host cables.
  void cable(CableKind kind, int pod, int& seq, int a, const std::string& a_port, int z,
             const std::string& z_port, int speed, State state, int64_t link = -1) {
    if (!error_.empty()) return;
    Cable c;
    c.id = cable_name(s_.naming.cable, pod, cable_kind_code(kind), ++seq);
    c.kind = kind;
    c.a_device = a;
    c.a_port = a_port;
    c.z_device = z;
    c.z_port = z_port;
    c.speed_gbps = speed;
    c.state = state;
    const Device& da = bp_.devices[a];
    const Device& dz = bp_.devices[z];
    const Rack& ra = bp_.racks[da.rack];
    const Rack& rz = bp_.racks[dz.rack];
    const RackSlot sa{ra.hall, ra.row, ra.position}, sz{rz.hall, rz.row, rz.position};
    c.length_m = layout_.cable_length(sa, da.ru, sz, dz.ru);
    c.media = media_for(c.length_m);
    // A long fibre run goes through the panels; its media is chosen for the
    // whole channel, which is what the optics must reach.
    const PanelPorts ports = plant_.hold(kind, sa, sz);
    if (plant_.patches(c.media, sa, sz, c.length_m)) {
      const int channel = plant_.channel_length(sa, da.ru, sz, dz.ru);
      if (is_fibre(media_for(channel))) {
        c.length_m = channel;
        c.media = media_for(channel);
        plant_.route(c, static_cast<int>(bp_.cables.size()), ports, sa, da.ru, sz, dz.ru);
      }
    }
    c.stock_length_m = c.patched() ? 0 : stock_length_m(s_.media.length_bins_m, c.length_m);
    if (c.media.empty()) {
      fail({"media.rules"}, fmt::format("no media rule covers the {} m cable {} ({}:{} - {}:{}); "
                                        "end media.rules with a rule without max_length_m",
                                        c.length_m, c.id, da.name, a_port, dz.name, z_port));
      return;
    }
    // check_design() refuses rules that give multimode beyond its reach;
    // this stays for the run no rule set could foresee.
    if (c.media == "mmf" && c.length_m > s_.media.multimode_limit_m) {
      bp_.warnings.push_back(
          {c.id, std::string(kMultimodeBeyondReach),
           fmt::format("{} m from {}:{} to {}:{} is beyond the {} m multimode reach; media mmf",
                       c.length_m, da.name, a_port, dz.name, z_port, s_.media.multimode_limit_m)});
    }
    if (kind == CableKind::tor_agg || kind == CableKind::agg_core) {
      const bool tor = kind == CableKind::tor_agg;
      const Prefix& v4 = tor ? pool_tor_link4_ : pool_agg_link4_;
      const Prefix& v6 = tor ? pool_tor_link6_ : pool_agg_link6_;
      const u128 n = static_cast<u128>(link);
      bp_.links.push_back({static_cast<int>(bp_.cables.size()), format_address(4, v4.base + 2 * n),
                           format_address(4, v4.base + 2 * n + 1), 31, format_address(6, v6.base + 2 * n),
                           format_address(6, v6.base + 2 * n + 1), 127});
    }
    bp_.cables.push_back(std::move(c));
  }

  // NIC r of every host to ToR pair r of its segment: port 1 to the ToR of
  // plane 1, port 2 to the ToR of plane 2 (HPN §4, §5). Backup hosts land on
  // the ToRs' backup ports, after the active ones.
  void cable_hosts(int pod, const std::vector<std::vector<std::vector<int>>>& tors,
                   const std::vector<std::vector<int>>& hosts) {
    int seq = 0;
    for (int seg = 0; seg < t_.segments; ++seg) {
      for (int h = 0; h < t_.hosts_per_segment; ++h) {
        State state = h < s_.segment.active_hosts ? State::active : State::backup;
        for (int nic = 1; nic <= t_.rails; ++nic) {
          for (int port = 1; port <= s_.host.ports_per_nic; ++port) {
            int side = s_.segment.dual_tor ? port - 1 : 0;
            int k = s_.segment.dual_tor ? h : h * s_.host.ports_per_nic + port - 1;
            const std::string& host_port = host_.ports[host_nic_offset(nic) + port - 1].name;
            cable(CableKind::host_tor, pod, seq, hosts[seg][h], host_port, tors[seg][nic - 1][side],
                  tor_.host_port[k], s_.host.port_speed_gbps, state);
          }
        }
      }
    }
  }

  size_t host_nic_offset(int nic) const {
    return static_cast<size_t>((s_.host.frontend_nic ? nic : nic - 1) * s_.host.ports_per_nic);
  }

  // Each ToR to every aggregation switch of its plane, uplink u to switch u.
  // An aggregation switch numbers its downlinks by segment, then by the
  // ToR's place among the segment's ToRs of that plane.
  void cable_tors(int pod, const std::vector<std::vector<std::vector<int>>>& tors,
                  const std::vector<std::vector<int>>& aggs) {
    int seq = 0;
    for (int seg = 0; seg < t_.segments; ++seg) {
      for (int rail = 1; rail <= t_.rails; ++rail) {
        for (int side = 0; side < t_.sides; ++side) {
          int plane = plane_of(side);
          int local = t_.planes == 2 ? rail - 1 : (rail - 1) * t_.sides + side;
          int downlink = seg * t_.tors_per_plane_in_segment + local;
          const int64_t first_link = t_.tor_position(pod, seg, rail, side) * s_.tor.uplinks;
          for (int u = 0; u < s_.tor.uplinks; ++u) {
            cable(CableKind::tor_agg, pod, seq, tors[seg][rail - 1][side], tor_.uplink[u],
                  aggs[plane - 1][u], agg_.host_port[downlink], s_.tor.port_speed_gbps,
                  State::active, first_link + u);
          }
        }
      }
    }
  }

  // Aggregation uplinks spread over the plane's core switches: the g-th
  // uplink of the plane goes to core g mod C, as port g div C of this pod's
  // group, so each aggregation switch reaches distinct core switches.
  void cable_aggs(int pod, const std::vector<std::vector<int>>& aggs) {
    int seq = 0;
    const int group = t_.core_ports_per_pod;
    for (int plane = 1; plane <= t_.planes; ++plane) {
      for (int j = 0; j < t_.aggs_per_plane; ++j) {
        for (int k = 0; k < s_.aggregation.uplinks; ++k) {
          int g = j * s_.aggregation.uplinks + k;
          int core = g % t_.cores_per_plane, index = g / t_.cores_per_plane;
          cable(CableKind::agg_core, pod, seq, aggs[plane - 1][j], agg_.uplink[k],
                core_index_[plane - 1][core], core_.host_port[pod * group + index],
                s_.aggregation.port_speed_gbps, State::active,
                t_.agg_position(pod, plane, j) * s_.aggregation.uplinks + k);
        }
      }
    }
  }

  // NIC 0's port 1 to leaf a of the host's front-end leaf pair, port 2 to b.
  void cable_frontend(int pod, const std::vector<std::vector<std::vector<int>>>& leaves,
                      const std::vector<std::vector<int>>& hosts) {
    if (t_.fe_sides == 0) return;
    int seq = 0;
    const int per_pair = s_.frontend.hosts_per_leaf_pair;
    for (int seg = 0; seg < t_.segments; ++seg) {
      for (int h = 0; h < t_.hosts_per_segment; ++h) {
        State state = h < s_.segment.active_hosts ? State::active : State::backup;
        for (int port = 1; port <= t_.fe_sides; ++port) {
          cable(CableKind::frontend, pod, seq, hosts[seg][h], host_.ports[port - 1].name,
                leaves[seg][h / per_pair][port - 1], fe_.host_port[h % per_pair],
                s_.host.port_speed_gbps, state);
        }
      }
    }
  }

  // The media of the first rule covering the length; empty when none does.
  const std::string& media_for(int length_m) const {
    static const std::string kNoMedia;
    for (const auto& rule : s_.media.rules) {
      if (!rule.max_length_m || length_m <= *rule.max_length_m) return rule.media;
    }
    return kNoMedia;
  }

  // HPN §7: traffic for pod P arriving on in-port i (index i of its own pod's
  // group) leaves on index i of P's group; only when that port is down does
  // the core hash over the rest of P's group. Rules exist for every pod the
  // core is sized for; those whose pods are not built yet are "reserved".
  void add_core_rules() {
    const int group = t_.core_ports_per_pod;
    const int planned = s_.core.pods_planned;
    bp_.core_rules.reserve(size_t(t_.cores()) * s_.core.radix * (planned - 1));
    std::vector<std::string> fallback(planned);
    for (int dst = 0; dst < planned; ++dst) {
      fallback[dst] = fmt::format("hash {}..{}", core_.host_port[dst * group],
                                  core_.host_port[dst * group + group - 1]);
    }
    for (const auto& plane : core_index_) {
      for (int core : plane) {
        for (int src = 0; src < planned; ++src) {
          for (int i = 0; i < group; ++i) {
            for (int dst = 0; dst < planned; ++dst) {
              if (dst == src) continue;
              bool built = src < t_.pods && dst < t_.pods;
              bp_.core_rules.push_back({core, core_.host_port[src * group + i], dst,
                                        core_.host_port[dst * group + i], fallback[dst],
                                        built ? "active" : "reserved"});
            }
          }
        }
      }
    }
  }

  const Spec& s_;
  Topology t_;
  Layout layout_;
  Blueprint bp_;
  Plant plant_;
  std::string error_;
  SwitchPanel tor_, agg_, core_, fe_;
  SwitchPanel host_;  // only .ports: the NIC ports every host has
  std::vector<std::vector<int>> core_index_;
  std::map<RackSlot, int> racks_;
  std::unordered_map<std::string, int> rack_names_;
  std::unordered_map<std::string, int> names_;
  std::vector<std::string> owner_;
  Prefix pool_backend4_, pool_backend6_, pool_fe4_, pool_fe6_, pool_loop4_, pool_loop6_;
  Prefix pool_tor_link4_, pool_agg_link4_, pool_tor_link6_, pool_agg_link6_;
  int host_len4_ = 32, fe_len4_ = 32;
  std::string gateway_mac_;  // lowercase, as blueprint.db keeps it
};

}  // namespace

Result<Blueprint> expand(const Spec& spec, const Topology& topology, const std::string& tool_version) {
  return Expander(spec, topology, tool_version).run();
}

}  // namespace hpn
