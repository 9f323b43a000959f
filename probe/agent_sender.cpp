#include "probe/agent_sender.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "probe/agent_trace.h"
#include "probe/plan_dir.h"

namespace hpn::probe {

static_assert(kMaxRetries == kMaxSenderRetries, "probe plan holds its senders to probe send's bound");

namespace {

// How long one wait may last, so stop() is polled even when nothing is due.
constexpr std::int64_t kMaxWait = 200 * kNsPerMs;

std::int64_t send_interval_ns(const SenderOptions& o) { return (kNsPerSecond + o.rate - 1) / o.rate; }

struct PlannedProbe {
  std::size_t port = 0, destination = 0;
  std::uint16_t source_port = 0;
  std::int64_t entry = -1;
  std::uint32_t train = 0;
};

// The (port, source port) pairs the run sends from: one socket each.
std::vector<std::pair<std::size_t, std::uint16_t>> sockets_of(const SenderOptions& o) {
  std::vector<std::pair<std::size_t, std::uint16_t>> out;
  if (!o.planned.empty()) {
    // A reply comes back to the probe's source address by whichever port
    // carries it: on a bond's members (or with --no-bond, every member has
    // the bond's address) it may arrive on the other member, and must find
    // a socket of its source port there too.
    for (const auto& p : o.planned) {
      for (std::size_t q = 0; q < o.ports.size(); ++q) {
        if (q == p.port || o.ports[q].address == o.ports[p.port].address) out.push_back({q, p.source_port});
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  const unsigned used = std::min(o.source_ports.size(), o.probes);  // only the source ports the probes use
  for (std::size_t port = 0; port < o.ports.size(); ++port) {
    for (unsigned i = 0; i < used; ++i) out.push_back({port, static_cast<std::uint16_t>(o.source_ports.first + i)});
  }
  return out;
}

// Round robin over ports and destinations, one probe each per round, so a
// run cut short has touched every pair; each pair's probes step through the
// source ports.
std::vector<PlannedProbe> plan(const SenderOptions& o) {
  std::vector<PlannedProbe> out;
  out.reserve(planned_probes(o));
  if (!o.planned.empty()) {
    // Round robin over the plan's entries, each entry's probes in order:
    // consecutive probes go to different destinations, as below.
    std::vector<std::vector<PlannedProbe>> by_entry;
    std::map<std::int64_t, std::size_t> slot;
    for (const auto& p : o.planned) {
      auto [it, fresh] = slot.try_emplace(p.entry, by_entry.size());
      if (fresh) by_entry.emplace_back();
      by_entry[it->second].push_back({p.port, p.destination, p.source_port, p.entry, p.train});
    }
    for (std::size_t i = 0; out.size() < o.planned.size(); ++i) {
      for (const auto& probes : by_entry) {
        if (i < probes.size()) out.push_back(probes[i]);
      }
    }
    return out;
  }
  for (unsigned i = 0; i < o.probes; ++i) {
    for (std::size_t p = 0; p < o.ports.size(); ++p) {
      for (std::size_t d = 0; d < o.destinations.size(); ++d) {
        out.push_back({p, d, static_cast<std::uint16_t>(o.source_ports.first + i % o.source_ports.size()), -1, 0});
      }
    }
  }
  return out;
}

enum class State : std::uint8_t { queued, waiting, answered, lost };

struct ProbeState {
  State state = State::queued;
  std::vector<std::int64_t> sent_ns;  // realtime, one per attempt made (a train's: of its report request)
  std::uint32_t train_sent = 0;       // a train's datagrams handed to the network so far
  std::uint32_t train_failed = 0;     // of them, the ones it would not take
  std::uint32_t arrived = kTrainNotCounted;  // what its report said
  // A train whose first count came short: its forward observation, and
  // when its recount request left (realtime, echoed by the listener).
  std::size_t forward_at = kNoObservation;
  std::int64_t recount_sent_ns = 0;
  static constexpr std::size_t kNoObservation = static_cast<std::size_t>(-1);
};

struct Pending {
  std::uint64_t id = 0;
  std::size_t attempt = 0;
  std::int64_t expires = 0;  // monotonic
};

class Run {
 public:
  Run(const SenderOptions& o, DatagramNetwork& network, Clock& clock)
      : o_(o), network_(network), clock_(clock), run_id_(run_id_of(o.run)), plan_(plan(o)), probes_(plan_.size()) {
    result_.counts.probes = plan_.size();
    if (!o.planned.empty()) {
      for (std::uint64_t i = 0; i < plan_.size(); ++i) by_wire_id_.emplace(wire_id(i), i);
    }
  }

  SenderResult execute(const std::function<bool()>& stop);

 private:
  void expire(std::int64_t now);
  bool settle_answer(ProbeState& s);
  void send_next(std::int64_t now);
  void send_attempt(std::uint64_t id, std::int64_t now);
  void send_train_datagram(std::uint64_t id);
  // Something to send at `now`; and anything still to send, now or later
  // (a report request waiting out kReportGraceNs).
  bool can_send(std::int64_t now) const {
    return !retry_.empty() || !trains_.empty() || next_fresh_ < plan_.size() ||
           (!reports_due_.empty() && reports_due_.front().first <= now) ||
           (!recounts_due_.empty() && recounts_due_.front().first <= now);
  }
  bool to_send() const { return can_send(std::numeric_limits<std::int64_t>::max()); }
  void handle(const Datagram& d);
  void send_recount(std::uint64_t id, std::int64_t now);
  // Probe `id`'s header for `attempt`, stamped now; a datagram addressed as
  // every datagram of it is (its port and source port, its destination).
  ProbeHeader header_of(std::uint64_t id, std::size_t attempt) const;
  Datagram addressed(std::uint64_t id) const;
  bool recounted(ProbeState& s, const ProbeHeader& h, const TrainReport& report);
  void handle_icmp(const Datagram& d);
  ObservationRecord base(std::uint64_t id, ProbeDirection direction) const;
  // A train's counts on its forward record: those sent, and what the report said.
  void note_train(ObservationRecord& o, const ProbeState& s) const {
    if (s.train_sent == 0) return;
    o.train = static_cast<std::int32_t>(s.train_sent - s.train_failed);
    o.arrived = s.arrived == kTrainNotCounted ? -1 : static_cast<std::int32_t>(std::min(s.arrived, s.train_sent));
  }
  void finish();

  // A planned probe's number on the wire and in its observations: its
  // entry and source port, which no other probe of the verify shares (a
  // plan's rounds are separate runs of the sender, each numbering from 0;
  // a listener keeps a train's tally by number, and a loss round repeats a
  // train from the same source port). Unplanned: its place in the run.
  std::uint64_t wire_id(std::uint64_t i) const {
    const PlannedProbe& p = plan_[i];
    if (o_.planned.empty() || p.entry < 0) return i;
    return static_cast<std::uint64_t>(p.entry) << 16 | p.source_port;
  }
  std::optional<std::uint64_t> index_of(std::uint64_t wire) const {
    if (o_.planned.empty()) return wire < plan_.size() ? std::optional<std::uint64_t>(wire) : std::nullopt;
    auto it = by_wire_id_.find(wire);
    return it == by_wire_id_.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
  }

  const SenderOptions& o_;
  DatagramNetwork& network_;
  Clock& clock_;
  const std::uint64_t run_id_;
  std::unordered_map<std::uint64_t, std::uint64_t> by_wire_id_;
  const std::vector<PlannedProbe> plan_;
  std::vector<ProbeState> probes_;
  std::size_t next_fresh_ = 0;
  std::deque<std::uint64_t> retry_;   // attempts due: retries, and trains' first report requests
  std::deque<std::uint64_t> trains_;  // trains under way (at most kTrainWindow), their datagrams in turn
  std::deque<std::pair<std::int64_t, std::uint64_t>> reports_due_;  // sent trains: when their report request is due
  std::deque<std::pair<std::int64_t, std::uint64_t>> recounts_due_;  // trains counted short: when to ask again
  std::deque<std::pair<std::int64_t, std::uint64_t>> recounts_out_;  // asked again: until when the answer counts
  std::deque<Pending> pending_;  // send order = expiry order: the timeout is one for all
  std::uint64_t settled_ = 0;    // answered or lost
  std::int64_t deadline_ = 0;    // when the run stops waiting, once it has nothing to send
  SenderResult result_;
};

SenderResult Run::execute(const std::function<bool()>& stop) {
  const std::int64_t start = clock_.monotonic_ns();
  deadline_ = start + sender_budget_ns(o_);
  const std::int64_t interval = send_interval_ns(o_);
  std::int64_t next_send = start;
  while (true) {
    if (stop()) {
      result_.interrupted = true;
      break;
    }
    std::int64_t now = clock_.monotonic_ns();
    expire(now);
    // Past the budget a run stops waiting, not sending: what it still has
    // to send is its own pace falling behind (a host sharing its CPU), not
    // the network's doing, and a train cut off before its report is lost
    // evidence.
    // A recount asked is waited for (its own timeout), past the budget too.
    const bool recounting = !recounts_due_.empty() || !recounts_out_.empty();
    if ((settled_ == plan_.size() && !recounting) || (now >= deadline_ && !to_send() && recounts_out_.empty())) break;
    if (can_send(now) && now >= next_send) {
      send_next(now);
      // Never a burst to catch up after a slow iteration.
      next_send = std::max(next_send + interval, now);
      // Sent past the budget: that datagram still gets its timeout.
      if (now >= deadline_) deadline_ = now + o_.timeout_ns;
    }
    // Then wait for a reply until the next thing is due; a wait of zero
    // still takes one queued reply, so replies are read while sending fast.
    std::int64_t until = std::max(deadline_, now);
    if (can_send(now)) {
      until = std::min(until, next_send);
    } else if (!reports_due_.empty() || !recounts_due_.empty()) {
      // Past the budget too: the run does not end before it is sent.
      std::int64_t due = std::numeric_limits<std::int64_t>::max();
      if (!reports_due_.empty()) due = reports_due_.front().first;
      if (!recounts_due_.empty()) due = std::min(due, recounts_due_.front().first);
      until = std::max(next_send, due);
    }
    if (!pending_.empty()) until = std::min(until, pending_.front().expires);
    if (!recounts_out_.empty()) until = std::min(until, recounts_out_.front().first);
    if (auto d = network_.receive(std::clamp<std::int64_t>(until - now, 0, kMaxWait))) handle(*d);
  }
  finish();
  return std::move(result_);
}

// A reply (or a switch's error) to a probe whose flow and attempt checked
// out: a duplicate if it was answered already (false), else answered, late
// when it had been given up.
bool Run::settle_answer(ProbeState& s) {
  auto& c = result_.counts;
  if (s.state == State::answered) {
    ++c.duplicates;
    return false;
  }
  if (s.state == State::lost) {
    ++c.late;
  } else {
    ++settled_;
  }
  s.state = State::answered;
  ++c.answered;
  return true;
}

void Run::expire(std::int64_t now) {
  // A recount unanswered leaves the first count standing.
  while (!recounts_out_.empty() && recounts_out_.front().first <= now) recounts_out_.pop_front();
  while (!pending_.empty() && pending_.front().expires <= now) {
    const Pending p = pending_.front();
    pending_.pop_front();
    ProbeState& s = probes_[p.id];
    // Only the latest attempt of a probe still waiting decides.
    if (s.state != State::waiting || p.attempt + 1 != s.sent_ns.size()) continue;
    if (s.sent_ns.size() <= o_.retries) {
      s.state = State::queued;
      retry_.push_back(p.id);
    } else {
      s.state = State::lost;
      ++settled_;
    }
  }
}

// One datagram per call, at the paced rate: a retry or a train's report
// request when one is due, else the next datagram of the trains under way
// (starting the plan's next trains while there is room), else the plan's
// next probe.
void Run::send_next(std::int64_t now) {
  if (!recounts_due_.empty() && recounts_due_.front().first <= now) {
    const std::uint64_t id = recounts_due_.front().second;
    recounts_due_.pop_front();
    return send_recount(id, now);
  }
  while (!reports_due_.empty() && reports_due_.front().first <= now) {
    retry_.push_back(reports_due_.front().second);
    reports_due_.pop_front();
  }
  while (!retry_.empty()) {
    const std::uint64_t id = retry_.front();
    retry_.pop_front();
    // A late reply may have answered it since it was queued.
    if (probes_[id].state != State::queued) continue;
    if (!probes_[id].sent_ns.empty()) ++result_.counts.retries;
    return send_attempt(id, now);
  }
  while (trains_.size() < kTrainWindow && next_fresh_ < plan_.size() && plan_[next_fresh_].train > 0) {
    trains_.push_back(next_fresh_++);
  }
  if (!trains_.empty()) {
    const std::uint64_t id = trains_.front();
    trains_.pop_front();
    send_train_datagram(id);
    if (probes_[id].train_sent < plan_[id].train) {
      trains_.push_back(id);
    } else {
      reports_due_.emplace_back(now + kReportGraceNs, id);
    }
    return;
  }
  if (next_fresh_ < plan_.size()) send_attempt(next_fresh_++, now);
}

ProbeHeader Run::header_of(std::uint64_t id, std::size_t attempt) const {
  ProbeHeader header;
  header.run_id = run_id_;
  header.probe_id = wire_id(id);
  header.attempt = static_cast<std::uint8_t>(attempt);
  header.sent_ns = clock_.realtime_ns();
  return header;
}

Datagram Run::addressed(std::uint64_t id) const {
  const PlannedProbe& p = plan_[id];
  Datagram d;
  d.interface = o_.ports[p.port].interface;
  d.local = {o_.ports[p.port].address, p.source_port};
  d.remote = {o_.destinations[p.destination].address, o_.udp_port};
  return d;
}

void Run::send_train_datagram(std::uint64_t id) {
  const PlannedProbe& p = plan_[id];
  ProbeState& s = probes_[id];
  TrainDatagram t;
  t.probe = header_of(id, 0);
  t.seq = s.train_sent++;
  t.length = p.train;
  Datagram d = addressed(id);
  d.payload = encode_train(t).value();  // the plan's lengths were checked
  // A datagram the kernel would not take never crossed a cable: the report
  // counts what arrived of those sent.
  if (network_.send(d)) {
    ++result_.counts.sent;
    ++result_.counts.train_datagrams;
  } else {
    ++s.train_failed;
    ++result_.counts.send_errors;
  }
}

void Run::send_attempt(std::uint64_t id, std::int64_t now) {
  const PlannedProbe& p = plan_[id];
  ProbeState& s = probes_[id];
  const ProbeHeader header = header_of(id, s.sent_ns.size());
  Datagram d = addressed(id);
  d.hop_limit = o_.destinations[p.destination].hop_limit;
  if (p.train > 0) {
    // The report request: seq = length, after every datagram of the train.
    TrainDatagram request{header, p.train, p.train};
    d.payload = encode_train(request).value();
  } else {
    d.payload = encode_probe(header);
  }
  // A failed send still counts as an attempt: it times out and is retried
  // like a probe lost on the wire (an interface down is a finding, not a crash).
  if (network_.send(d)) {
    ++result_.counts.sent;
  } else {
    ++result_.counts.send_errors;
  }
  s.sent_ns.push_back(header.sent_ns);
  s.state = State::waiting;
  pending_.push_back({id, s.sent_ns.size() - 1, now + o_.timeout_ns});
  // Whatever the pace, an attempt sent has its retries' time after it: a
  // host behind its pace sent its last trains' report requests just short
  // of the budget, and the budget ran out before their retries (in the lab
  // under 2% background, 15 of 192 trains with no count, two of them the
  // only ones across a direction losing 30%).
  const auto left = static_cast<std::int64_t>(o_.retries + 1 - s.sent_ns.size());
  deadline_ = std::max(deadline_, now + (left + 1) * (o_.timeout_ns + send_interval_ns(o_)));
}

// The report request again, as the attempt that was answered: the
// listener answers with what has arrived by now.
void Run::send_recount(std::uint64_t id, std::int64_t now) {
  const PlannedProbe& p = plan_[id];
  ProbeState& s = probes_[id];
  const ProbeHeader header = header_of(id, s.sent_ns.size() - 1);
  Datagram d = addressed(id);
  d.payload = encode_train(TrainDatagram{header, p.train, p.train}).value();
  ++result_.counts.recounts;
  if (!network_.send(d)) {
    ++result_.counts.send_errors;
    return;
  }
  ++result_.counts.sent;
  s.recount_sent_ns = header.sent_ns;
  recounts_out_.emplace_back(now + o_.timeout_ns, id);
  if (now >= deadline_) deadline_ = now + o_.timeout_ns;
}

// When `report` answers the train's recount request: the later count on its
// forward observation (the tally only grows; a count the listener no longer
// vouches for voids the first too, as its socket dropped datagrams
// meanwhile), and true.
bool Run::recounted(ProbeState& s, const ProbeHeader& h, const TrainReport& report) {
  // Set only once the forward observation is kept (forward_at).
  if (s.recount_sent_ns == 0 || h.sent_ns != s.recount_sent_ns) return false;
  s.recount_sent_ns = 0;
  ObservationRecord& f = result_.observations[s.forward_at];
  if (report.arrived == kTrainNotCounted) {
    f.arrived = -1;
  } else if (f.arrived >= 0) {
    const auto later = static_cast<std::int32_t>(std::min(report.arrived, s.train_sent));
    if (later > f.arrived) {
      result_.counts.stragglers += static_cast<std::uint64_t>(later - f.arrived);
      f.arrived = later;
    }
  }
  return true;
}

ObservationRecord Run::base(std::uint64_t id, ProbeDirection direction) const {
  const PlannedProbe& p = plan_[id];
  ObservationRecord ob;
  ob.run = o_.run;
  ob.probe = wire_id(id);
  ob.direction = direction;
  ob.src_device = o_.device;
  ob.src_port = o_.ports[p.port].port;
  ob.src_address = o_.ports[p.port].address;
  ob.src_udp_port = p.source_port;
  ob.entry = p.entry;
  ob.dst_device = o_.destinations[p.destination].device;
  ob.dst_address = o_.destinations[p.destination].address;
  ob.dst_udp_port = o_.udp_port;
  ob.sent_ns = probes_[id].sent_ns.empty() ? 0 : probes_[id].sent_ns.front();
  return ob;
}

void Run::handle(const Datagram& d) {
  auto& c = result_.counts;
  if (d.icmp) return handle_icmp(d);
  const PayloadClass kind = classify_payload(d.payload);
  if (kind != PayloadClass::reply && kind != PayloadClass::train_report) {
    ++c.foreign;
    return;
  }
  // A train's report is a reply with the train's counts.
  std::optional<TrainReport> report;
  std::optional<ProbeReply> reply;
  if (kind == PayloadClass::train_report) {
    if (auto decoded = decode_train_report(d.payload)) {
      report = std::move(decoded.value());
      reply = report->reply;
    }
  } else if (auto decoded = decode_reply(d.payload)) {
    reply = std::move(decoded.value());
  }
  if (!reply) {
    ++c.foreign;
    return;
  }
  const ProbeHeader& h = reply->probe;
  if (h.run_id != run_id_) {
    ++c.other_run;
    return;
  }
  // Only the destination probed may answer, only to the socket the probe
  // left from, and only an attempt that was made.
  const std::optional<std::uint64_t> id = index_of(h.probe_id);
  if (!id) {
    ++c.unexpected;
    return;
  }
  const PlannedProbe& p = plan_[*id];
  ProbeState& s = probes_[*id];
  if (d.remote != Endpoint{o_.destinations[p.destination].address, o_.udp_port} || d.local.port != p.source_port ||
      h.attempt >= s.sent_ns.size() || (p.train > 0) != report.has_value() ||
      (report && report->length != p.train)) {
    ++c.unexpected;
    return;
  }
  if (report && recounted(s, h, *report)) return;
  if (report) s.arrived = report->arrived;
  if (!settle_answer(s)) return;

  auto forward_hops = observed_hops(reply->forward_trace, o_.ioam_namespace);
  if (forward_hops) {
    ObservationRecord f = base(*id, ProbeDirection::forward);
    f.sent_ns = s.sent_ns[h.attempt];
    f.attempt = h.attempt + 1;
    f.received = true;
    f.rx_port = reply->port;
    f.hops = std::move(forward_hops.value());
    f.received_ns = reply->probe_received_ns;
    note_train(f, s);
    if (f.train > 0 && f.arrived >= 0 && f.arrived < f.train) {
      s.forward_at = result_.observations.size();
      recounts_due_.emplace_back(clock_.monotonic_ns() + kRecountNs, *id);
    }
    result_.observations.push_back(std::move(f));
  } else {
    ++c.bad_traces;
  }
  auto reverse_hops = observed_hops(d.hop_by_hop, o_.ioam_namespace);
  if (reverse_hops) {
    const ObservationRecord f = base(*id, ProbeDirection::reverse);
    ObservationRecord r;
    r.run = f.run;
    r.probe = f.probe;
    r.entry = f.entry;
    r.attempt = h.attempt + 1;
    r.direction = f.direction;
    r.src_device = f.dst_device;
    r.src_port = reply->port;  // the reply left by the port its probe came in on
    r.src_address = d.remote.address;
    r.src_udp_port = d.remote.port;
    r.dst_device = f.src_device;
    r.dst_address = d.local.address;
    r.dst_udp_port = d.local.port;
    r.received = true;
    r.rx_port = o_.port_names.port_of(d.interface);
    r.hops = std::move(reverse_hops.value());
    r.sent_ns = reply->reply_sent_ns;
    r.received_ns = d.realtime_ns;
    result_.observations.push_back(std::move(r));
  } else {
    ++c.bad_traces;
  }
}

// A switch's ICMPv6 error about one of our probes: the probe as it reached
// that switch, its trace filled up to and including the switch itself.
void Run::handle_icmp(const Datagram& d) {
  auto& c = result_.counts;
  auto probe = decode_probe(d.payload);
  if (!probe) {
    ++c.foreign;
    return;
  }
  if (probe->run_id != run_id_) {
    ++c.other_run;
    return;
  }
  const std::optional<std::uint64_t> id = index_of(probe->probe_id);
  if (!id) {
    ++c.unexpected;
    return;
  }
  const PlannedProbe& p = plan_[*id];
  ProbeState& s = probes_[*id];
  // The quoted probe must be the one we sent: its flow, and an attempt made.
  if (d.remote != Endpoint{o_.ports[p.port].address, p.source_port} ||
      d.local != Endpoint{o_.destinations[p.destination].address, o_.udp_port} || probe->attempt >= s.sent_ns.size()) {
    ++c.unexpected;
    return;
  }
  if (!settle_answer(s)) return;
  ++c.icmp_answers;
  auto hops = observed_hops(d.hop_by_hop, o_.ioam_namespace);
  if (!hops) {
    ++c.bad_traces;
    return;
  }
  ObservationRecord e = base(*id, ProbeDirection::expired);
  e.sent_ns = s.sent_ns[probe->attempt];
  e.attempt = probe->attempt + 1;
  e.received = true;
  e.reporter = d.icmp->reporter;
  e.icmp_type = d.icmp->type;
  e.hop_limit = o_.destinations[p.destination].hop_limit;
  e.hops = std::move(hops.value());
  e.received_ns = d.realtime_ns;
  result_.observations.push_back(std::move(e));
}

void Run::finish() {
  auto& c = result_.counts;
  for (std::uint64_t id = 0; id < probes_.size(); ++id) {
    const ProbeState& s = probes_[id];
    const bool tried = !s.sent_ns.empty();
    switch (s.state) {
      case State::answered: continue;
      case State::lost: break;
      // Past the budget every attempt made has had its full timeout; on an
      // interrupt, silence so far proves nothing.
      case State::waiting:
      case State::queued:
        if (!tried) {
          ++c.unsent;
          continue;
        }
        if (result_.interrupted) {
          ++c.abandoned;
          continue;
        }
        break;
    }
    ++c.lost;
    const bool limited = o_.destinations[plan_[id].destination].hop_limit > 0;
    ObservationRecord lost = base(id, limited ? ProbeDirection::expired : ProbeDirection::forward);
    lost.attempt = static_cast<int>(s.sent_ns.size());  // every attempt made went unanswered
    note_train(lost, s);
    if (limited) lost.hop_limit = o_.destinations[plan_[id].destination].hop_limit;
    result_.observations.push_back(std::move(lost));
  }
  std::stable_sort(result_.observations.begin(), result_.observations.end(),
                   [](const ObservationRecord& a, const ObservationRecord& b) {
                     if (a.probe != b.probe) return a.probe < b.probe;
                     return a.direction == ProbeDirection::forward && b.direction != ProbeDirection::forward;
                   });
}

}  // namespace

std::uint64_t planned_probes(const SenderOptions& o) {
  if (!o.planned.empty()) return o.planned.size();
  return static_cast<std::uint64_t>(o.probes) * o.ports.size() * o.destinations.size();
}

std::uint64_t planned_train_datagrams(const SenderOptions& o) {
  std::uint64_t n = 0;
  for (const auto& p : o.planned) n += p.train;
  return n;
}

hpn::Status check_sender_options(const SenderOptions& o) {
  if (o.run.empty()) return Error{"the run identifier is empty"};
  if (o.device.empty()) return Error{"this host's device name is empty (--device-name)"};
  if (o.ports.empty()) return Error{"no port to send from"};
  if (o.destinations.empty()) return Error{"no destination to probe"};
  for (std::size_t i = 0; i < o.ports.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (o.ports[i].interface == o.ports[j].interface) {
        return Error{fmt::format("interface {} is listed twice in --from", o.ports[i].interface)};
      }
    }
  }
  for (const auto& p : o.planned) {
    if (p.port >= o.ports.size() || p.destination >= o.destinations.size()) {
      return Error{"a planned probe names a port or destination the run does not have"};
    }
    if (p.train > kMaxTrainLength) return Error{fmt::format("a train of {} datagrams: at most {}", p.train, kMaxTrainLength)};
    if (p.train > 0 && o.destinations[p.destination].hop_limit > 0) {
      return Error{"a train goes to a host's listener, not hop-limited to a switch"};
    }
  }
  {
    std::set<std::pair<std::int64_t, std::uint16_t>> seen;
    for (const auto& p : o.planned) {
      if (!seen.insert({p.entry, p.source_port}).second) {
        return Error{fmt::format("the plan names entry {}'s source port {} twice", p.entry, p.source_port)};
      }
    }
  }
  if (planned_train_datagrams(o) > kMaxTrainDatagramsPerRun) {
    return Error{fmt::format("{} train datagrams exceed the {} one run may send; split the plan",
                             planned_train_datagrams(o), kMaxTrainDatagramsPerRun)};
  }
  if (o.probes == 0 && o.planned.empty()) return Error{"--probes must be at least 1"};
  if (o.rate == 0) return Error{"--rate must be at least 1 probe per second"};
  if (o.timeout_ns <= 0) return Error{"--timeout must be positive"};
  if (o.retries > kMaxRetries) return Error{fmt::format("--retries must be at most {}", kMaxRetries)};
  if (planned_probes(o) > kMaxProbesPerRun) {
    if (!o.planned.empty()) {
      return Error{fmt::format("{} planned probes exceed the {} one run may send; split the plan", o.planned.size(),
                               kMaxProbesPerRun)};
    }
    return Error{fmt::format("{} probes ({} per port and destination x {} ports x {} destinations) exceed the {} "
                             "one run may send; split the run",
                             planned_probes(o), o.probes, o.ports.size(), o.destinations.size(), kMaxProbesPerRun)};
  }
  if (!o.planned.empty()) {
    if (const auto sockets = sockets_of(o).size(); sockets > kMaxSenderSockets) {
      return Error{fmt::format("the plan's ports and source ports need {} sockets, more than {}; reuse source "
                               "ports across destinations",
                               sockets, kMaxSenderSockets)};
    }
    return {};
  }
  const std::uint64_t sockets = static_cast<std::uint64_t>(o.ports.size()) * std::min(o.source_ports.size(), o.probes);
  if (sockets > kMaxSenderSockets) {
    return Error{fmt::format("{} ports x {} source ports need {} sockets, more than {}; narrow --source-ports",
                             o.ports.size(), std::min(o.source_ports.size(), o.probes), sockets, kMaxSenderSockets)};
  }
  return {};
}

std::int64_t sender_budget_ns(const SenderOptions& o) {
  // The sender is either pacing (at most one interval per attempt) or idle
  // with nothing queued, waiting for an attempt to time out (at most one
  // timeout per round of attempts): their sum bounds the run.
  const std::int64_t attempts = static_cast<std::int64_t>(planned_probes(o)) * (o.retries + 1) +
                                static_cast<std::int64_t>(planned_train_datagrams(o));
  const std::int64_t grace = planned_train_datagrams(o) > 0 ? kReportGraceNs + kRecountNs + o.timeout_ns : 0;
  return (attempts + 1) * send_interval_ns(o) + static_cast<std::int64_t>(o.retries + 1) * o.timeout_ns + grace;
}

hpn::Status open_sender(const SenderOptions& o, DatagramNetwork& network) {
  if (auto s = check_sender_options(o); !s) return s;
  for (const auto& [port, source_port] : sockets_of(o)) {
    if (auto s = network.open(o.ports[port].interface, {o.ports[port].address, source_port}); !s) return s;
  }
  return {};
}

SenderResult run_sender(const SenderOptions& o, DatagramNetwork& network, Clock& clock,
                        const std::function<bool()>& stop) {
  return Run(o, network, clock).execute(stop);
}

}  // namespace hpn::probe
