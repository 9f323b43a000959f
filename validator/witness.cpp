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

class Collector {
 public:
  Collector(const FabricIndex& f, const probe::ObservationIndex& index, Witnesses& w) : f_(f), index_(index), w_(w) {}

  void add(const probe::Observation& o) {
    ++w_.observations;
    const probe::ResolvedObservation& r = index_.of(o);
    if (o.src_device.empty()) return add_as_receiver(o, r);
    int src = r.src, dst = r.dst;
    if (src < 0) w_.unknown_devices.insert(std::string(o.src_device));
    if (dst < 0) w_.unknown_devices.insert(std::string(o.dst_device));
    if (src < 0 || dst < 0) return;
    const Blueprint& bp = f_.blueprint();
    if (o.direction == "expired") return add_expired(o, r);
    w_.probed_hosts.insert(src);
    w_.probed_hosts.insert(dst);
    if (bp.devices[src].pod != bp.devices[dst].pod) w_.inter_pod = true;
    PortRef sender{src, r.src_port};
    // The reply is part of its probe's round trip, counted with it.
    if (o.direction != "reverse") expect_round_trip(sender, dst, r.dst_address);
    if (!o.received) {
      ++w_.lost;
      return;
    }
    ++w_.received;
    PortRef out = sender;
    TierWalk walk{this};
    for (const auto& hop : o.hops) {
      int device = hop.node_id < 0 ? -1 : f_.device_by_node_id(hop.node_id);
      walk.step(device);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      link(out, in);
      out = {device, f_.port_by_id(device, hop.egress_if)};
      if (in.valid() && out.valid() && bp.devices[device].role == Role::core) {
        ++w_.core_hops[{device, in.port, bp.devices[dst].pod, out.port}];
      }
    }
    link(out, {dst, r.rx_port});
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
          ++c->w_.tor_to_tor[{before, device}];
        }
      }
      before = last;
      last = device;
    }
  };
  // A probe a switch quoted in an ICMPv6 error: every link from the
  // sender's port to the switch that answered (its last hop); nothing comes
  // back through the fabric with a trace, so only these directions are
  // witnessed, and nothing is expected of any cable when it is lost.
  void add_expired(const probe::Observation& o, const probe::ResolvedObservation& r) {
    w_.probed_hosts.insert(r.src);
    if (!o.received) {
      ++w_.lost;
      return;
    }
    ++w_.received;
    ++w_.expired;
    if (r.dst >= 0 && f_.blueprint().devices[r.dst].role != Role::host) w_.probed_switches.insert(r.dst);
    PortRef out{r.src, r.src_port};
    for (const auto& hop : o.hops) {
      int device = hop.node_id < 0 ? -1 : f_.device_by_node_id(hop.node_id);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      link(out, in);
      // The switch that answered wrote no egress: the trace ends there.
      if (hop.egress_if < 0) return;
      out = {device, f_.port_by_id(device, hop.egress_if)};
    }
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
    bool first = true;
    TierWalk walk{this};
    for (const auto& hop : o.hops) {
      int device = hop.node_id < 0 ? -1 : f_.device_by_node_id(hop.node_id);
      walk.step(device);
      PortRef in{device, f_.port_by_id(device, hop.ingress_if)};
      if (!first) link(out, in);
      if (first) credit_first_cable(in, r.src_address);
      first = false;
      out = {device, f_.port_by_id(device, hop.egress_if)};
    }
    if (!first) link(out, {dst, r.rx_port});
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
    } else {
      ++w_.unplanned[{from, to}];
    }
  }

  const FabricIndex& f_;
  const probe::ObservationIndex& index_;
  Witnesses& w_;
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
    }
  }
  for (const auto& [link, n] : from.unplanned) into.unplanned[link] += n;
  for (std::size_t d = 0; d < into.device_seen.size(); ++d) into.device_seen[d] = into.device_seen[d] || from.device_seen[d];
  into.probed_hosts.insert(from.probed_hosts.begin(), from.probed_hosts.end());
  into.probed_switches.insert(from.probed_switches.begin(), from.probed_switches.end());
  into.inter_pod = into.inter_pod || from.inter_pod;
  into.observations += from.observations;
  into.received += from.received;
  into.lost += from.lost;
  into.expired += from.expired;
  into.unreadable_hops += from.unreadable_hops;
  into.unknown_devices.insert(from.unknown_devices.begin(), from.unknown_devices.end());
  for (const auto& [key, n] : from.core_hops) into.core_hops[key] += n;
  for (const auto& [key, n] : from.tor_to_tor) into.tor_to_tor[key] += n;
}

}  // namespace

Witnesses collect_witnesses(const FabricIndex& fabric, const probe::ObservationSet& obs) {
  auto empty = [&] {
    Witnesses w;
    w.cables.resize(fabric.blueprint().cables.size());
    w.device_seen.assign(fabric.blueprint().devices.size(), false);
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
      if (!o.src_device.empty() && o.direction == "forward" && o.received) {
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
  auto collect = [&](Witnesses& into, std::size_t first, std::size_t last) {
    Collector c(fabric, index, into);
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
  };
  // A pod's million and more records in two halves, each on a core of its
  // own into witnesses of its own, then added up: every witness is a count
  // or a set, so the sum is the same in any order.
  Witnesses second = empty();
  probe::in_two_halves(obs.size(), [&](int h, std::size_t first, std::size_t last) {
    collect(h == 0 ? w : second, first, last);
  });
  merge(w, second);
  w.loss = probe::collect_loss_evidence(fabric, index);
  return w;
}

}  // namespace hpn::validator
