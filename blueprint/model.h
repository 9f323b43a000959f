// The blueprint: every device, port, cable, address and core rule of a planned
// HPN fabric. Plain data; the planner fills it, the store persists it, and every
// later stage (profiles, probe plans, the diff) reads it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hpn {

// NULL in the database: the column does not apply to this row.
inline constexpr int kNone = -1;

enum class Role { host, tor, agg, core, frontend };
enum class CableKind { host_tor, tor_agg, agg_core, frontend };
enum class State { active, backup };

std::string_view to_string(Role role);
std::string_view to_string(CableKind kind);
std::string_view to_string(State state);
bool parse_role(std::string_view text, Role& out);
bool parse_cable_kind(std::string_view text, CableKind& out);

struct Rack {
  std::string name;
  int hall = 0;
  int row = 0;
  int position = 0;
  std::string purpose;  // "hosts", "network", "aggregation", "core"
};

struct Device {
  std::string name;
  Role role = Role::host;
  int pod = kNone;
  int segment = kNone;
  int plane = kNone;
  int rail = kNone;
  uint32_t node_id = 0;  // IOAM / INT node ID, 24 bits
  int rack = kNone;      // index into Blueprint::racks
  int ru = kNone;        // lowest rack unit the device occupies, 1-based
  State state = State::active;
  int64_t asn = kNone;   // BGP ASN; hosts run no BGP
  int panel = 0;         // index into Blueprint::panels
};

// What a port is for; lets readers tell an unused backup port from an uplink.
enum class PortUse { nic, host, backup, uplink, downlink, cage, external, spare };
std::string_view to_string(PortUse use);
bool parse_port_use(std::string_view text, PortUse& out);

// One port of a front panel. Devices of one model share their panel, so the
// ports of 240 ToRs are stored once, not 240 times (NetBox's device types do
// the same); the `ports` view of blueprint.db lists them per device.
struct PanelPort {
  std::string name;
  uint16_t port_id = 0;      // interface ID reported in per-hop telemetry
  int speed_gbps = 0;
  int nic = kNone;           // host NIC number (0 = front end) on host ports
  std::string breakout_of;   // parent cage of a breakout port, empty if none
  PortUse use = PortUse::host;
};

struct Panel {
  std::string name;  // "host", "tor", "agg", "core", "frontend"
  std::vector<PanelPort> ports;
  // The index of a port by name, or -1.
  int find(std::string_view port) const;
};

struct Cable {
  std::string id;
  CableKind kind = CableKind::host_tor;
  int a_device = 0;  // the lower tier: host, then ToR, then agg, then core
  std::string a_port;
  int z_device = 0;
  std::string z_port;
  int speed_gbps = 0;
  State state = State::active;
  // The run between the two ends as the floor plan estimates it (racks apart,
  // trays, rack units, slack), in whole metres.
  int length_m = 0;
  // The stocked cord to take from the shelf for it: the smallest of
  // media.length_bins_m that covers length_m (length_m itself beyond the
  // last), the bin the bill of materials counts the cable in.
  int stock_length_m = 0;
  std::string media;
  // A patched run (structured cabling, hpn-pod.yaml(5) media.patch_beyond_m)
  // is legs of Blueprint::legs from first_leg: a cord to its row's panel,
  // trunks, a cord from the far panel. Then length_m is the whole channel
  // and stock_length_m 0, each leg having its own stocked length. A direct
  // run has no legs (first_leg kNone).
  int first_leg = kNone;
  int legs = 0;
  bool patched() const { return legs > 0; }
};

// A patch panel of the structured cabling: one at the head of each row a
// patched run leaves or enters, and one per hall (its distribution frame)
// for runs between halls.
struct PatchPanel {
  std::string name;  // "PP-H0-R03-A" (a row's, for ToR uplinks), "PP-H0-C" (a hall's, for core links)
  int hall = 0;
  int row = kNone;   // kNone: the hall's panel
  int ports = 0;     // ports in use, numbered 1..ports in plan order
};

// A pre-terminated multi-fibre trunk between two panels; each run through
// it takes one lane (one MPO leg at each end).
struct Trunk {
  std::string id;  // "TR0-A0001": hall, kind of cable, number
  int a_panel = 0, z_panel = 0;  // indexes into Blueprint::patch_panels
  std::string media;
  std::string fibre;      // OM4, OS2, ...
  std::string connector;  // of every lane's legs: MPO-12, MPO-16, LC-duplex
  std::string polarity;   // B, A-to-B
  int lanes = 0;   // lanes in use
  int length_m = 0;
  int stock_length_m = 0;
};

// One leg of a patched run, counted from the cable's a-end: from a point to
// a point, each the cable's own device port (panel kNone) or a panel port.
struct RunLeg {
  int cable = 0;                     // index into Blueprint::cables
  int from_panel = kNone, from_port = kNone;
  int to_panel = kNone, to_port = kNone;
  int trunk = kNone, lane = kNone;   // a trunk's lane; kNone: a patch cord
  int length_m = 0;
  int stock_length_m = 0;
};

// Core switches forward by a fixed per-port rule (HPN §7): traffic for pod P
// that arrives on in_port leaves on the port of P's group with the same index.
struct CoreRule {
  int core = 0;  // device index
  std::string in_port;
  int dst_pod = 0;
  std::string out_port;
  std::string fallback;  // what happens when out_port is down
  std::string status;    // "active" when both pods exist, else "reserved"
};

// What a layer-3 interface is for: a host NIC's bond, a ToR's gateway
// toward its hosts, a switch's loopback.
enum class InterfacePurpose { host, gateway, loopback };
std::string_view to_string(InterfacePurpose purpose);
bool parse_interface_purpose(std::string_view text, InterfacePurpose& out);

// A layer-3 interface and its addresses. Empty address: none of that family.
struct Interface {
  int device = 0;
  std::string name;
  InterfacePurpose purpose = InterfacePurpose::host;
  int nic = kNone;      // the host NIC a bond belongs to (0 = front end)
  std::string ipv4;
  int ipv4_len = 0;
  std::string ipv6;
  int ipv6_len = 0;
  std::string mac;  // "02:4e:10:00:00:01"; empty on loopbacks
};

// The point-to-point addresses of a switch-to-switch cable: a /31 and a /127,
// the lower address at the a-end.
struct LinkAddresses {
  int cable = 0;  // index into Blueprint::cables
  std::string a_ipv4, z_ipv4;
  int ipv4_len = 31;
  std::string a_ipv6, z_ipv6;
  int ipv6_len = 127;
};

struct BomLine {
  // Every member has its default here, so a line names only the fields it
  // has (designated initializers, planner/bom.cpp) without a warning.
  std::string category{};  // device, cable, optic
  std::string part{};
  std::string media{};
  int length_m = 0;  // the stocked length bin, 0 where it does not apply
  int64_t count = 0;
  // Fibre parts: the grade (OM4, OS2), the connector (MPO-12, MPO-16,
  // LC-duplex) and its polarity (B, A-to-B); empty on other lines.
  std::string fibre{}, connector{}, polarity{};
};

// A cable the plan cannot build as asked; `cause` groups warnings of one
// reason, so a summary says "N cables: <cause>" once.
struct Warning {
  std::string cable;
  std::string cause;    // "mmf-beyond-reach", ...
  std::string message;
};

struct Blueprint {
  std::string spec_name;
  std::string spec_yaml;     // the spec it was made from, as given
  std::string tool_version;
  std::vector<Rack> racks;
  std::vector<Device> devices;
  std::vector<Panel> panels;
  std::vector<Cable> cables;
  std::vector<CoreRule> core_rules;
  std::vector<Interface> interfaces;
  std::vector<LinkAddresses> links;
  std::vector<BomLine> bom;
  std::vector<Warning> warnings;
  // The structured cabling of the patched runs (Cable::first_leg).
  std::vector<PatchPanel> patch_panels;
  std::vector<Trunk> trunks;
  std::vector<RunLeg> legs;
};

// The label printed for one end of a cable: the cable ID, this end, and where
// the far end goes (device, port, rack and unit), e.g.
// "C0H00001 host-p0-s00-h000:nic1p1 > tor-p0-s00-r1a:etp1a H0-R00-09 U47".
// A patched run's label names first the panel port this end's cord plugs
// into: "C0A00001 tor-p0-s00-r1a:etp69 > PP-H0-R00-A:1 > agg-p0-1-00:etp1 H0-R16-00 U47".
std::string cable_label(const Blueprint& bp, const Cable& cable, bool a_end);

// "PP-H0-R03-A:12", a panel port as labels and sheets name it.
std::string panel_port_name(const Blueprint& bp, int panel, int port);
// The panel port one end's cord of a patched run plugs into; "" for a direct run.
std::string end_panel(const Blueprint& bp, const Cable& cable, bool a_end);

}  // namespace hpn
