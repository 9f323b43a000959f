#include "probe/agent_listener.h"

#include <algorithm>

#include <fmt/format.h>

#include "probe/agent_trace.h"
#include "probe/ioam_trace.h"

namespace hpn::probe {

namespace {

constexpr std::int64_t kMaxWait = 200 * kNsPerMs;

}  // namespace

void TrainTallies::forget_idle(std::int64_t now_ns) {
  for (auto it = tallies_.begin(); it != tallies_.end();) {
    if (now_ns - it->second.last_ns > kTrainIdleNs) {
      bits_ -= it->second.seen.size();
      it = tallies_.erase(it);
    } else {
      ++it;
    }
  }
}

void TrainTallies::count(const TrainDatagram& t, const Datagram& d, std::int64_t now_ns) {
  // A socket's count starts at 0 when it is opened.
  auto before = drops_.find(d.interface);
  const std::uint32_t previous = before == drops_.end() ? 0 : before->second;
  drops_[d.interface] = d.drops;
  auto it = tallies_.find(key_of(t, d));
  if (it == tallies_.end()) {
    if (bits_ + t.length > kMaxTallyBits) forget_idle(now_ns);
    Tally fresh;
    fresh.length = t.length;
    fresh.interface = d.interface;
    fresh.drops = previous;
    fresh.refused = bits_ + t.length > kMaxTallyBits;
    if (!fresh.refused) {
      fresh.seen.assign(t.length, false);
      bits_ += t.length;
    }
    it = tallies_.emplace(key_of(t, d), std::move(fresh)).first;
  }
  Tally& tally = it->second;
  tally.last_ns = now_ns;
  if (tally.length != t.length || tally.interface != d.interface) tally.tainted = true;
  if (tally.refused || tally.tainted || t.seq >= tally.seen.size()) return;
  if (!tally.seen[t.seq]) {
    tally.seen[t.seq] = true;
    ++tally.arrived;
  }
}

std::uint32_t TrainTallies::arrived(const TrainDatagram& request, const Datagram& d, std::int64_t now_ns) {
  const std::uint32_t now_drops = d.drops;
  auto before = drops_.find(d.interface);
  const std::uint32_t previous = before == drops_.end() ? 0 : before->second;
  drops_[d.interface] = now_drops;
  auto it = tallies_.find(key_of(request, d));
  // None of it arrived: unless the socket dropped some meanwhile, a loss.
  if (it == tallies_.end()) return now_drops != previous ? kTrainNotCounted : 0;
  Tally& tally = it->second;
  tally.last_ns = now_ns;
  if (tally.refused || tally.tainted || tally.length != request.length || tally.interface != d.interface ||
      now_drops != tally.drops) {
    return kTrainNotCounted;
  }
  return tally.arrived;
}

bool ProbeResponder::has_trace(const Datagram& in) {
  // The sender decodes the trace; here it only has to be one, so the
  // listener never echoes arbitrary bytes back as a "trace".
  auto traces = decode_ioam_hbh(in.hop_by_hop);
  if (in.hop_by_hop.empty() || !traces || traces->empty()) {
    ++counts_.without_trace;
    return false;
  }
  return true;
}

std::optional<Datagram> ProbeResponder::answer_train(const Datagram& in, std::int64_t now_realtime_ns) {
  auto train = decode_train(in.payload);
  if (!train) {
    ++counts_.malformed;
    return std::nullopt;
  }
  if (!has_trace(in)) return std::nullopt;
  if (!train->report_request()) {
    ++counts_.train_datagrams;
    trains_.count(*train, in, in.realtime_ns);
    return std::nullopt;
  }
  TrainReport report;
  report.length = train->length;
  report.arrived = trains_.arrived(*train, in, in.realtime_ns);
  report.reply.probe = train->probe;
  report.reply.probe_received_ns = in.realtime_ns;
  report.reply.reply_sent_ns = now_realtime_ns;
  report.reply.port = port_names_.port_of(in.interface);
  report.reply.forward_trace = in.hop_by_hop;
  auto payload = encode_train_report(report);
  if (!payload) {
    ++counts_.send_errors;
    return std::nullopt;
  }
  last_probe_ = train->probe;
  last_train_ = std::pair{report.length, report.arrived};
  Datagram out;
  out.interface = in.interface;
  out.local = in.local;
  out.remote = in.remote;
  out.payload = std::move(payload.value());
  return out;
}

std::optional<Datagram> ProbeResponder::answer(const Datagram& in, std::int64_t now_realtime_ns) {
  ++counts_.received;
  switch (classify_payload(in.payload)) {
    case PayloadClass::foreign: ++counts_.foreign; return std::nullopt;
    case PayloadClass::unknown_version: ++counts_.unknown_version; return std::nullopt;
    case PayloadClass::unknown_kind:
    case PayloadClass::train_report:
    case PayloadClass::reply: ++counts_.not_a_probe; return std::nullopt;
    case PayloadClass::train: return answer_train(in, now_realtime_ns);
    case PayloadClass::probe: break;
  }
  auto probe = decode_probe(in.payload);
  if (!probe) {
    ++counts_.malformed;
    return std::nullopt;
  }
  if (!has_trace(in)) return std::nullopt;
  last_train_.reset();
  ProbeReply reply;
  reply.probe = *probe;
  last_probe_ = *probe;
  reply.probe_received_ns = in.realtime_ns;
  reply.reply_sent_ns = now_realtime_ns;
  reply.port = port_names_.port_of(in.interface);
  reply.forward_trace = in.hop_by_hop;
  auto payload = encode_reply(reply);
  if (!payload) {  // a mapped port name too long for the reply
    ++counts_.send_errors;
    return std::nullopt;
  }
  Datagram out;
  out.interface = in.interface;  // back out of the port it came in on
  out.local = in.local;          // from the address and port it was sent to
  out.remote = in.remote;
  out.payload = std::move(payload.value());
  return out;
}

hpn::Status open_listener(const ListenerOptions& o, DatagramNetwork& network) {
  if (o.interfaces.empty()) return Error{"no interface to listen on"};
  for (const auto& interface : o.interfaces) {
    if (auto s = network.open(interface, {"::", o.udp_port}); !s) return s;
  }
  return {};
}

ListenerCounts run_listener(const ListenerOptions& o, DatagramNetwork& network, Clock& clock,
                            const std::function<bool()>& stop) {
  ProbeResponder responder(o.port_names);
  const std::int64_t deadline = o.duration_ns > 0 ? clock.monotonic_ns() + o.duration_ns : 0;
  while (!stop()) {
    std::int64_t wait = kMaxWait;
    if (deadline != 0) {
      const std::int64_t left = deadline - clock.monotonic_ns();
      if (left <= 0) break;
      wait = std::min(wait, left);
    }
    auto datagram = network.receive(wait);
    if (!datagram) continue;
    auto reply = responder.answer(*datagram, clock.realtime_ns());
    if (!reply) continue;
    if (o.record) {
      const ProbeHeader& p = responder.last_probe();
      ObservationRecord seen;
      seen.run = fmt::format("{:016x}", p.run_id);
      seen.probe = p.probe_id;
      seen.direction = ProbeDirection::forward;
      seen.src_address = datagram->remote.address;
      seen.src_udp_port = datagram->remote.port;
      seen.dst_device = o.device;
      seen.dst_address = datagram->local.address;
      seen.dst_udp_port = datagram->local.port;
      seen.received = true;
      seen.rx_port = responder.port_names().port_of(datagram->interface);
      if (auto hops = observed_hops(datagram->hop_by_hop, o.ioam_namespace)) seen.hops = std::move(hops.value());
      seen.sent_ns = p.sent_ns;
      seen.attempt = p.attempt + 1;
      seen.received_ns = datagram->realtime_ns;
      if (const auto train = responder.last_train()) {
        seen.train = static_cast<std::int32_t>(train->first);
        seen.arrived = train->second == kTrainNotCounted ? -1 : static_cast<std::int32_t>(train->second);
      }
      o.record(seen);
    }
    if (network.send(*reply)) {
      ++responder.counts().answered;
    } else {
      ++responder.counts().send_errors;
    }
  }
  return responder.counts();
}

}  // namespace hpn::probe
