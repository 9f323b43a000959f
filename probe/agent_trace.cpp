#include "probe/agent_trace.h"

#include <fmt/format.h>

#include "probe/ioam_trace.h"

namespace hpn::probe {

namespace {

template <class T>
std::int64_t value_or_none(const std::optional<HopValue<T>>& v) {
  if (!v || v->unavailable) return -1;
  return static_cast<std::int64_t>(v->value);
}

}  // namespace

std::vector<std::byte> probe_hop_by_hop(std::uint16_t ioam_namespace) {
  IoamTraceRequest request;
  request.namespace_id = ioam_namespace;
  request.hops = kProbeTraceHops;
  // Fixed, valid arguments: a failure here is a bug, not an input error.
  return build_ioam_hbh(request).value();
}

hpn::Result<std::vector<ObservedHop>> observed_hops(std::span<const std::byte> hbh, std::uint16_t ioam_namespace) {
  if (hbh.empty()) return Error{"no Hop-by-Hop header (a node on the path removed it, or it was never sent)"};
  auto traces = decode_ioam_hbh(hbh);
  if (!traces) return Error{"IOAM trace: " + traces.error().to_string()};
  for (const auto& t : *traces) {
    if (t.mode != IoamTraceMode::preallocated || t.namespace_id != ioam_namespace) continue;
    std::vector<ObservedHop> hops;
    for (const auto& h : t.hops) {
      ObservedHop o;
      o.node_id = value_or_none(h.node_id);
      if (o.node_id < 0) {
        const std::int64_t wide = value_or_none(h.node_id_wide);
        if (wide >= 0 && wide <= 0xFFFFFF) o.node_id = wide;
      }
      o.ingress_if = static_cast<int>(value_or_none(h.ingress_if));
      o.egress_if = static_cast<int>(value_or_none(h.egress_if));
      if (o.ingress_if < 0 && o.egress_if < 0) {
        const std::int64_t in = value_or_none(h.ingress_if_wide), out = value_or_none(h.egress_if_wide);
        o.ingress_if = in <= 0xFFFF ? static_cast<int>(in) : -1;
        o.egress_if = out <= 0xFFFF ? static_cast<int>(out) : -1;
      }
      o.hop_limit = static_cast<int>(value_or_none(h.hop_limit));
      if (o.hop_limit < 0) o.hop_limit = static_cast<int>(value_or_none(h.hop_limit_wide));
      hops.push_back(o);
    }
    return hops;
  }
  return Error{fmt::format("no pre-allocated IOAM trace of namespace {}", ioam_namespace)};
}

}  // namespace hpn::probe
