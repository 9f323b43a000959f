// The probe plan: which host port probes which destination, from which UDP
// source ports, so that every cable in scope is crossed in each direction at
// least k times and every ECMP uplink of every ToR in scope is witnessed.
//
// A probe and the listener's reply cross the sender's host cable both ways
// and the receiver's host cable both ways (dual-plane keeps a flow in the
// sender's plane, so the reply comes back to the port it left from).
// Crossing segments sends it up through an aggregation switch picked by the
// ToR's five-tuple hash: varying the source port spreads probes over the
// uplinks, and further rounds aim new source ports at ToRs whose uplinks
// have not all been seen (the trace says which one each port took).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/model.h"
#include "blueprint/result.h"
#include "probe/loss_stats.h"
#include "probe/observation.h"
#include "probe/silence.h"

namespace hpn::probe {

// --scope: "pod=0", "pod=0,segment=3", "rack=H0-R03-07", "devices=a,b,...";
// empty: the whole fabric.
struct Scope {
  std::optional<int> pod, segment;
  std::optional<std::string> rack;
  std::vector<std::string> devices;
};
Result<Scope> parse_scope(const std::string& text);

// Hosts in scope: those of the pod / segment / rack, the listed hosts, and
// the hosts behind listed switches. Errors name an unknown device or rack.
Result<std::vector<int>> hosts_in_scope(const Blueprint& bp, const Scope& scope);

// The cables a verdict on `hosts` is about (verify --scope): their host
// cables, their ToRs' uplinks and the core cables of their pods; by cable.
std::vector<bool> cables_in_scope(const Blueprint& bp, const std::vector<int>& hosts);
// The switches at either end of those cables, whose own records (BGP
// sessions, LLDP) witness what probes cannot: a core's downward direction
// within one pod. Ascending.
std::vector<int> switches_in_scope(const Blueprint& bp, const std::vector<int>& hosts);

// The most switches a probe of this plan crosses: up through each switch
// tier and down again (ToR, aggregation, core, aggregation, ToR: 5 with a
// core tier, 3 without). A record with more hops is no path of the plan.
std::size_t longest_path_hops(const Blueprint& bp);

struct ProbeTarget {
  int src_host = 0;
  std::string src_port;  // a back-end NIC port of src_host
  int dst_host = 0;      // a host, or for a switch probe the switch
  int dst_nic = 0;
  std::string dst_address;
  std::vector<int> source_ports;  // one probe each (with `train`: one train each)
  // A switch probe: addressed to the switch's loopback with this hop limit,
  // answered by the switch's ICMPv6 port unreachable, which quotes the
  // probe's trace up to and including the switch (kSwitchProbeHopLimit).
  int hop_limit = 0;
  // A train's length (probe/payload.h): each source port sends that many
  // datagrams and asks for their count; 0: ordinary probes.
  int train = 0;
};

// The hop limit of a switch probe: enough to reach any switch of the
// fabric (a probe addressed to the switch is answered there, not expired).
inline constexpr int kSwitchProbeHopLimit = 64;

struct PlanOptions {
  int probes_per_pair = 3;      // k: probes per (port, destination), each its own source port
  int first_source_port = 49152;
  int max_probes_per_pair = 64;  // the bound adaptive rounds respect
  double miss_probability = 1e-3;  // as the diff's: enough to call a silent uplink missing
  SilenceRule silence;             // as the diff's: enough to call a silent host-cable direction broken
  LossOptions loss;                // as the diff's: when a direction is lossy
  // The loss phase after the wiring rounds (probe/loss_trains.h): trains
  // sized to name a direction losing `loss_detect` more than the
  // background with chance `loss_power` (--lossy-detect; 0: no loss
  // phase), later rounds adding to the directions left undecided, at most
  // `loss_budget` attempts across any one direction in all (--lossy-budget).
  double loss_detect = 0.02;
  double loss_power = 0.99;
  std::int64_t loss_budget = 200000;
};

// The cables a probe and its reply cross whatever ECMP picks, and how far
// it reaches: the sender's cable, and the destination's arrival cable (the
// port of NIC `dst_nic` whose ToR is in the sender's plane: dual-plane keeps
// the probe there, and the reply comes back the same way), each both ways.
// -1 where the plan has no such cable; a reach the plan cannot tell is core.
struct RoundTrip {
  int sender_cable = -1, arrival_cable = -1;
  Reach reach = Reach::core;
};
RoundTrip round_trip(const FabricIndex& fabric, PortRef sender, int dst, int dst_nic);

// The address of a host's NIC (its bond's, both ports'), "" if it has none.
std::string bond_address(const Blueprint& bp, int host, int nic);

// The first round: each back-end port of each host in scope probes a host of
// another segment on its own rail, one on another rail, and one of its own
// segment (falling back to what the fabric has).
std::vector<ProbeTarget> initial_plan(const Blueprint& bp, const std::vector<int>& hosts,
                                      const PlanOptions& options = {});

// Probes that witness switch-to-switch cables with no agent behind them
// (hpnctl-probe(1), SWITCH PROBES): from one port behind each ToR in scope,
// to the loopback of every aggregation switch the ToR is cabled to (the
// ToR-aggregation cable, up) and of every core of the ToR's plane in the
// pod (an aggregation-core cable, up, picked by the ToR's hash: `probes_per_pair`
// source ports each). The switch answers each with an ICMPv6 port
// unreachable quoting the probe's trace. Each ToR's list starts at another
// switch (rotated by the ToR's place), so senders working at the same pace
// reach different switches at any moment: the pace per switch is the
// sender's rate.
std::vector<ProbeTarget> switch_probes(const Blueprint& bp, const std::vector<int>& hosts,
                                       const PlanOptions& options = {});

// After a round: more source ports, within the bound, for the pairs leaving
// each ToR in scope whose uplink group has too few probes to call a silent
// member missing, or a member not yet witnessed (either way) and too few
// to call it missing with the chance squared, and for the
// pairs crossing a host-cable direction that is silent and not yet past
// options.silence (loss may still explain it), and for the pairs between
// pods whose plane has a core rule (in-port, destination pod) no trace has
// exercised yet. Empty when coverage is complete or the bound is reached.
std::vector<ProbeTarget> next_round(const Blueprint& bp, const std::vector<ProbeTarget>& sent,
                                    const ObservationSet& seen, const PlanOptions& options = {});

// After a round of switch probes: more source ports, within the bound, for
// the switches in `sent` that answered none, and for each core whose
// aggregation-core cables (from the aggregation switches of the senders'
// ToRs) were not all come up by, or by too few probes for a silent one to
// be missing rather than unlucky: the ToRs' hashes spread a core's probes
// over those cables. Empty when every switch is covered or at the bound.
std::vector<ProbeTarget> next_switch_round(const Blueprint& bp, const std::vector<ProbeTarget>& sent,
                                           const ObservationSet& seen, const PlanOptions& options = {});

// Folds a round from next_round() into `plan` and returns what is new in
// it: the targets with only the source ports not sent yet.
std::vector<ProbeTarget> merge_round(std::vector<ProbeTarget>& plan, const std::vector<ProbeTarget>& more);

// Per source port and destination, source ports whose traced paths share no
// switch-to-switch link (HPN §5, RePaC): the collective library opens one
// connection per port and spreads over disjoint paths.
struct DisjointPaths {
  struct Entry {
    std::string src_device, src_port, dst_device, dst_address;
    std::string bond;  // the bond of src_port's NIC
    std::vector<int> source_ports;
  };
  std::vector<Entry> entries;
};
DisjointPaths learn_disjoint_paths(const Blueprint& bp, const ObservationSet& seen);
// The file `hpnctl profile --paths` reads (hostconfig/profile_paths.h): per host,
// bond and destination host the union of its ports' disjoint source ports
// (the two ports of a bond are in different planes, whose paths never
// meet), with what each port measured kept beside it.
std::string to_json(const DisjointPaths& paths);

}  // namespace hpn::probe
