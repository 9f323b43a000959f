// What a failure costs (`hpnctl impact`, hpnctl-impact(1)): cables and
// devices taken out of a planned fabric, and what the blueprint says is left.
//
// HPN's reliability case is arithmetic over the wiring (HPN §4, §5): one
// NIC-ToR link of a host's sixteen 200G ports is 6.25% of its back-end
// bandwidth, and the host keeps running on the other ToR of the rail (the
// other plane); one of a plane's 60 aggregation switches is 1/60 = 1.67% of
// that plane's ToR uplinks. With a single ToR per rail (the baseline HPN
// replaced), losing the ToR takes every host under it off the rail.
//
// Pure: a blueprint and a list of failures in, an ImpactReport out;
// impact_output.h renders it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/model.h"

namespace hpn {

// One thing that fails: a cable, or a device with every cable on it.
struct Failure {
  enum class Kind { cable, device };
  Kind kind = Kind::cable;
  int index = 0;  // into Blueprint::cables or Blueprint::devices
};

// How far a host port still reaches: across the fabric; only its own
// segment's rail (its ToR is up but has no uplink left); or nowhere (its
// cable or its ToR is down).
enum class Reach { fabric, segment, dark };
std::string_view to_string(Reach reach);

// A port of a host that still carries traffic, and where to.
struct PortLeft {
  std::string port;  // "nic1p2"
  std::string tor;   // its ToR
  int plane = kNone;
  Reach reach = Reach::fabric;
};

// One rail (back-end NIC) of a host that lost a port or reach.
struct RailLeft {
  int rail = 0;
  std::vector<PortLeft> left;  // fabric or segment reach only
  bool dark() const { return left.empty(); }
};

// A host with less back-end bandwidth than planned.
struct HostImpact {
  int host = 0;  // device index
  bool failed = false;  // the host itself is one of the failures
  int64_t lost_gbps = 0;  // ports dark
  int64_t total_gbps = 0;  // every planned back-end (host-ToR) port
  std::vector<RailLeft> rails;  // the rails that changed, by rail
};

// The tier a capacity row counts: the back-end cable kinds.
enum class CapacityScope { plane, segment };
std::string_view to_string(CapacityScope scope);

// Capacity of one tier in one place: a pod's plane, or one segment's ToRs of
// a plane. Every planned cable counts (backup hosts' included), at its speed.
struct CapacityLoss {
  CapacityScope scope = CapacityScope::plane;
  int pod = kNone;
  int segment = kNone;  // kNone for a plane
  int plane = kNone;
  CableKind tier = CableKind::host_tor;
  int64_t lost_gbps = 0;
  int64_t total_gbps = 0;
};

// Why a rail went dark for its hosts: both ToRs of a dual-ToR pair; the
// only ToR of a single-ToR rail; cables alone; or ToRs and cables together.
enum class OutageKind { tor_pair, single_tor, cables, mixed };
std::string_view to_string(OutageKind kind);

// Hosts that lose every path on one rail, for one cause.
struct RailOutage {
  int pod = kNone, segment = kNone, rail = kNone;
  OutageKind kind = OutageKind::cables;
  std::vector<std::string> causes;  // the failures that took the rail's ports down, by name
  std::vector<int> hosts;           // device indexes, in plan order
  // One failure alone did it: a single point of failure of the design.
  bool single_point() const { return causes.size() == 1; }
};

struct ImpactReport {
  std::vector<Failure> failures;
  std::vector<HostImpact> hosts;          // in plan order
  std::vector<CapacityLoss> capacity;     // planes first, then segments; each by pod, segment, plane, tier
  std::vector<RailOutage> outages;        // by pod, segment, rail
  int frontend_failures = 0;              // front-end cables and leaves: outside the back end
  int hosts_dark_on_a_rail() const;
};

// The cost of `failures` on `bp` (a failure given twice counts once).
ImpactReport assess_impact(const Blueprint& bp, const std::vector<Failure>& failures);

// "cable C0H00001 (host-p0-s00-h000:nic1p1 -> tor-p0-s00-r1a:etp1a)", "ToR tor-p0-s00-r1a".
std::string describe(const Blueprint& bp, const Failure& failure);
// The failure's own name: the cable ID or the device name.
std::string name_of(const Blueprint& bp, const Failure& failure);

}  // namespace hpn
