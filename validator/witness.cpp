#include "validator/witness.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "probe/huge_pages.h"
#include "probe/observation_index.h"
#include "probe/payload.h"
#include "probe/probe_plan.h"
#include "probe/two_halves.h"

namespace hpn::validator {
namespace {

// A five-tuple as one number (the protocol is always UDP): splitmix64's
// finaliser over the addresses' numbers and the ports.
std::uint64_t flow_of(std::int32_t src, std::int32_t dst, int sport, int dport) {
  auto mix = [](std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  const std::uint64_t addresses = std::uint64_t{static_cast<std::uint32_t>(src)} << 32 | static_cast<std::uint32_t>(dst);
  const std::uint64_t ports = std::uint64_t{static_cast<std::uint16_t>(sport)} << 16 | static_cast<std::uint16_t>(dport);
  return mix(addresses ^ mix(ports));
}

// A directed cable and a five-tuple crossing it, packed: the directed
// cable (cable * 2 + end) in the top 25 bits, 39 bits of the five-tuple's
// hash below. Plans stay far below 2^24 cables (a default pod has 52,080);
// two of the few thousand five-tuples of one direction share 39 bits with
// a chance below 1e-4.
constexpr int kFlowBits = 39;
std::uint64_t crossing_key(int directed, std::uint64_t flow) {
  return std::uint64_t{static_cast<std::uint32_t>(directed)} << kFlowBits | (flow & ((std::uint64_t{1} << kFlowBits) - 1));
}

// What one half of the records gives beside its Witnesses: every
// five-tuple seen crossing a switch-to-switch cable, and every ToR ->
// aggregation -> ToR passage with its five-tuple, to be counted once each
// over both halves.
struct FlowsSeen {
  std::vector<std::uint64_t> crossings;                        // crossing_key()
  std::vector<std::pair<std::uint64_t, std::uint64_t>> passages;  // (source ToR << 32 | destination ToR, five-tuple)
};

class Collector {
 public:
  Collector(const FabricIndex& f, const probe::ObservationIndex& index, Witnesses& w, FlowsSeen& flows)
      : f_(f), index_(index), w_(w), flows_(flows) {}

  void add(const probe::Observation& o) {
    ++w_.observations;
    const probe::ResolvedObservation& r = index_.of(o);
    flow_ = flow_of(r.src_address, r.dst_address, o.src_udp_port, o.dst_udp_port);
    if (o.src_device.empty()) return add_as_receiver(o, r);
    int src = r.src, dst = r.dst;
    if (src < 0) w_.unknown_devices.insert(std::string(o.src_device));
    if (dst < 0) w_.unknown_devices.insert(std::string(o.dst_device));
    if (src < 0 || dst < 0) return;
    const Blueprint& bp = f_.blueprint();
    if (o.direction == probe::ProbeDirection::expired) return add_expired(o, r);
    w_.probed_hosts.insert(src);
    w_.probed_hosts.insert(dst);
    if (bp.devices[src].pod != bp.devices[dst].pod) w_.inter_pod = true;
    PortRef sender{src, r.src_port};
    // The reply is part of its probe's round trip, counted with it.
    if (o.direction != probe::ProbeDirection::reverse) expect_round_trip(sender, dst, r.dst_address);
    if (!o.received) {
      ++w_.lost;
      return;
    }
    ++w_.received;
    PortRef out = sender;
    TierWalk walk{this};
    const probe::ObservedHop* previous = nullptr;
    int last = -1;
    for (const auto& hop : o.hops) {
      const int device = record(hop);
      walk.step(device);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      if (gap_before(previous, hop, device)) gap(out, in);
      else link(out, in);
      out = {device, f_.port_by_id(device, hop.egress_if)};
      if (in.valid() && out.valid() && bp.devices[device].role == Role::core) {
        ++w_.core_hops[{device, in.port, bp.devices[dst].pod, out.port}];
      }
      previous = &hop;
      last = device;
    }
    const PortRef arrival{dst, r.rx_port};
    if (ends_early(previous, last)) gap(out, arrival);
    else link(out, arrival);
  }

 private:
  // The switches of a trace in order, counting ToR -> aggregation -> ToR
  // passages into Witnesses::tor_to_tor.
  struct TierWalk {
    Collector* c;
    int before = -1, last = -1;
    void step(int device) {
      if (device >= 0 && before >= 0 && last >= 0) {
        const auto& d = c->f_.blueprint().devices;
        if (d[before].role == Role::tor && d[last].role == Role::agg && d[device].role == Role::tor) {
          c->flows_.passages.push_back({std::uint64_t{static_cast<std::uint32_t>(before)} << 32 |
                                            static_cast<std::uint32_t>(device),
                                        c->flow_});
        }
      }
      before = last;
      last = device;
    }
  };

  // The device that wrote `hop` (-1: an ID the plan does not have), which
  // is then alive, and its ingress port one some record names.
  int record(const probe::ObservedHop& hop) {
    const int device = hop.node_id < 0 ? -1 : f_.device_by_node_id(hop.node_id);
    if (device < 0) return device;
    w_.device_answered[device] = true;
    const int port = f_.port_by_id(device, hop.ingress_if);
    auto& ports = w_.recorded_ingress[device];
    if (port >= 0) {
      if (ports.empty()) ports.resize(f_.blueprint().panels[f_.blueprint().devices[device].panel].ports.size());
      ports[port] = true;
    }
    return device;
  }

  // Did switches write nothing between `previous` and `hop` (`device`
  // wrote it)? Hop limits a step apart say no; a first record of a switch
  // that is no ToR says the sender's ToR did not write (a host is cabled
  // to ToRs only).
  bool gap_before(const probe::ObservedHop* previous, const probe::ObservedHop& hop, int device) const {
    if (previous) return previous->hop_limit >= 0 && hop.hop_limit >= 0 && previous->hop_limit - hop.hop_limit > 1;
    return device >= 0 && f_.blueprint().devices[device].role != Role::tor;
  }
  // Did the trace of a probe delivered to a host end before the
  // receiver's ToR wrote (no record at all, or the last of a switch that
  // is no ToR)?
  bool ends_early(const probe::ObservedHop* last_hop, int last) const {
    return !last_hop || (last >= 0 && f_.blueprint().devices[last].role != Role::tor);
  }

  // A probe a switch quoted in an ICMPv6 error: every link from the
  // sender's port to the switch that answered (its last hop); nothing comes
  // back through the fabric with a trace, so only these directions are
  // witnessed, and nothing is expected of any cable when it is lost.
  void add_expired(const probe::Observation& o, const probe::ResolvedObservation& r) {
    w_.probed_hosts.insert(r.src);
    // A switch probe, addressed to the switch (not a hop-limited probe to a host).
    const bool to_switch = r.dst >= 0 && f_.blueprint().devices[r.dst].role != Role::host;
    if (to_switch) ++w_.switch_probes_sent[r.dst];
    if (!o.received) {
      ++w_.lost;
      return;
    }
    ++w_.received;
    ++w_.expired;
    if (to_switch) {
      w_.probed_switches.insert(r.dst);
      w_.device_answered[r.dst] = true;
    }
    PortRef out{r.src, r.src_port};
    const probe::ObservedHop* previous = nullptr;
    int last = -1;
    for (const auto& hop : o.hops) {
      const int device = record(hop);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      // Into the switch addressed, a switch takes its direct cable: no
      // ECMP choice, no five-tuple for an ECMP group's count.
      hashed_ = !to_switch || device != r.dst;
      if (gap_before(previous, hop, device)) gap(out, in);
      else link(out, in);
      hashed_ = true;
      // The switch that answered wrote no egress: the trace ends there.
      if (hop.egress_if < 0) return;
      out = {device, f_.port_by_id(device, hop.egress_if)};
      previous = &hop;
      last = device;
    }
    // A switch probe's trace ends at the switch it was addressed to; one
    // that ends before it crossed switches that wrote nothing, the switch
    // itself among them.
    if (to_switch && last != r.dst) gap(out, {});
  }

  // A probe as its receiver saw it: every link of its path but the first
  // (only the sender knows which port it left from).
  void add_as_receiver(const probe::Observation& o, const probe::ResolvedObservation& r) {
    const int dst = r.dst;
    if (dst < 0) {
      w_.unknown_devices.insert(std::string(o.dst_device));
      return;
    }
    w_.probed_hosts.insert(dst);
    ++w_.received;
    PortRef out;
    TierWalk walk{this};
    const probe::ObservedHop* previous = nullptr;
    int last = -1;
    for (const auto& hop : o.hops) {
      const int device = record(hop);
      walk.step(device);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      // Before the first record: the sender's port is not known, nor so
      // what a gap there would span (the sender's own record tells).
      if (previous) {
        if (gap_before(previous, hop, device)) gap(out, in);
        else link(out, in);
      } else if (!gap_before(nullptr, hop, device)) {
        credit_first_cable(in, r.src_address);
      }
      out = {device, f_.port_by_id(device, hop.egress_if)};
      previous = &hop;
      last = device;
    }
    if (!previous) return;
    const PortRef arrival{dst, r.rx_port};
    if (ends_early(previous, last)) gap(out, arrival);
    else link(out, arrival);
  }

  // The first cable of the receiver's trace, when the plan says whose it is:
  // the first switch's ingress port is planned to a port of the host that
  // owns the probe's source address. A probe whose reply was lost still
  // shows that its sender's cable carries light toward the ToR.
  void credit_first_cable(PortRef first_ingress, std::int32_t src_address) {
    if (!first_ingress.valid()) return;
    PortRef host = f_.far_end(first_ingress);
    if (!host.valid() || f_.blueprint().devices[host.device].role != Role::host) return;
    if (index_.nic_of_address(host.device, src_address) != f_.port(host).nic) return;
    link(host, first_ingress);
  }

  // A probe and its reply cross the sender's cable and the destination's
  // arrival cable, each both ways (probe::round_trip()).
  void expect_round_trip(PortRef sender, int dst, std::int32_t address) {
    const probe::RoundTrip trip = probe::round_trip(f_, sender, dst, index_.nic_of_address(dst, address));
    for (int cable : {trip.sender_cable, trip.arrival_cable}) {
      if (cable < 0) continue;
      for (auto& d : w_.cables[cable].dir) {
        ++d.sent;
        ++d.sent_by_reach[static_cast<int>(trip.reach)];
      }
    }
  }

  void link(PortRef from, PortRef to) {
    if (!from.valid() || !to.valid()) {
      ++w_.unreadable_hops;
      return;
    }
    w_.device_seen[from.device] = true;
    w_.device_seen[to.device] = true;
    CableEnd e = f_.cable_at(from);
    if (e.cable >= 0 && f_.end_of(e.cable, 1 - e.end) == to) {
      ++w_.cables[e.cable].dir[e.end].received;
      const CableKind kind = f_.blueprint().cables[e.cable].kind;
      if (hashed_ && (kind == CableKind::tor_agg || kind == CableKind::agg_core)) {
        flows_.crossings.push_back(crossing_key(e.cable * 2 + e.end, flow_));
      }
    } else {
      ++w_.unplanned[{from, to}];
    }
  }

  // A telemetry gap between the port `from` the trace left by and the
  // port `to` it was next seen entering (invalid: the trace ended).
  // Nothing is witnessed across it. The cable at `from` carried the probe
  // away from it and the cable at `to` into it: each such direction is
  // credited across the gap.
  void gap(PortRef from, PortRef to) {
    const PortRef silent = gap_start(f_, from, to);
    // The switch the plan puts there forwarded the probe, if it wrote nothing.
    if (silent.device >= 0) w_.device_answered[silent.device] = true;
    auto credit = [&](PortRef at, bool away) {
      if (!at.valid()) return;
      const CableEnd e = f_.cable_at(at);
      if (e.cable < 0) return;
      DirectionEvidence& d = w_.cables[e.cable].dir[away ? e.end : 1 - e.end];
      ++d.across_gap;
      if (silent.device >= 0 && (d.silent.device < 0 || silent < d.silent)) d.silent = silent;
    };
    credit(from, true);
    credit(to, false);
    ++w_.gaps[{from, to}];
  }

  const FabricIndex& f_;
  const probe::ObservationIndex& index_;
  Witnesses& w_;
  FlowsSeen& flows_;
  std::uint64_t flow_ = 0;  // the five-tuple of the record being read
  bool hashed_ = true;      // the link being witnessed was an ECMP choice
};

}  // namespace

namespace {

// What `from` witnessed, added to `into`: counts summed, sets joined.
void merge(Witnesses& into, const Witnesses& from) {
  for (std::size_t c = 0; c < into.cables.size(); ++c) {
    for (int d = 0; d < 2; ++d) {
      DirectionEvidence& a = into.cables[c].dir[d];
      const DirectionEvidence& b = from.cables[c].dir[d];
      a.sent += b.sent;
      a.received += b.received;
      for (std::size_t r = 0; r < a.sent_by_reach.size(); ++r) a.sent_by_reach[r] += b.sent_by_reach[r];
      a.across_gap += b.across_gap;
      if (b.silent.device >= 0 && (a.silent.device < 0 || b.silent < a.silent)) a.silent = b.silent;
    }
  }
  for (const auto& [link, n] : from.unplanned) into.unplanned[link] += n;
  for (std::size_t d = 0; d < into.device_seen.size(); ++d) {
    into.device_seen[d] = into.device_seen[d] || from.device_seen[d];
    into.device_answered[d] = into.device_answered[d] || from.device_answered[d];
    auto& ports = into.recorded_ingress[d];
    const auto& more = from.recorded_ingress[d];
    if (ports.empty()) ports = more;
    else for (std::size_t p = 0; p < more.size(); ++p) ports[p] = ports[p] || more[p];
  }
  into.probed_hosts.insert(from.probed_hosts.begin(), from.probed_hosts.end());
  into.probed_switches.insert(from.probed_switches.begin(), from.probed_switches.end());
  for (const auto& [device, n] : from.switch_probes_sent) into.switch_probes_sent[device] += n;
  into.inter_pod = into.inter_pod || from.inter_pod;
  into.observations += from.observations;
  into.received += from.received;
  into.lost += from.lost;
  into.expired += from.expired;
  into.unreadable_hops += from.unreadable_hops;
  into.unknown_devices.insert(from.unknown_devices.begin(), from.unknown_devices.end());
  for (const auto& [key, n] : from.core_hops) into.core_hops[key] += n;
  for (const auto& [gap, n] : from.gaps) into.gaps[gap] += n;
}

// Sorts a half's keys and drops repeats: on that half's own core.
void sort_flows(FlowsSeen& seen) {
  for (auto* keys : {&seen.crossings}) {
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  }
  std::sort(seen.passages.begin(), seen.passages.end());
  seen.passages.erase(std::unique(seen.passages.begin(), seen.passages.end()), seen.passages.end());
}

// Calls `each` once for every distinct key of two sorted, repeat-free
// vectors.
template <typename T, typename Fn>
void each_distinct(const std::vector<T>& a, const std::vector<T>& b, Fn&& each) {
  auto i = a.begin(), j = b.begin();
  while (i != a.end() || j != b.end()) {
    if (j == b.end() || (i != a.end() && *i < *j)) {
      each(*i++);
    } else if (i == a.end() || *j < *i) {
      each(*j++);
    } else {
      each(*i++);
      ++j;
    }
  }
}

// The distinct five-tuples of both halves (each sorted by sort_flows()):
// per directed cable, and per pair of ToRs one passed up and down between.
void count_flows(Witnesses& w, const FlowsSeen (&halves)[2]) {
  each_distinct(halves[0].crossings, halves[1].crossings, [&](std::uint64_t key) {
    const auto directed = static_cast<std::size_t>(key >> kFlowBits);
    ++w.cables[directed / 2].dir[directed % 2].flows;
  });
  // Keys come sorted, a pair of ToRs' together: one map look-up per pair.
  std::uint64_t pair = ~std::uint64_t{0};
  std::int64_t* count = nullptr;
  each_distinct(halves[0].passages, halves[1].passages, [&](const std::pair<std::uint64_t, std::uint64_t>& p) {
    if (p.first != pair) {
      pair = p.first;
      count = &w.tor_to_tor[{static_cast<int>(pair >> 32), static_cast<int>(pair & 0xFFFFFFFFu)}];
    }
    ++*count;
  });
}

}  // namespace

PortRef gap_start(const FabricIndex& f, PortRef from, PortRef to) {
  const Blueprint& bp = f.blueprint();
  auto is_switch = [&](PortRef p) { return p.valid() && bp.devices[p.device].role != Role::host; };
  if (const PortRef first = from.valid() ? f.far_end(from) : PortRef{};
      is_switch(first) && first.device != to.device && first.device != from.device) {
    return first;
  }
  if (const PortRef last = to.valid() ? f.far_end(to) : PortRef{};
      is_switch(last) && last.device != from.device && last.device != to.device) {
    return {last.device, -1};
  }
  return {};
}

Witnesses collect_witnesses(const FabricIndex& fabric, const probe::ObservationSet& obs) {
  auto empty = [&] {
    Witnesses w;
    w.cables.resize(fabric.blueprint().cables.size());
    w.device_seen.assign(fabric.blueprint().devices.size(), false);
    w.device_answered.assign(fabric.blueprint().devices.size(), false);
    w.recorded_ingress.resize(fabric.blueprint().devices.size());
    return w;
  };
  Witnesses w = empty();
  const probe::ObservationIndex index(fabric, obs);
  // A probe the sender saw answered is already witnessed end to end: the
  // receiver's own record of it would count its links twice.
  // A probe is its run, number and five-tuple (senders of one run may
  // reuse numbers); the run is its id as a listener writes it
  // (probe::listener_run_id). A sorted vector: a set's node per probe
  // cost more than the rest of the witnesses at pod scale.
  auto answered_in = [&](probe::HugeVector<probe::ProbeId>& out, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const probe::Observation& o = obs[i];
      if (!o.src_device.empty() && o.direction == probe::ProbeDirection::forward && o.received) {
        out.push_back({probe::run_id_of(o.run), o.probe, index[i].src_address, o.src_udp_port});
      }
    }
    std::sort(out.begin(), out.end());
  };
  // Each half found and sorted on a core of its own, then merged.
  probe::HugeVector<probe::ProbeId> halves[2];
  probe::in_two_halves(obs.size(), [&](int h, std::size_t first, std::size_t last) {
    answered_in(halves[h], first, last);
  });
  probe::HugeVector<probe::ProbeId> answered(halves[0].size() + halves[1].size());
  std::merge(halves[0].begin(), halves[0].end(), halves[1].begin(), halves[1].end(), answered.begin());
  halves[0] = {};
  halves[1] = {};
  FlowsSeen flows[2];
  auto collect = [&](Witnesses& into, FlowsSeen& seen, std::size_t first, std::size_t last) {
    Collector c(fabric, index, into, seen);
    for (std::size_t i = first; i < last; ++i) {
      const probe::Observation& o = obs[i];
      if (o.src_device.empty()) {
        const std::optional<uint64_t> run = probe::listener_run_id(o.run);
        if (run && std::binary_search(answered.begin(), answered.end(),
                                      probe::ProbeId{*run, o.probe, index[i].src_address, o.src_udp_port})) {
          continue;
        }
      }
      c.add(o);
    }
    sort_flows(seen);
  };
  // A pod's million and more records in two halves, each on a core of its
  // own into witnesses of its own, then added up: every witness is a count
  // or a set, so the sum is the same in any order.
  Witnesses second = empty();
  probe::in_two_halves(obs.size(), [&](int h, std::size_t first, std::size_t last) {
    collect(h == 0 ? w : second, flows[h], first, last);
  });
  merge(w, second);
  count_flows(w, flows);
  w.loss = collect_loss_evidence(fabric, index);
  return w;
}

}  // namespace hpn::validator
