#include "hostconfig/profile.h"

#include <fmt/format.h>

#include <algorithm>

#include "hostconfig/profile_nccl.h"
#include "planner/design_check.h"
#include "planner/spec_loader.h"

namespace hpn {

namespace {

// Usable bandwidth of a NIC's ports: both in balance-xor and 802.3ad, one in
// active-backup.
int usable_gbps(const std::vector<int>& port_speeds, BondMode mode) {
  int sum = 0, most = 0;
  for (int s : port_speeds) {
    sum += s;
    most = std::max(most, s);
  }
  return mode == BondMode::active_backup ? most : sum;
}

// The ports of NIC `nic` on the host panel, in panel order.
std::vector<const PanelPort*> nic_ports(const Panel& panel, int nic) {
  std::vector<const PanelPort*> out;
  for (const auto& p : panel.ports) {
    if (p.use == PortUse::nic && p.nic == nic) out.push_back(&p);
  }
  return out;
}

// An address or prefix of the blueprint or its spec, which check_design()
// accepted; canonicalised, as host apply compares them with the kernel's.
IpPrefix prefix(const std::string& text) {
  IpPrefix p;
  (void)parse_ip_prefix(text, 0, p);
  return p;
}
IpPrefix prefix(const std::string& address, int length) { return prefix(address + "/" + std::to_string(length)); }

}  // namespace

Result<ProfileBuilder> ProfileBuilder::create(const Blueprint& bp, const ProfileOptions& options) {
  ProfileBuilder b;
  b.bp_ = &bp;
  auto spec = load_spec(bp.spec_yaml, "the blueprint's spec");
  if (!spec) return Error{"the spec stored in the blueprint does not load:\n" + spec.error().message};
  b.spec_ = std::move(spec.value());
  const TransportSpec& t = b.spec_.transport;
  if (options.mode) {
    b.mode_ = *options.mode;
  } else if (!parse_bond_mode(t.bond_mode, b.mode_)) {
    return Error{fmt::format("transport.bond_mode '{}' is not a bond mode", t.bond_mode)};
  }
  if (b.mode_ == BondMode::lacp && b.spec_.segment.dual_tor) return Error{lacp_dual_tor_error()};
  b.mtu_ = options.mtu.value_or(t.mtu);
  b.paths_ = options.paths;

  const size_t n = bp.devices.size();
  b.host_cables_.assign(n, {});
  b.host_rows_.assign(n, {});
  b.gateway_.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (bp.devices[i].role != Role::host) continue;
    b.host_index_.emplace(bp.devices[i].name, static_cast<int>(i));
    b.hosts_.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    const Cable& c = bp.cables[i];
    if (bp.devices[c.a_device].role == Role::host) b.host_cables_[c.a_device].push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < bp.interfaces.size(); ++i) {
    const Interface& row = bp.interfaces[i];
    if (row.purpose == InterfacePurpose::host) b.host_rows_[row.device].push_back(static_cast<int>(i));
    if (row.purpose == InterfacePurpose::gateway && b.gateway_[row.device] < 0) b.gateway_[row.device] = static_cast<int>(i);
  }

  // The fabric's NIC speed: back-end NIC 1 of the host panel stands for all
  // (every host shares one panel).
  int gbps = 0;
  if (!b.hosts_.empty()) {
    std::vector<int> speeds;
    for (const PanelPort* p : nic_ports(bp.panels[bp.devices[b.hosts_.front()].panel], 1)) {
      speeds.push_back(p->speed_gbps);
    }
    gbps = usable_gbps(speeds, b.mode_);
  }
  b.classes_ = class_profiles(path_classes(bp, path_timing(t, gbps)), t);

  if (b.paths_) {
    for (const auto& [host, entries] : b.paths_->hosts) {
      auto src = b.find_host(host);
      if (!src) return Error{fmt::format("{}: hosts.{}: no such host in the blueprint", b.paths_->source, host)};
      for (const auto& e : entries) {
        if (!b.find_host(e.destination)) {
          return Error{fmt::format("{}: hosts.{}: destination {} is not a host of the blueprint",
                                   b.paths_->source, host, e.destination)};
        }
        bool known = false;
        for (int r : b.host_rows_[*src]) {
          known = known || (bp.interfaces[r].name == e.bond && bp.interfaces[r].nic > 0);
        }
        if (!known) {
          return Error{fmt::format("{}: hosts.{}: {} is not a back-end bond of that host",
                                   b.paths_->source, host, e.bond)};
        }
      }
    }
  }
  return b;
}

std::optional<int> ProfileBuilder::find_host(std::string_view name) const {
  auto it = host_index_.find(std::string(name));
  if (it == host_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ProfileBuilder::host_names() const {
  std::vector<std::string> out;
  out.reserve(hosts_.size());
  for (int h : hosts_) out.push_back(bp_->devices[h].name);
  return out;
}

Bond ProfileBuilder::make_bond(int device, const Interface& row) const {
  const Blueprint& bp = *bp_;
  const Device& host = bp.devices[device];
  const TransportSpec& t = spec_.transport;
  Bond b;
  b.name = row.name;
  b.nic = row.nic;
  b.backend = row.nic > 0;
  (void)parse_mac(row.mac, b.mac);  // bond_mac(): the blueprint writes only MACs of its scheme
  b.mtu = b.backend ? mtu_ : t.frontend_mtu;
  if (!row.ipv4.empty()) b.ipv4 = prefix(row.ipv4, row.ipv4_len);
  if (!row.ipv6.empty()) b.ipv6 = prefix(row.ipv6, row.ipv6_len);
  b.mode = mode_;
  b.layer34 = mode_ != BondMode::active_backup;
  b.lacp_fast = mode_ == BondMode::lacp;
  std::vector<int> speeds;
  for (const PanelPort* port : nic_ports(bp.panels[host.panel], row.nic)) {
    BondMember m;
    m.port = port->name;
    m.speed_gbps = port->speed_gbps;
    speeds.push_back(port->speed_gbps);
    for (int ci : host_cables_[device]) {
      const Cable& c = bp.cables[ci];
      if (c.a_port != port->name) continue;
      const Device& peer = bp.devices[c.z_device];
      m.cable = c.id;
      m.peer = peer.name;
      m.peer_port = c.z_port;
      m.plane = peer.plane;
      if (int g = gateway_[c.z_device]; g >= 0) {
        m.gateway_ipv4 = bp.interfaces[g].ipv4;
        m.gateway_ipv6 = bp.interfaces[g].ipv6;
        if (Mac mac; parse_mac(bp.interfaces[g].mac, mac)) m.gateway_mac = mac;
      }
      break;
    }
    b.members.push_back(std::move(m));
  }
  b.speed_gbps = usable_gbps(speeds, mode_);

  // One next hop per distinct gateway, in member order: both ToRs of the pair.
  std::vector<std::string> via4, via6;
  for (const auto& m : b.members) {
    if (!m.gateway_ipv4.empty() && std::find(via4.begin(), via4.end(), m.gateway_ipv4) == via4.end()) {
      via4.push_back(m.gateway_ipv4);
    }
    if (!m.gateway_ipv6.empty() && std::find(via6.begin(), via6.end(), m.gateway_ipv6) == via6.end()) {
      via6.push_back(m.gateway_ipv6);
    }
  }
  // The kernel refuses arp_interval in 802.3ad (FIELD.md section 4): LACP
  // watches the links there, with MII monitoring for carrier.
  b.arp_monitor = mode_ != BondMode::lacp && !via4.empty();
  if (b.arp_monitor) {
    b.arp_interval_ms = t.arp_interval_ms;
    b.arp_targets = via4;
    b.arp_validate_all = mode_ != BondMode::active_backup;
  } else {
    b.miimon_ms = t.miimon_ms;
  }

  // Back end: the whole back-end prefix of the spec via both ToRs. Every
  // other rail of the fabric sits in it, and so does the bond's own subnet:
  // its peers in the segment are reached through the ToR, one hop, too.
  // And the switches' loopbacks, which verify's switch probes address from
  // each rail.
  if (b.backend) {
    b.table = kBackendTableBase + b.nic;
    b.rdma_device = b.name;
    const auto& a = spec_.addressing;
    if (b.ipv4 && !via4.empty()) {
      b.routes.push_back({4, prefix(a.backend_ipv4), via4, b.table});
      if (!a.loopback_ipv4.empty()) b.routes.push_back({4, prefix(a.loopback_ipv4), via4, b.table});
      b.rules.push_back({4, prefix(b.ipv4->address, 32), b.table, b.table});
    }
    if (b.ipv6 && !via6.empty()) {
      b.routes.push_back({6, prefix(a.backend_ipv6), via6, b.table});
      if (!a.loopback_ipv6.empty()) b.routes.push_back({6, prefix(a.loopback_ipv6), via6, b.table});
      b.rules.push_back({6, prefix(b.ipv6->address, 128), b.table, b.table});
    }
  } else {
    // The front end is the host's way to everything else.
    if (!via4.empty()) b.routes.push_back({4, prefix("0.0.0.0/0"), via4, kMainTable});
    if (!via6.empty()) b.routes.push_back({6, prefix("::/0"), via6, kMainTable});
  }
  return b;
}

HostProfile ProfileBuilder::build(int device) const {
  const Blueprint& bp = *bp_;
  const Device& d = bp.devices[device];
  HostProfile p;
  p.host = d.name;
  p.node_id = d.node_id;
  p.state = d.state;
  p.pod = d.pod;
  p.segment = d.segment;
  if (d.rack != kNone) {
    p.hall = bp.racks[d.rack].hall;
    p.rack = bp.racks[d.rack].name;
  }
  p.ru = d.ru;
  p.spec_name = bp.spec_name;
  p.tool_version = bp.tool_version;
  p.mode = mode_;

  std::vector<int> rows = host_rows_[device];
  std::sort(rows.begin(), rows.end(),
            [&](int a, int b) { return bp.interfaces[a].nic < bp.interfaces[b].nic; });
  for (int r : rows) p.bonds.push_back(make_bond(device, bp.interfaces[r]));

  // Multipath hashing on the five-tuple, like the bonds' layer3+4, and a next
  // hop whose neighbour entry failed is skipped (a ToR that stopped answering).
  p.sysctls = {{"net.ipv4.fib_multipath_hash_policy", "1"},
               {"net.ipv6.fib_multipath_hash_policy", "1"},
               {"net.ipv4.fib_multipath_use_neigh", "1"}};
  for (const auto& b : p.bonds) {
    const std::string v4 = "net.ipv4.conf." + b.name + ".", v6 = "net.ipv6.conf." + b.name + ".";
    // Several bonds in several subnets on one host: ARP only for the
    // receiving bond's own addresses (arp_ignore=1), always from the bond's
    // own address (arp_announce=2), and announce it when the bond comes up or
    // changes address (arp_notify, ndisc_notify).
    p.sysctls.push_back({v4 + "arp_announce", "2"});
    p.sysctls.push_back({v4 + "arp_ignore", "1"});
    p.sysctls.push_back({v4 + "arp_notify", "1"});
    // Loose: traffic legitimately comes back through either ToR.
    p.sysctls.push_back({v4 + "rp_filter", "2"});
    p.sysctls.push_back({v6 + "accept_ra", "0"});
    p.sysctls.push_back({v6 + "ndisc_notify", "1"});
  }

  p.classes = classes_;
  p.topology = ncclx_topology(p.hall, p.pod, p.segment);
  p.env = nccl_environment(p, spec_.transport);
  if (paths_) {
    p.paths_source = paths_->source;
    if (auto it = paths_->hosts.find(d.name); it != paths_->hosts.end()) p.source_ports = it->second;
  }
  return p;
}

}  // namespace hpn
