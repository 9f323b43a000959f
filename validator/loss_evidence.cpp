#include "validator/loss_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "probe/huge_pages.h"
#include "probe/payload.h"
#include "probe/probe_plan.h"

namespace hpn::validator {

namespace {

// The probe's records, and how they are read.
using probe::HugeVector;
using probe::Observation;
using probe::ObservationIndex;
using probe::ObservationSet;
using probe::ProbeDirection;
using probe::ProbeId;
using probe::Reach;
using probe::ResolvedObservation;
using probe::RoundTrip;
using probe::listener_run_id;
using probe::run_id_of;
using probe::round_trip;
using probe::trace_of;

// A flow: sender, its port, destination address and source port hash alike
// every time, so its probes take one path.
struct FlowKey {
  std::int32_t sender = 0, port = 0, address = 0, source_port = 0;
  friend auto operator<=>(const FlowKey&, const FlowKey&) = default;
};

class EvidenceBuilder {
 public:
  EvidenceBuilder(const FabricIndex& f, const ObservationIndex& index, LossEvidence& e)
      : f_(f), index_(index), obs_(index.observations()), e_(e), listening_(f.blueprint().devices.size(), false) {}

  void run() {
    const ObservationSet& obs = obs_;
    // A run that sent trains measured loss on purpose: its trains alone are
    // the evidence, every datagram of each an attempt over a traced path.
    // The wiring rounds' probes, one to three attempts each, some over
    // paths only learned, add noise to that and nothing it lacks; nor does
    // a train need another record's path (its report request's own trace,
    // or the receiver's record of it, is the train's).
    trains_only_ = std::any_of(obs.begin(), obs.end(), [](const Observation& o) { return o.train > 0; });
    // Sorted vectors rather than maps: a pod's run has over a million
    // records, and a node per record costs more than the records' own
    // evidence (diagnosis_bench).
    for (std::size_t i = 0; i < obs.size(); ++i) {
      const Observation& o = obs[i];
      const ResolvedObservation& r = index_[i];
      const auto index = static_cast<std::uint32_t>(i);
      if (o.src_device.empty()) {
        if (r.dst >= 0) listening_[r.dst] = true;
        if ((o.train > 0) != trains_only_) continue;
        // A run no sender's id matches names no probe of this run.
        const std::optional<std::uint64_t> run = listener_run_id(o.run);
        if (!run) continue;
        heard_.push_back({{*run, o.probe, r.src_address, o.src_udp_port}, o.attempt, index});
      } else if (!trains_only_ && o.direction == ProbeDirection::reverse && o.received) {
        replies_.push_back({{run_id_of(o.run), o.probe, r.dst_address, o.dst_udp_port}, index});
      }
    }
    std::sort(heard_.begin(), heard_.end());
    std::sort(replies_.begin(), replies_.end());
    // The path a flow was seen to take (its five-tuple hashes the same way
    // every time): what a probe of it lost on every attempt crossed. The
    // first forward record of the flow shows it, and the reply to the
    // first of its probes that has one shows the way back.
    HugeVector<Flow> flows;
    for (std::size_t i = 0; i < obs.size() && !trains_only_; ++i) {
      const Observation& o = obs[i];
      if (o.src_device.empty() || o.direction != ProbeDirection::forward || !o.received) continue;
      const ResolvedObservation& r = index_[i];
      const std::uint32_t reply = reply_to({run_id_of(o.run), o.probe, r.src_address, o.src_udp_port});
      flows.push_back({flow_of(r, o), static_cast<std::uint32_t>(i), reply});
    }
    std::stable_sort(flows.begin(), flows.end(), [](const Flow& a, const Flow& b) { return a.key < b.key; });
    for (const Flow& f : flows) {
      if (learned_.empty() || learned_.back().key != f.key) {
        learned_.push_back(f);
      } else if (learned_.back().reply == kNone) {
        learned_.back().reply = f.reply;
      }
    }
    flows = {};
    for (const auto& o : obs) {
      if (o.src_device.empty()) continue;
      if (o.direction == ProbeDirection::forward && (o.train > 0) == trains_only_) forward(o);
      // Switch probes are no evidence of loss: the switch's answer comes
      // back by a path no trace shows, so each loses about twice what its
      // traced half crosses (under the lab's --loss 5 the uplinks they
      // crossed read 10%).
    }
    uncounted_paths();
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  struct Half {
    std::vector<DirectedCable> known;  // kept between probes: one buffer for every trace
    int unseen = 0;
    bool traced = true;  // false: no trace shows it, and it is no evidence
  };

  // A receiver's record of an arrival: its probe, the attempt that arrived,
  // and where the record is among the observations.
  struct Heard {
    ProbeId key;
    int attempt = 1;
    std::uint32_t index = 0;
    friend auto operator<=>(const Heard&, const Heard&) = default;
  };
  struct Reply {
    ProbeId key;
    std::uint32_t index = 0;  // of the sender's reverse record
    friend auto operator<=>(const Reply&, const Reply&) = default;
  };
  struct Flow {
    FlowKey key;
    std::uint32_t forward = 0, reply = kNone;  // the records that show it each way
  };

  // Names not in the plan: forward() leaves such records out, so their
  // flows, keyed -1, are never asked for.
  static FlowKey flow_of(const ResolvedObservation& r, const Observation& o) {
    return {r.src, r.src_port, r.dst_address, o.src_udp_port};
  }

  // The reply to a probe, kNone if none: its last reverse record, as a
  // later record of the same probe replaces an earlier one.
  std::uint32_t reply_to(const ProbeId& key) const {
    auto it = std::upper_bound(replies_.begin(), replies_.end(), key,
                               [](const ProbeId& k, const Reply& r) { return k < r.key; });
    if (it == replies_.begin() || std::prev(it)->key != key) return kNone;
    return std::prev(it)->index;
  }

  // Only traced paths are evidence: a probe no trace speaks for may have
  // been lost to a miswire, a dark cable or a one-way break, which are the
  // diff's own findings, and charging its silence to the planned path
  // names healthy host cables lossy (seen in the lab's fault mixes). With
  // retries most attempts of a lossy direction's probes come back traced.
  void emit(const Half& x, const Half* y, int attempts, int lost) {
    if (attempts <= 0 || !x.traced || (y && !y->traced)) return;
    Transmission t;
    t.first = static_cast<std::uint32_t>(e_.crossings.size());
    e_.crossings.insert(e_.crossings.end(), x.known.begin(), x.known.end());
    if (y) e_.crossings.insert(e_.crossings.end(), y->known.begin(), y->known.end());
    t.count = static_cast<std::uint32_t>(e_.crossings.size()) - t.first;
    t.unseen = x.unseen + (y ? y->unseen : 0);
    t.attempts = attempts;
    t.lost = std::clamp(lost, 0, attempts);
    if (t.count == 0) {
      e_.crossings.resize(t.first);
      return;
    }
    e_.transmissions.push_back(t);
  }

  // The way a record shows from the sender to the destination, and back.
  void trace_there(Half& h, PortRef sender, int dst, const Observation& r) {
    h.unseen += trace_of(f_, sender, r.hops, {dst, index_.rx_port(dst, r)}, h.known);
    h.traced = true;
  }
  void trace_back(Half& h, int src, int dst, const Observation& r) {
    h.unseen += trace_of(f_, {dst, index_.src_port(dst, r)}, r.hops, {src, index_.rx_port(src, r)}, h.known);
    h.traced = true;
  }

  void forward(const Observation& o) {
    const ResolvedObservation& r = index_.of(o);
    const int src = r.src, dst = r.dst;
    if (src < 0 || dst < 0) return;
    const PortRef sender{src, r.src_port};
    if (!sender.valid()) return;
    const ProbeId key{run_id_of(o.run), o.probe, r.src_address, o.src_udp_port};
    // The receiver's records of this probe, by attempt.
    const auto heard = std::equal_range(heard_.begin(), heard_.end(), Heard{key, std::numeric_limits<int>::min(), 0},
                                        [](const Heard& a, const Heard& b) { return a.key < b.key; });
    Half& there = there_;
    Half& back = back_;
    there.known.clear();
    back.known.clear();
    there.unseen = back.unseen = 0;
    there.traced = back.traced = false;
    if (o.received) {
      trace_there(there, sender, dst, o);
    } else if (heard.first != heard.second) {
      // The receiver's record of an arrival: the same trace, its sender's
      // port from the plan. The last record of the probe, as before.
      const auto last = std::max_element(heard.first, heard.second,
                                         [](const Heard& a, const Heard& b) { return a.index < b.index; });
      trace_there(there, sender, dst, obs_[last->index]);
    }
    if (o.train > 0) return train(o, heard.first, heard.second, there);
    if (const std::uint32_t reply = reply_to(key); reply != kNone) trace_back(back, src, dst, obs_[reply]);
    if (!there.traced || !back.traced) {
      const FlowKey flow = flow_of(r, o);
      auto seen = std::lower_bound(learned_.begin(), learned_.end(), flow,
                                   [](const Flow& a, const FlowKey& k) { return a.key < k; });
      if (seen != learned_.end() && seen->key == flow) {
        if (!there.traced) trace_there(there, sender, dst, obs_[seen->forward]);
        if (!back.traced && seen->reply != kNone) trace_back(back, src, dst, obs_[seen->reply]);
      }
    }
    // A half no trace shows is no evidence (emit).
    const int k = std::max(1, o.attempt);
    if (listening_[dst]) {
      // The receiver's records say which attempts arrived: each half on
      // its own. Sorted by attempt, so each distinct one counts once.
      int arrived = 0;
      bool this_one = false;
      for (auto h = heard.first; h != heard.second; ++h) {
        if (h != heard.first && std::prev(h)->attempt == h->attempt) continue;
        arrived += h->attempt <= k ? 1 : 0;
        this_one = this_one || h->attempt == k;
      }
      if (o.received && !this_one) ++arrived;
      arrived = std::min(arrived, k);
      // The way there, from the receiver's records, exactly. The way back
      // is not counted: a reply late past the retry timeout makes the
      // sender try again though nothing was lost, which reads as loss on
      // the reply's path (in the lab under load, 19% lost back against 14%
      // there over the same number of crossings). Every direction is the
      // way there of other probes.
      emit(there, nullptr, k, k - arrived);
      return;
    }
    if (o.received) {
      emit(there, nullptr, 1, 0);
      emit(back, nullptr, 1, 0);
      emit(there, &back, k - 1, k - 1);  // the earlier attempts, lost one way or the other
    } else {
      emit(there, &back, k, k);
    }
  }

  // A train: its datagrams over the path its report request was traced
  // across, as many lost as were sent and not counted. The count is the
  // sender's (what the report said), else the receiver's own record of a
  // request whose report did not make it back; a train no one counted is
  // no evidence.
  template <typename It>
  void train(const Observation& o, It heard_first, It heard_last, Half& there) {
    int arrived = o.arrived;
    if (arrived < 0) {
      for (auto h = heard_first; h != heard_last; ++h) arrived = std::max(arrived, obs_[h->index].arrived);
    }
    if (arrived < 0) {
      if (const ResolvedObservation& r = index_.of(o); r.src >= 0 && r.dst >= 0) uncounted_.push_back(flow_of(r, o));
      return;
    }
    emit(there, nullptr, o.train, o.train - std::min(arrived, o.train));
  }

  // The paths of the trains no one counted: a train goes over a flow
  // already traced (a wiring round's probe or an earlier train), whose
  // first received forward record shows the way. Rare, so one pass over
  // the records for the few flows, and only when there are some.
  void uncounted_paths() {
    if (uncounted_.empty()) return;
    std::sort(uncounted_.begin(), uncounted_.end());
    uncounted_.erase(std::unique(uncounted_.begin(), uncounted_.end()), uncounted_.end());
    std::vector<bool> found(uncounted_.size(), false);
    std::vector<DirectedCable> path;
    for (std::size_t i = 0; i < obs_.size(); ++i) {
      const Observation& o = obs_[i];
      if (o.src_device.empty() || o.direction != ProbeDirection::forward || !o.received) continue;
      const ResolvedObservation& r = index_[i];
      const PortRef sender{r.src, r.src_port};
      if (r.src < 0 || r.dst < 0 || !sender.valid()) continue;
      auto it = std::lower_bound(uncounted_.begin(), uncounted_.end(), flow_of(r, o));
      if (it == uncounted_.end() || *it != flow_of(r, o) || found[it - uncounted_.begin()]) continue;
      found[it - uncounted_.begin()] = true;
      path.clear();
      trace_of(f_, sender, o.hops, {r.dst, index_.rx_port(r.dst, o)}, path);
      e_.uncounted.insert(e_.uncounted.end(), path.begin(), path.end());
    }
    // A flow never traced (a ring train's own source port): its first
    // cable, out of the sender's port, is certain; so is its last when
    // the receiver's NIC has a port on the sender's ToR (a ring train's
    // partner), which the ToR's host route delivers to directly.
    for (std::size_t k = 0; k < uncounted_.size(); ++k) {
      if (found[k]) continue;
      const PortRef sender{uncounted_[k].sender, uncounted_[k].port};
      if (!sender.valid()) continue;
      if (const CableEnd at = f_.cable_at(sender); at.cable >= 0) e_.uncounted.push_back(at.cable * 2 + at.end);
      const DirectedCable last = last_cable_from_tor(sender, uncounted_[k].address);
      if (last >= 0) e_.uncounted.push_back(last);
    }
    std::sort(e_.uncounted.begin(), e_.uncounted.end());
    e_.uncounted.erase(std::unique(e_.uncounted.begin(), e_.uncounted.end()), e_.uncounted.end());
  }

  // The directed cable into the port of the NIC that carries `address`
  // (numbered, FabricIndex::address_number()) from the ToR `sender` is
  // cabled to, or -1 when the NIC has no port there (its way goes up) or
  // the address is not the plan's.
  DirectedCable last_cable_from_tor(PortRef sender, std::int32_t address) const {
    if (address < 0 || address >= f_.addresses()) return -1;
    const auto [host, nic] = f_.address_owner(address);
    const RoundTrip trip = round_trip(f_, sender, host, nic);
    if (trip.reach != Reach::tor || trip.arrival_cable < 0) return -1;
    const int host_end = f_.end_of(trip.arrival_cable, 0).device == host ? 0 : 1;
    return trip.arrival_cable * 2 + (1 - host_end);
  }

  const FabricIndex& f_;
  const ObservationIndex& index_;
  const ObservationSet& obs_;
  LossEvidence& e_;
  bool trains_only_ = false;
  HugeVector<Heard> heard_;    // sorted
  HugeVector<Reply> replies_;  // sorted
  HugeVector<Flow> learned_;   // sorted by key, one per flow
  std::vector<FlowKey> uncounted_;  // the flows of trains no one counted
  std::vector<bool> listening_;  // by device: a receiver's record came from it
  Half there_, back_;
};

}  // namespace

LossEvidence collect_loss_evidence(const FabricIndex& fabric, const ObservationSet& observations) {
  return collect_loss_evidence(fabric, ObservationIndex(fabric, observations));
}

LossEvidence collect_loss_evidence(const FabricIndex& fabric, const ObservationIndex& observations) {
  LossEvidence e;
  EvidenceBuilder(fabric, observations, e).run();
  return e;
}

}  // namespace hpn::validator
