// An in-memory model of how an HPN fabric forwards on a given wiring: what
// the network-namespace lab does with real kernels, in a form fast enough to
// generate the observations of a whole pod. The diff's tests and its
// benchmark use it; it is not a stand-in for the lab's evidence.
//
// Forwarding follows what the fabric's routing converges to on the actual
// wiring, the one route computation of routes.h (FabricRoutes: HPN's eBGP,
// valley-free, ECMP, host routes learned by the ToRs): each switch hashes
// the five-tuple over its route's next hops; lost where nothing routes.
// Switch probes to a loopback still take switch_probe's own rule.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "probe/observation.h"
#include "probe/probe_plan.h"
#include "blueprint/fabric_index.h"
#include "fabricmodel/routes.h"
#include "lab/wiring.h"

namespace hpn::fabricmodel {


// One probe as the probe agent makes it (`probe send --retries`) and as
// both ends record it: the sender's records (the answered attempt's
// forward and reverse, or the lost probe's forward), each naming its
// attempt, and the receiver's record of every attempt that arrived, as its
// listener writes them.
struct AgentProbe {
  std::vector<probe::ObservationRecord> sender, receiver;
};

// The blueprint's own wiring, every cable (front-end ones too), fault-free:
// entry i is cable i, so a test or a fault mix changes cable i's ends or
// fault in place. lab::planned_wiring() is the lab's (back-end cables only).
std::vector<lab::WiredCable> planned_wiring(const FabricIndex& fabric);

// A wired cable's ends as ports of the fabric (invalid where the end names
// no port of its device), and moved: plugging an end into an invalid port
// unplugs it, and the model takes the cable as not there.
PortRef a_end(const FabricIndex& fabric, const lab::WiredCable& cable);
PortRef z_end(const FabricIndex& fabric, const lab::WiredCable& cable);
void plug_a(const FabricIndex& fabric, lab::WiredCable& cable, PortRef to);
void plug_z(const FabricIndex& fabric, lab::WiredCable& cable, PortRef to);
// Two cables' a (z) ends exchanged, as a technician's swap.
void swap_a_ends(lab::WiredCable& x, lab::WiredCable& y);
void swap_z_ends(lab::WiredCable& x, lab::WiredCable& y);

class FabricModel {
 public:
  // The model forwards on `wiring` (lab/wiring.h, the one wiring type): a
  // cable whose end names no port of its device is not there.
  FabricModel(const FabricIndex& fabric, const std::vector<lab::WiredCable>& wiring);

  // One probe from `host`'s port `port` to `dst`'s NIC `nic`, and the
  // listener's reply out of the port it arrived on. Lost probes get no reply.
  std::vector<probe::ObservationRecord> probe(int host, int port, int dst, int nic, int src_udp_port,
                                        uint64_t probe_id);

  // A switch probe (probe::switch_probes()): from `host`'s port `port` to
  // the loopback address `loopback` of switch `target`, answered there by an ICMPv6
  // port unreachable quoting the trace up to the target, whose hop has no
  // egress. A ToR sends it over its direct cable to `target` when it has
  // one, else over an uplink its hash picks among those whose aggregation
  // switch is cabled to `target` (where its route comes from); an
  // aggregation switch over its cable to `target`. The "expired" observation, received or lost.
  probe::ObservationRecord switch_probe(int host, int port, int target, const std::string& loopback, int src_udp_port,
                                  uint64_t probe_id);

  // probe(), tried up to `attempts` times while unanswered, as the agent does.
  AgentProbe agent_probe(int host, int port, int dst, int nic, int src_udp_port, uint64_t probe_id, int attempts);

  // A train (probe/payload.h) as the agent sends it: `length` datagrams of
  // the five-tuple, each crossing lost at random as a probe's would be,
  // then the report request tried up to `attempts` times. The records are
  // agent_probe()'s with the train's counts: the sender's forward record
  // what the report said (arrived -1 when none came back), the receiver's
  // record of each request what it had counted.
  AgentProbe agent_train(int host, int port, int dst, int nic, int src_udp_port, uint64_t probe_id, int length,
                         int attempts);

  // switch_probe(), likewise.
  probe::ObservationRecord agent_switch_probe(int host, int port, int target, const std::string& loopback,
                                        int src_udp_port, uint64_t probe_id, int attempts);

  const FabricIndex& fabric() const { return f_; }

  // Random loss from now on: each crossing of a cable, either way, is lost
  // with probability `p`, drawn from a generator seeded with `seed` (the
  // same seed gives the same losses on every machine).
  void set_loss(double p, uint64_t seed);

  // Telemetry off from now on: switch `device` writes no IOAM record into
  // what enters it on port `port` (-1: on any port), as a Linux router
  // with net.ipv6.conf.IF.ioam6_enabled=0 (or no IOAM namespace) does; it
  // still forwards, and the hop limit still drops.
  void leave_out_records(int device, int port = -1);
  // ICMPv6 errors off from now on: switch `device` answers no switch probe
  // that entered it on `port` (-1: on any), its error going back out of
  // there.
  void answer_no_probes(int device, int port = -1);

 private:
  struct Peer {
    PortRef port;
    bool drops = false;  // this direction does not pass
    double loss = 0;     // this direction's own random loss (a loss fault)
  };
  bool lost_on(const Peer& p);  // this crossing of `p` lost at random
  // Of `n` datagrams crossing `p`, how many get across.
  int survivors(const Peer& p, int n);
  const Peer* peer(PortRef p) const;
  bool writes_record(PortRef in) const;  // IOAM on where `in` enters its switch
  bool answers_at(PortRef in) const;     // ICMPv6 errors go back out of `in`
  // The port `device` sends the five-tuple's datagram out of; invalid when
  // it has no route to `dst`.
  PortRef route(int device, const std::string& src, const std::string& dst, int sport, int dport) const;
  probe::ObservationRecord send(PortRef from, const std::string& src_address, int dst_host, int nic,
                          const std::string& dst_address, int sport, int dport, uint64_t id,
                          probe::ProbeDirection direction);
  std::string address(int host, int nic) const;

  static uint64_t key(int host, int nic) { return uint64_t(host) << 8 | uint64_t(nic & 0xff); }

  const FabricIndex& f_;
  std::vector<std::vector<Peer>> peers_;  // by device, by port index
  FabricRoutes routes_;  // what the fabric's routing converges to on this wiring
  // Switch probes' forwarding (switch_probe):
  std::vector<std::unordered_map<int, std::vector<int>>> links_to_;  // ports toward a neighbour
  std::vector<std::vector<int>> up_;                                 // ToR and agg uplinks
  std::unordered_map<uint64_t, std::string> addresses_;             // host NIC -> bond IPv6
  // By device, then port; a device's own entry (index = panel size) is
  // its every port: IOAM off (leave_out_records), ICMPv6 errors off.
  std::vector<std::vector<bool>> no_record_, no_answer_;
  double loss_ = 0;
  std::mt19937_64 random_;
};

// What verify --lab gathers, with the model standing in for the lab: the
// probe plan's switch probes and then its host rounds for `hosts`, as
// verify --lab's rounds go (probe::ProbeRounds, at most `max_rounds` each
// phase, the loss rounds' trains included), every probe tried up to `attempts` times as
// the agents try it, the receivers' records added at the end.
struct SimulatedRun {
  probe::ObservationSet observations;
  std::int64_t probes = 0;  // probes sent (attempts not counted; a train's report request is its probe)
  std::int64_t train_datagrams = 0;  // the loss rounds' trains' own datagrams
  int rounds = 0;           // host rounds sent
  int loss_rounds = 0;      // loss rounds sent
};
SimulatedRun simulate_verify(FabricModel& model, const std::vector<int>& hosts, const probe::PlanOptions& plan,
                             int attempts, int max_rounds = 8);

}  // namespace hpn::fabricmodel
