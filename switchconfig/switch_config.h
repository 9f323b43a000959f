// What goes onto one switch, derived from the blueprint alone: every port
// with its speed, breakout, MTU, state and description; the loopback and
// link addresses; the BGP sessions; a ToR's gateway and host subnets; a
// core's port-to-pod rules; the telemetry IDs verify reads back. Plain
// data, rendered by frr_conf.h (FRR on a Linux NOS, what the lab runs),
// config_db.h (SONiC) and config_json.h; the lab applies the same model.
//
// Peering is BGP unnumbered (RFC 5549 next hops over IPv6 link-local,
// `neighbor PORT interface remote-as external`) on every planned
// switch-to-switch port, never by planned peer address or AS: a cable
// plugged into the wrong port still forms a session and carries traffic,
// so probes see the miswire and name it instead of finding a dark cable.
// The planned /127s are configured as well (traceroute, the core rules'
// IPv6 next hops), the planned /31s on a core's links (the rules' IPv4
// next hops; those sessions are `interface v6only`, frr_conf.h), and the
// planned peer AS is recorded per session so a session up to the wrong AS
// is reported (verify --bgp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn::switchconfig {

// The Linux interface name of a port: the port name itself when it is a
// valid name of at most 15 bytes (names only need to be unique inside one
// switch), else "p" + its port ID.
std::string interface_name(const PanelPort& port);

// SONiC's name for a port: "Ethernet" + its first SerDes lane, counting
// 100G lanes per cage (a 400G cage has 4; its 2 x 200G breakout children
// take 2 each).
struct SonicPort {
  std::string name;   // "Ethernet2"
  std::string lanes;  // "2,3"
  int index = 0;      // the cage, 1-based: the front-panel number
};
SonicPort sonic_port(const PanelPort& port, int cage_speed_gbps);

enum class PortRole { host, uplink, downlink, spare, unused, external };
std::string_view to_string(PortRole role);

struct PortConfig {
  std::string name;     // the blueprint's port name
  std::string ifname;   // its Linux interface name (interface_name())
  SonicPort sonic;
  std::uint16_t port_id = 0;  // IOAM interface ID, INT port ID
  int speed_gbps = 0;
  int mtu = 0;
  std::string breakout_of;          // the cage a breakout port belongs to
  PortRole role = PortRole::spare;
  bool admin_up = false;            // cabled in the plan
  std::string description;          // "C0A00017 agg-p0-1-00:etp3", or why it is down
  int cable = -1;                   // Blueprint::cables index, -1 if none
  std::string cable_id;
  std::string peer_device, peer_port;
  std::int64_t peer_asn = kNone;    // the planned far end's AS (switch peers)
  bool bgp = false;                 // a BGP session runs on this port
  bool learns_hosts = false;        // answers for the gateway, its neighbours become host routes
  // Addresses configured: a switch-to-switch port's /127; a host-facing
  // port's gateway address as a /32 and /128 (each host port answers for
  // the rail's gateway; hosts are reached by their /32 and /128 routes).
  // A switch-to-switch port's planned /31 is kept in planned_ipv4, and
  // configured only on the links of a core, where the core rules' IPv4
  // next hops need it. FRR peers an `interface` neighbour over the other
  // address of a /31 when there is one, and a miswired cable would then
  // form no session; such ports peer `interface v6only`, so over IPv6
  // link-local, which forms a session whatever the cable joins.
  std::string ipv4, ipv6;
  int ipv4_len = 0, ipv6_len = 0;
  std::string planned_ipv4;          // "172.16.0.0/31"
  std::string peer_ipv4, peer_ipv6;  // the planned far end's link address
};

// A broken-out cage: no interface of its own, its children carry the ports.
struct CageConfig {
  std::string name;   // "etp1"
  SonicPort sonic;
  int speed_gbps = 0;
  int children = 0;
  int child_speed_gbps = 0;
};

struct Prefix4or6 {
  int family = 6;
  std::string prefix;  // "fd48:504e::/60"
};

// One row of core-rules.csv as forwarding: traffic that arrives on
// in_port for dst_pod leaves on out_port, toward the planned far end of
// out_port's cable; when that port is down, the hash over the pod's group
// (BGP's multipath) carries it.
struct CoreRuleConfig {
  int row = 0;  // 1-based data row of core-rules.csv (its line number - 1)
  std::string in_port, out_port;
  std::string in_ifname, out_ifname;
  int dst_pod = 0;
  std::vector<Prefix4or6> prefixes;  // dst_pod's host subnets, the whole reserved block
  // out_port's planned peer; IPv4 only when the link's /31 is configured.
  std::string nexthop_ipv4, nexthop_ipv6;
  std::string fallback;
  bool active = false;  // both pods built; reserved rules stay comments
  std::string reserved_because;  // why an inactive rule waits
};

struct Gateway {
  std::string ipv4, ipv6;  // this ToR's gateway address (.1 or .2 of the pair)
  int subnet4_len = 0, subnet6_len = 0;
  std::string subnet4, subnet6;  // the rail's host subnets, "10.0.0.0/27"
  std::string mac;               // shared by both ToRs of the pair
  // The pools whose host routes this ToR learns and announces: the whole
  // back-end (front-end, on a leaf) pool, not only the rail's subnet, so a
  // host cabled to the wrong ToR is still reached there and probes name
  // the miswire instead of finding a dark cable.
  std::string pool4, pool6;
};

struct BgpConfig {
  std::int64_t asn = 0;
  std::string router_id;  // the IPv4 loopback
  int keepalive_s = 0, hold_s = 0;
  int maximum_paths = 1;  // as wide as the widest group of equal paths
  std::vector<std::string> networks4, networks6;  // announced: the loopback
};

struct SwitchConfig {
  std::string name;
  Role role = Role::tor;
  int pod = kNone, segment = kNone, plane = kNone, rail = kNone;
  std::string rack;
  int ru = kNone;
  std::uint32_t node_id = 0;         // IOAM node ID, also the INT switch ID
  std::uint16_t ioam_namespace = 0;  // switches.ioam_namespace
  std::string loopback4, loopback6;  // without length (/32, /128)
  int mtu = 0;
  std::vector<CageConfig> cages;
  std::vector<PortConfig> ports;  // panel order, cages left out
  BgpConfig bgp;
  bool has_gateway = false;
  Gateway gateway;  // ToRs and front-end leaves
  int neighbour_reachable_s = 0;
  std::vector<CoreRuleConfig> core_rules;  // cores; core-rules.csv order
  std::string spec_name, tool_version;
  bool bring_up = false;  // ConfigOptions::bring_up
};

struct ConfigOptions {
  // The configuration for the wiring check of a new build (hpnctl config
  // --bring-up, and what the lab runs): ports the plan leaves without a
  // cable are lit and peer like fabric ports, and on a ToR they also answer
  // for the gateway and learn hosts, so a cable plugged into a spare port
  // still carries traffic and probes name it. Without it they are shut.
  bool bring_up = false;
};

// Indexes a blueprint once; build() then makes any switch's configuration
// without scanning the whole plan again (config --all makes 480).
class ConfigBuilder {
 public:
  // Fails when the blueprint's spec does not load (the switches section).
  static Result<ConfigBuilder> create(const Blueprint& bp, const ConfigOptions& options = {});

  // Every switch of the plan, blueprint order: ToRs, aggregation and core
  // switches and front-end leaves (hosts have no switch configuration).
  const std::vector<int>& switches() const { return switches_; }
  // The device index of a switch by name, or -1.
  int find(const std::string& name) const;
  SwitchConfig build(int device) const;

 private:
  ConfigBuilder() = default;
  const Blueprint* bp_ = nullptr;
  ConfigOptions options_;
  std::vector<int> switches_;
  std::vector<std::vector<std::pair<int, int>>> cables_at_;  // device -> (cable, end)
  std::vector<int> link_of_cable_;                           // cable -> Blueprint::links index
  std::vector<int> loopback_, gateway_;                      // device -> interfaces index
  std::vector<std::vector<int>> rules_of_;                   // core device -> core_rules indexes
  std::vector<std::vector<Prefix4or6>> pod_prefixes_;        // by pod, 0..pods_planned-1
  int mtu_ = 0, ioam_namespace_ = 0, keepalive_ = 0, hold_ = 0, reachable_ = 0;
  std::string backend4_, backend6_, frontend4_, frontend6_;
  int core_group_ = 1;
};

}  // namespace hpn::switchconfig
