// The pod spec: every number of an HPN fabric, with the HPN paper's values as
// defaults (examples/hpn-pod.yaml, built into the binary). See hpn-pod.yaml(5).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/diagnostics.h"

namespace hpn {

struct HostSpec {
  int gpus = 0;
  int backend_nics = 0;  // = rails
  int ports_per_nic = 0;
  int port_speed_gbps = 0;
  bool frontend_nic = false;
};

struct SegmentSpec {
  int active_hosts = 0;
  int backup_hosts = 0;
  bool dual_tor = true;
  int tors = 0;
  int hosts() const { return active_hosts + backup_hosts; }
};

struct TorSpec {
  int radix = 0;
  int port_speed_gbps = 0;
  int breakout = 1;
  int uplinks = 0;
};

struct PodLayoutSpec {
  int segments = 0;
  int planes = 0;
};

struct AggSpec {
  int switches_per_plane = 0;
  int radix = 0;
  int port_speed_gbps = 0;
  int downlinks = 0;
  int uplinks = 0;
};

struct CoreSpec {
  int radix = 0;
  int port_speed_gbps = 0;
  int pods_planned = 0;
};

struct FrontendSpec {
  bool enabled = false;
  int hosts_per_leaf_pair = 0;
  int radix = 0;
  int port_speed_gbps = 0;
  int breakout = 1;
  int uplinks = 0;
};

struct AddressingSpec {
  std::string backend_ipv4, backend_ipv6, frontend_ipv4, frontend_ipv6;
  std::string loopback_ipv4, loopback_ipv6, link_ipv4, link_ipv6;
  int first_host_offset = 0;
  // The MAC every gateway answers with: both ToRs of a pair (and both
  // front-end leaves) share it, so a bond's frames are accepted by
  // whichever member port its hash picks (non-stacked dual-ToR, HPN §4).
  std::string gateway_mac;
};

struct AsnSpec {
  int64_t core = 0, agg_first = 0, tor_first = 0, frontend_first = 0, last = 0;
};

struct IdRange {
  int64_t first = 0, last = 0;
};

struct NodeIdSpec {
  IdRange core, agg, tor, frontend, host;
};

struct NamingSpec {
  std::string host, tor, agg, core, frontend, host_port, switch_port, cable, rack;
};

struct LayoutSpec {
  int pods_per_hall = 1;
  double hall_spacing_m = 0;
  int core_hall = 0;
  int racks_per_row = 0;
  double row_pitch_m = 0;
  double rack_width_m = 0;
  int rack_units = 0;
  int hosts_per_rack = 0;
  int host_units = 0;
  int switch_units = 0;
  int aggs_per_rack = 0;
  int cores_per_rack = 0;
};

struct MediaRule {
  std::optional<double> max_length_m;  // none: matches any length
  std::string media;
};

// The fibre connectors transceivers take (IEC 61754-7 MPO, IEC 61754-20 LC).
// Names and defaults in planner/plant.h.
enum class Connector { mpo12, mpo16, lc_duplex };

struct OpticPart {
  std::string media;
  int speed_gbps = 0;
  std::string part;
  // Absent in the spec: what the usual optic of that media and speed takes
  // (default_connector()).
  Connector connector = Connector::mpo12;
};

struct MediaSpec {
  double slack_m = 0;
  double same_rack_slack_m = 0;
  double vertical_m_per_ru = 0;
  double multimode_limit_m = 0;  // the reach of the multimode optics (400G-SR8 on OM4: 100 m)
  std::vector<MediaRule> rules;
  std::vector<double> length_bins_m;
  std::vector<OpticPart> optics;
  // Structured cabling (TIA-942): a fibre run between two rows whose direct
  // length would exceed this leaves its row through the row's patch panel,
  // and reaches the far row's panel over a trunk (another hall's through
  // both halls' panels); patch cords join each end to its row's panel.
  double patch_beyond_m = 0;
  int trunk_lanes = 0;   // runs one trunk carries (MPO legs at each end)
  int panel_ports = 0;   // MPO ports of one 1U patch panel
  std::string fibre_mmf, fibre_smf;  // fibre grade: OM3/OM4/OM5, OS1/OS2
  const std::string& fibre_of(const std::string& media) const { return media == "smf" ? fibre_smf : fibre_mmf; }
};

// Failure and flap rates, for the failures a month `hpnctl plan` expects.
// Defaults are the HPN paper's fleet (HPN §2, Figure 5).
struct ReliabilitySpec {
  double nic_tor_link_monthly_pct = 0;  // of NIC-ToR links, failing in a month
  double tor_monthly_pct = 0;           // of ToRs, failing in a month
  // Link flaps a day across the paper's fleet, whose size the paper does not
  // give: told as they are, not scaled to the plan.
  int64_t link_flaps_per_day_min = 0, link_flaps_per_day_max = 0;
};

// What host profiles need beyond the wiring (hpnctl-profile(1)): the bonds'
// settings, the latencies a path's round trip is made of, and the inputs of
// the DQPLB sizing. The plan itself does not read it.
// What switch configurations need beyond the wiring (hpnctl-config(1)).
// The plan itself does not read it; `hpnctl config` reads it from the
// blueprint's copy of the spec.
struct SwitchesSpec {
  int mtu = 0;                  // every fabric port
  int ioam_namespace = 0;       // the IOAM namespace switches stamp and probes carry
  int bgp_keepalive_s = 0;      // RFC 7938 fabrics run short timers
  int bgp_hold_s = 0;
  int neighbour_reachable_s = 0;  // how long a ToR trusts a host it confirmed
};

struct TransportSpec {
  int mtu = 0;                // back-end bonds: RoCE's 4096-byte payload plus headers
  int frontend_mtu = 0;       // the front-end bond (NIC 0)
  std::string bond_mode;      // balance-xor, 802.3ad or active-backup
  int arp_interval_ms = 0;    // ARP monitor toward both ToR gateways
  int miimon_ms = 0;          // MII monitor, where ARP monitoring is refused (802.3ad)
  int switch_latency_ns = 0;  // one switch hop
  int nic_latency_ns = 0;     // one NIC traversal; a path crosses two each way
  double fibre_ns_per_m = 0;  // propagation, one way
  double bdp_headroom = 0;    // outstanding bytes per connection / BDP, at least
  // DQPLB bounds (dqplb.h): every class starts from the floors and grows
  // toward the ceilings with its BDP.
  int qps = 0;                // data QPs per connection, the nearest class
  int max_qps = 0;            // ... the farthest (NCCLX caps at 128)
  int segment_bytes = 0;      // segment (NCCL_CTRAN_IB_QP_SCALING_THRESHOLD), the nearest class
  int max_segment_bytes = 0;  // ... the farthest
  int max_msgs = 0;           // outstanding messages per QP, the farthest (NCCLX caps at 256)
  int dqplb_max_hops = 0;     // classes up to this many switch hops use mode dqplb, longer spray
  int ib_timeout = 0;         // NCCL_IB_TIMEOUT: 4.096 us x 2^n
  int ib_retry_cnt = 0;       // NCCL_IB_RETRY_CNT
  int ib_gid_index = 0;       // NCCL_IB_GID_INDEX: the RoCE v2 GID of the bond's IPv4 address
  int ib_traffic_class = 0;   // NCCL_IB_TC: DSCP << 2 | ECN
};

struct Spec {
  int version = 1;
  std::string name;
  HostSpec host;
  SegmentSpec segment;
  TorSpec tor;
  PodLayoutSpec pod;
  AggSpec aggregation;
  CoreSpec core;
  int pods = 0;  // fabric.pods
  FrontendSpec frontend;
  AddressingSpec addressing;
  AsnSpec asn;
  NodeIdSpec node_ids;
  NamingSpec naming;
  LayoutSpec layout;
  MediaSpec media;
  ReliabilitySpec reliability;
  TransportSpec transport;
  SwitchesSpec switches;

  // Provenance, for errors and for the blueprint's record of its spec.
  std::string source_name;  // the file name, or "<default>"
  std::string source_text;
  std::map<std::string, SourceLocation> locations;  // "tor.uplinks" -> where
};

}  // namespace hpn
