#include "probe/agent_listener.h"

#include <algorithm>

#include <fmt/format.h>

#include "probe/agent_trace.h"
#include "probe/ioam_trace.h"

namespace hpn::probe {

namespace {

constexpr std::int64_t kMaxWait = 200 * kNsPerMs;

}  // namespace

std::optional<Datagram> ProbeResponder::answer(const Datagram& in, std::int64_t now_realtime_ns) {
  ++counts_.received;
  switch (classify_payload(in.payload)) {
    case PayloadClass::foreign: ++counts_.foreign; return std::nullopt;
    case PayloadClass::unknown_version: ++counts_.unknown_version; return std::nullopt;
    case PayloadClass::unknown_kind:
    case PayloadClass::reply: ++counts_.not_a_probe; return std::nullopt;
    case PayloadClass::probe: break;
  }
  auto probe = decode_probe(in.payload);
  if (!probe) {
    ++counts_.malformed;
    return std::nullopt;
  }
  // The sender decodes the trace; here it only has to be one, so the
  // listener never echoes arbitrary bytes back as a "trace".
  auto traces = decode_ioam_hbh(in.hop_by_hop);
  if (in.hop_by_hop.empty() || !traces || traces->empty()) {
    ++counts_.without_trace;
    return std::nullopt;
  }
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
      Observation seen;
      seen.run = fmt::format("{:016x}", p.run_id);
      seen.probe = p.probe_id;
      seen.direction = "forward";
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
