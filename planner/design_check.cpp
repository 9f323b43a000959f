#include "planner/design_check.h"

#include "blueprint/mac.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "planner/addressing.h"
#include "blueprint/diagnostics.h"
#include "planner/naming.h"
#include "planner/topology.h"

namespace hpn {

std::string design_error(const Spec& spec, const std::vector<std::string>& keys,
                         const std::string& message) {
  for (const auto& key : keys) {
    auto it = spec.locations.find(key);
    if (it != spec.locations.end()) {
      return format_diagnostic(spec.source_name, spec.source_text, it->second, message);
    }
  }
  return format_diagnostic(spec.source_name, spec.source_text, {}, message);
}

// HPN's ToRs are not stacked (HPN section 4): the two ToRs of a pair are two
// LACP partner systems. IEEE 802.1AX aggregates only the ports that see one
// partner, so the bond would select one port's aggregator and carry nothing
// on the other. balance-xor and active-backup need no partner.
std::string lacp_dual_tor_error() {
  return "transport.bond_mode 802.3ad cannot aggregate toward two independent ToRs (segment.dual_tor): "
         "each port of a NIC sees a different LACP partner, so the bond runs on one port; use balance-xor, "
         "or active-backup with ARP monitoring toward both gateways";
}

namespace {

class Checker {
 public:
  explicit Checker(const Spec& spec) : spec_(spec) {}
  void fail(const std::vector<std::string>& keys, const std::string& message) {
    out_ += design_error(spec_, keys, message);
  }
  Status result() const { return out_.empty() ? Status{} : Status{Error{out_}}; }

 private:
  const Spec& spec_;
  std::string out_;
};

struct TableSizes {
  int64_t devices, cables, core_rules;
};

// The rows expand() will make, counted in 64 bits: every factor is below
// 2^13 by the spec's ranges, so no product overflows.
TableSizes table_sizes(const Spec& s, const Topology& t) {
  return {t.hosts() + t.tors() + t.aggs() + t.cores() + t.frontend_leaves(),
          t.hosts() * t.rails * s.host.ports_per_nic + t.tors() * s.tor.uplinks +
              t.aggs() * s.aggregation.uplinks + t.hosts() * t.fe_sides,
          t.cores() * t.core_ports_per_pod * s.core.pods_planned * (s.core.pods_planned - 1)};
}

void check_structure(const Spec& s, const Topology& t, Checker& c) {
  if (s.segment.dual_tor && s.host.ports_per_nic != 2) {
    c.fail({"host.ports_per_nic", "segment.dual_tor"},
           fmt::format("segment.dual_tor puts the two ports of each NIC on two ToRs, so "
                       "host.ports_per_nic must be 2, got {}", s.host.ports_per_nic));
  }
  if (s.segment.dual_tor && s.transport.bond_mode == "802.3ad") {
    c.fail({"transport.bond_mode", "segment.dual_tor"}, lacp_dual_tor_error());
  }
  if (s.pod.planes == 2 && !s.segment.dual_tor) {
    c.fail({"pod.planes", "segment.dual_tor"},
           "pod.planes 2 needs segment.dual_tor: the two planes are the two ToRs of each pair");
  }
  if (s.segment.dual_tor) {
    if (s.segment.tors % 2 != 0) {
      c.fail({"segment.tors"}, fmt::format("segment.tors {} is odd; dual-ToR needs ToR pairs",
                                           s.segment.tors));
    } else if (s.segment.tors / 2 != t.rails) {
      c.fail({"segment.tors", "host.backend_nics"},
             fmt::format("rails (host.backend_nics {}) must equal ToR pairs per segment "
                         "(segment.tors {} / 2 = {})", t.rails, s.segment.tors, s.segment.tors / 2));
    }
  } else if (s.segment.tors != t.rails) {
    c.fail({"segment.tors", "host.backend_nics"},
           fmt::format("rails (host.backend_nics {}) must equal ToRs per segment (segment.tors {}) "
                       "without dual-ToR", t.rails, s.segment.tors));
  }
  if (s.host.port_speed_gbps * s.tor.breakout != s.tor.port_speed_gbps) {
    c.fail({"tor.breakout", "host.port_speed_gbps", "tor.port_speed_gbps"},
           fmt::format("a ToR cage broken out into tor.breakout {} host ports of {}G carries {}G, "
                       "but tor.port_speed_gbps is {}", s.tor.breakout, s.host.port_speed_gbps,
                       s.tor.breakout * s.host.port_speed_gbps, s.tor.port_speed_gbps));
  }
  if (t.tor_host_cages + s.tor.uplinks > s.tor.radix) {
    c.fail({"tor.uplinks", "tor.radix", "segment.active_hosts", "segment.backup_hosts", "tor.breakout"},
           fmt::format("ToR port budget exceeded: {} host-facing ports take {} cages after {}x "
                       "breakout, plus {} uplinks = {} cages; tor.radix is {}",
                       t.tor_host_ports, t.tor_host_cages, s.tor.breakout, s.tor.uplinks,
                       t.tor_host_cages + s.tor.uplinks, s.tor.radix));
  }
  if (s.tor.uplinks != s.aggregation.switches_per_plane) {
    c.fail({"tor.uplinks", "aggregation.switches_per_plane"},
           fmt::format("tor.uplinks ({}) must equal aggregation.switches_per_plane ({}): each ToR "
                       "has one uplink to every aggregation switch of its plane",
                       s.tor.uplinks, s.aggregation.switches_per_plane));
  }
  if (s.segment.tors % s.pod.planes == 0 &&
      s.aggregation.downlinks != s.pod.segments * t.tors_per_plane_in_segment) {
    c.fail({"aggregation.downlinks", "pod.segments"},
           fmt::format("aggregation.downlinks ({}) must equal pod.segments x ToRs per plane "
                       "({} x {} = {})", s.aggregation.downlinks, s.pod.segments,
                       t.tors_per_plane_in_segment, s.pod.segments * t.tors_per_plane_in_segment));
  }
  if (s.aggregation.downlinks + s.aggregation.uplinks > s.aggregation.radix) {
    c.fail({"aggregation.uplinks", "aggregation.downlinks", "aggregation.radix"},
           fmt::format("aggregation port budget exceeded: {} downlinks + {} uplinks = {} ports; "
                       "aggregation.radix is {}", s.aggregation.downlinks, s.aggregation.uplinks,
                       s.aggregation.downlinks + s.aggregation.uplinks, s.aggregation.radix));
  }
  if (s.tor.port_speed_gbps != s.aggregation.port_speed_gbps) {
    c.fail({"aggregation.port_speed_gbps", "tor.port_speed_gbps"},
           fmt::format("tor.port_speed_gbps ({}) differs from aggregation.port_speed_gbps ({}): "
                       "ToR uplinks and aggregation downlinks share cables",
                       s.tor.port_speed_gbps, s.aggregation.port_speed_gbps));
  }
  if (s.aggregation.port_speed_gbps != s.core.port_speed_gbps) {
    c.fail({"core.port_speed_gbps", "aggregation.port_speed_gbps"},
           fmt::format("aggregation.port_speed_gbps ({}) differs from core.port_speed_gbps ({}): "
                       "aggregation uplinks and core ports share cables",
                       s.aggregation.port_speed_gbps, s.core.port_speed_gbps));
  }
  if (s.core.radix % s.core.pods_planned != 0) {
    c.fail({"core.pods_planned", "core.radix"},
           fmt::format("core.radix ({}) is not divisible among core.pods_planned ({}) pods "
                       "({} / {} leaves {} ports over)", s.core.radix, s.core.pods_planned,
                       s.core.radix, s.core.pods_planned, s.core.radix % s.core.pods_planned));
  } else {
    int64_t uplinks = int64_t{s.aggregation.switches_per_plane} * s.aggregation.uplinks;
    if (uplinks % t.core_ports_per_pod != 0) {
      c.fail({"core.pods_planned", "core.radix", "aggregation.uplinks"},
             fmt::format("a plane's {} x {} = {} aggregation uplinks per pod do not divide into "
                         "core port groups of {} (core.radix {} / core.pods_planned {})",
                         s.aggregation.switches_per_plane, s.aggregation.uplinks, uplinks,
                         t.core_ports_per_pod, s.core.radix, s.core.pods_planned));
    }
  }
  if (s.pods > s.core.pods_planned) {
    c.fail({"fabric.pods", "core.pods_planned"},
           fmt::format("fabric.pods ({}) exceeds core.pods_planned ({}): the core has port groups "
                       "for {} pods", s.pods, s.core.pods_planned, s.core.pods_planned));
  }
  if (t.fe_sides > 0) {
    const auto& f = s.frontend;
    if (s.host.port_speed_gbps * f.breakout != f.port_speed_gbps) {
      c.fail({"frontend.breakout", "frontend.port_speed_gbps", "host.port_speed_gbps"},
             fmt::format("a front-end leaf cage broken out into frontend.breakout {} host ports of "
                         "{}G carries {}G, but frontend.port_speed_gbps is {}", f.breakout,
                         s.host.port_speed_gbps, f.breakout * s.host.port_speed_gbps,
                         f.port_speed_gbps));
    }
    if (t.fe_host_cages + f.uplinks > f.radix) {
      c.fail({"frontend.uplinks", "frontend.hosts_per_leaf_pair", "frontend.radix"},
             fmt::format("front-end leaf port budget exceeded: {} host ports take {} cages after "
                         "{}x breakout, plus {} uplinks = {} cages; frontend.radix is {}",
                         f.hosts_per_leaf_pair, t.fe_host_cages, f.breakout, f.uplinks,
                         t.fe_host_cages + f.uplinks, f.radix));
    }
  }
  if (t.hosts() > kMaxHosts) {
    c.fail({"fabric.pods", "pod.segments", "segment.active_hosts"},
           fmt::format("the fabric has {} hosts (fabric.pods {} x pod.segments {} x {} hosts); "
                       "hpnctl plans at most {} hosts", t.hosts(), s.pods, s.pod.segments,
                       t.hosts_per_segment, kMaxHosts));
  }
  const auto [devices, cables, core_rules] = table_sizes(s, t);
  if (devices > kMaxDevices) {
    c.fail({"fabric.pods", "pod.segments", "aggregation.switches_per_plane", "segment.tors"},
           fmt::format("the plan would have {} devices ({} hosts, {} ToRs, {} aggregation, {} core, "
                       "{} front-end switches); hpnctl plans at most {} devices", devices, t.hosts(),
                       t.tors(), t.aggs(), t.cores(), t.frontend_leaves(), kMaxDevices));
  }
  if (cables > kMaxCables) {
    c.fail({"fabric.pods", "pod.segments", "tor.uplinks", "aggregation.uplinks", "host.backend_nics"},
           fmt::format("the plan would have {} cables; hpnctl plans at most {} cables", cables, kMaxCables));
  }
  if (core_rules > kMaxCoreRules) {
    c.fail({"core.pods_planned", "core.radix", "aggregation.uplinks"},
           fmt::format("the plan would have {} core rules ({} core switches x {} ports x {} other pods "
                       "planned); hpnctl plans at most {} core rules", core_rules, t.cores(),
                       int64_t{t.core_ports_per_pod} * s.core.pods_planned, s.core.pods_planned - 1,
                       kMaxCoreRules));
  }
}

// True when the fabric is past one of the size limits checked above.
bool too_big(const Spec& s, const Topology& t) {
  const auto [devices, cables, core_rules] = table_sizes(s, t);
  return t.hosts() > kMaxHosts || devices > kMaxDevices || cables > kMaxCables || core_rules > kMaxCoreRules;
}

// "240 ToRs need 240 IDs", or, where pods have room for more segments than
// they have, what the reservation adds: node IDs, ASNs and pools are
// allocated by position, each pod a block for Topology::max_segments.
std::string reserved_need(const Topology& t, int64_t count, int64_t span, const char* noun,
                          const char* unit) {
  if (span == count) return fmt::format("{} {} need {} {}", count, noun, span, unit);
  return fmt::format("{} {} need {} {} (fabric.pods {} x room for {} segments per pod, which "
                     "aggregation.radix leaves)", count, noun, span, unit, t.pods, t.max_segments);
}

void check_node_ids(const Spec& s, const Topology& t, Checker& c) {
  struct Use {
    const char* role;
    const char* noun;
    IdRange range;
    int64_t count;
    int64_t span;  // IDs from first on that the positional allocation uses
  };
  const std::vector<Use> uses{
      {"core", "core switches", s.node_ids.core, t.cores(), t.cores()},
      {"agg", "aggregation switches", s.node_ids.agg, t.aggs(), t.aggs()},
      {"tor", "ToRs", s.node_ids.tor, t.tors(), t.tor_span()},
      {"frontend", "front-end leaves", s.node_ids.frontend, t.frontend_leaves(), t.leaf_span()},
      {"host", "hosts", s.node_ids.host, t.hosts(), t.host_span()},
  };
  for (size_t i = 0; i < uses.size(); ++i) {
    const auto& u = uses[i];
    std::string key = fmt::format("node_ids.{}", u.role);
    if (u.range.first > u.range.last) {
      c.fail({key + ".first", key + ".last"},
             fmt::format("{}: first 0x{:06x} is above last 0x{:06x}", key, u.range.first,
                         u.range.last));
      continue;
    }
    int64_t capacity = u.range.last - u.range.first + 1;
    if (u.span > capacity) {
      c.fail({key + ".last", key + ".first", "fabric.pods"},
             fmt::format("node IDs exhausted: {}, {} holds {} (0x{:06x}-0x{:06x})",
                         reserved_need(t, u.count, u.span, u.noun, "IDs"), key, capacity,
                         u.range.first, u.range.last));
    }
    for (size_t j = 0; j < i; ++j) {
      const auto& v = uses[j];
      if (v.range.first <= v.range.last && u.range.first <= v.range.last &&
          v.range.first <= u.range.last) {
        c.fail({key + ".first", key + ".last"},
               fmt::format("{} (0x{:06x}-0x{:06x}) overlaps node_ids.{} (0x{:06x}-0x{:06x})", key,
                           u.range.first, u.range.last, v.role, v.range.first, v.range.last));
      }
    }
  }
}

void check_addresses(const Spec& s, const Topology& t, Checker& c) {
  const auto& a = s.addressing;
  // Positional, like node IDs: every pod's subnets and loopbacks sized for
  // max_segments; each kind of link in its own half of the link pools.
  int64_t host_subnets = t.segment_position(t.pods, 0) * t.rails;
  int64_t fe_subnets = t.segment_position(t.pods, 0) * t.fe_pairs_per_segment;
  int64_t switches = t.switch_span();
  int64_t links = 2 * std::max(t.tor_span() * s.tor.uplinks, t.aggs() * s.aggregation.uplinks);
  int host_v4 = prefix_for(4, uint64_t(a.first_host_offset) + t.hosts_per_segment + 1);
  int fe_v4 = prefix_for(4, uint64_t(a.first_host_offset) + s.frontend.hosts_per_leaf_pair + 1);
  struct Pool {
    const char* key;
    const std::string* text;
    int family;
    int sub_length;
    int64_t need;
    std::string what;
  };
  const std::string per = s.segment.dual_tor ? "ToR-pair" : "ToR";
  auto link_what = [&](int sub_length) {
    return fmt::format("/{}s: one half of the pool for its {} ToR-aggregation links, the other for "
                       "its {} aggregation-core links", sub_length, t.tor_span() * s.tor.uplinks,
                       t.aggs() * s.aggregation.uplinks);
  };
  std::vector<Pool> pools{
      {"backend_ipv4", &a.backend_ipv4, 4, host_v4, host_subnets, per + " subnets"},
      {"backend_ipv6", &a.backend_ipv6, 6, 64, host_subnets, per + " subnets"},
      {"loopback_ipv4", &a.loopback_ipv4, 4, 32, switches, "switch loopbacks"},
      {"loopback_ipv6", &a.loopback_ipv6, 6, 128, switches, "switch loopbacks"},
      {"link_ipv4", &a.link_ipv4, 4, 31, links, link_what(31)},
      {"link_ipv6", &a.link_ipv6, 6, 127, links, link_what(127)},
  };
  if (fe_subnets > 0) {
    pools.push_back({"frontend_ipv4", &a.frontend_ipv4, 4, fe_v4, fe_subnets, "front-end leaf-pair subnets"});
    pools.push_back({"frontend_ipv6", &a.frontend_ipv6, 6, 64, fe_subnets, "front-end leaf-pair subnets"});
  }
  std::vector<std::pair<const Pool*, Prefix>> parsed;
  for (const auto& p : pools) {
    std::string key = std::string("addressing.") + p.key;
    auto prefix = parse_prefix(*p.text, p.family);
    if (!prefix) {
      c.fail({key}, fmt::format("{}: {}", key, prefix.error().message));
      continue;
    }
    if (prefix->length > p.sub_length) {
      c.fail({key}, fmt::format("{}: {} is too small to hold even one /{} of {}", key, *p.text,
                                p.sub_length, p.what));
      continue;
    }
    uint64_t capacity = prefix->capacity(p.sub_length);
    if (static_cast<uint64_t>(p.need) > capacity) {
      c.fail({key, "fabric.pods"},
             fmt::format("address pool exhausted: {} {} holds {} /{}s, the plan needs {} {}", key,
                         *p.text, capacity, p.sub_length, p.need, p.what));
    }
    for (const auto& [other, q] : parsed) {
      if (q.overlaps(*prefix)) {
        c.fail({key}, fmt::format("{} {} overlaps addressing.{} {}", key, *p.text, other->key,
                                  *other->text));
      }
    }
    parsed.push_back({&p, prefix.value()});
  }
  Mac gateway{};
  if (!parse_mac(a.gateway_mac, gateway)) {
    c.fail({"addressing.gateway_mac"},
           fmt::format("addressing.gateway_mac: '{}' is not a MAC address such as 02:48:50:4e:00:01",
                       a.gateway_mac));
  } else if (!is_local_unicast(gateway)) {
    c.fail({"addressing.gateway_mac"},
           fmt::format("addressing.gateway_mac: {} must be a locally administered unicast MAC "
                       "(second hex digit 2, 6, a or e, e.g. 02:48:50:4e:00:01): the switches "
                       "answer with it in place of their own", a.gateway_mac));
  }
}

void check_asns(const Spec& s, const Topology& t, Checker& c) {
  struct Tier {
    const char* key;
    const char* noun;
    int64_t first;
    int64_t count;
    int64_t span;  // ASNs from first on, by position (room for max_segments per pod)
  };
  const int64_t pod_planes = int64_t{t.pods} * t.planes;
  std::vector<Tier> tiers{
      {"asn.core", "core tier", s.asn.core, t.cores() > 0 ? 1 : 0, t.cores() > 0 ? 1 : 0},
      {"asn.agg_first", "pod planes", s.asn.agg_first, pod_planes, pod_planes},
      {"asn.tor_first", "ToRs", s.asn.tor_first, t.tors(), t.tor_span()},
      {"asn.frontend_first", "front-end leaves", s.asn.frontend_first, t.frontend_leaves(), t.leaf_span()},
  };
  for (size_t i = 0; i < tiers.size(); ++i) {
    const auto& u = tiers[i];
    if (u.count == 0) continue;
    int64_t end = u.first + u.span - 1;
    if (end > s.asn.last) {
      std::string what = u.span == u.count
                             ? fmt::format("{} {}", u.count, u.noun)
                             : fmt::format("{} {} (with room for {} segments per pod, {} ASNs)",
                                           u.count, u.noun, t.max_segments, u.span);
      c.fail({u.key, "asn.last"},
             fmt::format("ASN range exhausted: {} numbered from {} {} end at {}, past asn.last {}",
                         what, u.key, u.first, end, s.asn.last));
    }
    for (size_t j = 0; j < i; ++j) {
      const auto& v = tiers[j];
      if (v.count == 0) continue;
      int64_t v_end = v.first + v.span - 1;
      if (u.first <= v_end && v.first <= end) {
        c.fail({u.key}, fmt::format("ASNs of {} ({}-{}) overlap those of {} ({}-{})", u.noun,
                                    u.first, end, v.noun, v.first, v_end));
      }
    }
  }
}

void check_names(const Spec& s, Checker& c) {
  const std::vector<std::pair<std::string, const std::string*>> patterns{
      {"host", &s.naming.host},           {"tor", &s.naming.tor},
      {"agg", &s.naming.agg},             {"core", &s.naming.core},
      {"frontend", &s.naming.frontend},   {"host_port", &s.naming.host_port},
      {"switch_port", &s.naming.switch_port}, {"cable", &s.naming.cable},
      {"rack", &s.naming.rack}};
  for (const auto& [key, pattern] : patterns) {
    if (auto st = check_pattern(key, *pattern); !st) {
      c.fail({"naming." + key}, fmt::format("naming.{}: {}", key, st.error().message));
    }
  }
}

void check_layout(const Spec& s, const Topology& t, Checker& c) {
  const auto& l = s.layout;
  if (l.hosts_per_rack * l.host_units > l.rack_units) {
    c.fail({"layout.hosts_per_rack", "layout.host_units", "layout.rack_units"},
           fmt::format("a host rack holds layout.hosts_per_rack {} hosts of {} RU = {} RU; "
                       "layout.rack_units is {}", l.hosts_per_rack, l.host_units,
                       l.hosts_per_rack * l.host_units, l.rack_units));
  }
  int network = s.segment.tors + t.fe_pairs_per_segment * t.fe_sides;
  if (network * l.switch_units > l.rack_units) {
    c.fail({"layout.switch_units", "layout.rack_units"},
           fmt::format("a segment's network rack holds {} ToRs and {} front-end leaves of {} RU = "
                       "{} RU; layout.rack_units is {}", s.segment.tors,
                       t.fe_pairs_per_segment * t.fe_sides, l.switch_units,
                       network * l.switch_units, l.rack_units));
  }
  for (auto [key, per_rack] : {std::pair{"layout.aggs_per_rack", l.aggs_per_rack},
                               std::pair{"layout.cores_per_rack", l.cores_per_rack}}) {
    if (per_rack * l.switch_units > l.rack_units) {
      c.fail({key, "layout.switch_units"},
             fmt::format("{} {} switches of {} RU need {} RU; layout.rack_units is {}", key,
                         per_rack, l.switch_units, per_rack * l.switch_units, l.rack_units));
    }
  }
  if (s.media.rules.empty()) c.fail({"media.rules"}, "media.rules is empty: every cable needs a media");
}

// Media rules that contradict what the media reach, or each other: a rule
// giving multimode to runs past media.multimode_limit_m would plan optics
// that cannot light the fibre (every such cable a warning and exit 0, until
// this check), and a rule shadowed by an earlier one is never used.
void check_media(const Spec& s, Checker& c) {
  const auto& m = s.media;
  std::optional<double> covered;  // every length up to this is taken by an earlier rule
  bool catch_all = false;
  for (size_t i = 0; i < m.rules.size(); ++i) {
    const MediaRule& r = m.rules[i];
    const std::string at = fmt::format("media.rules[{}]", i);
    if (catch_all || (covered && r.max_length_m && *r.max_length_m <= *covered)) {
      c.fail({at + ".max_length_m", at + ".media"},
             fmt::format("{} ({}) is never used: an earlier rule takes every run {}", at,
                         r.max_length_m ? fmt::format("up to {} m", *r.max_length_m) : "any length",
                         catch_all ? "of any length" : fmt::format("up to {} m", *covered)));
    }
    if (r.media == "mmf" && !r.max_length_m) {
      c.fail({at + ".media", "media.multimode_limit_m"},
             fmt::format("{}: mmf for any length, but multimode reaches media.multimode_limit_m = {} m; "
                         "give it max_length_m {} or less and end media.rules with smf", at,
                         m.multimode_limit_m, m.multimode_limit_m));
    } else if (r.media == "mmf" && *r.max_length_m > m.multimode_limit_m) {
      c.fail({at + ".max_length_m", "media.multimode_limit_m"},
             fmt::format("{}: mmf up to {} m, but multimode reaches media.multimode_limit_m = {} m; "
                         "lower max_length_m to {} or less, or give the longer runs smf", at,
                         *r.max_length_m, m.multimode_limit_m, m.multimode_limit_m));
    }
    if (!r.max_length_m) catch_all = true;
    else covered = std::max(covered.value_or(0), *r.max_length_m);
  }
}

}  // namespace

Status check_design(const Spec& spec, const Topology& t) {
  Checker c(spec);
  check_structure(spec, t, c);
  // Past the size limit the other checks only add noise about the same cause.
  if (too_big(spec, t)) return c.result();
  check_node_ids(spec, t, c);
  check_addresses(spec, t, c);
  check_asns(spec, t, c);
  check_names(spec, c);
  check_layout(spec, t, c);
  check_media(spec, c);
  return c.result();
}

}  // namespace hpn
