#include "validator/diff.h"

#include "probe/probe_plan.h"
#include "validator/telemetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace hpn::validator {

bool Report::clean() const {
  return summary.cables_in_scope > 0 && summary.cables_verified == summary.cables_in_scope &&
         std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity != Severity::info; });
}

namespace {

class Differ {
 public:
  Differ(const FabricIndex& f, const Witnesses& w, const DiffOptions& o)
      : f_(f), bp_(f.blueprint()), w_(w), o_(o), involved_(bp_.cables.size(), false),
        faulted_(bp_.cables.size(), false),
        dual_plane_(std::any_of(bp_.devices.begin(), bp_.devices.end(),
                                [](const Device& d) { return d.plane == 2; })) {}

  Report run() {
    r_.evidence = w_.cables;
    prepare();
    mismatches();
    asn_mismatches();
    unreached();
    for (auto& f : telemetry_findings(f_, w_, o_.silence)) r_.findings.push_back(std::move(f));
    silences();
    core_rules();
    lossy();
    std::stable_sort(r_.findings.begin(), r_.findings.end(), [](const Finding& a, const Finding& b) {
      return a.severity < b.severity;  // most severe first (finding.h)
    });
    auto& s = r_.summary;
    s.observations = w_.observations;
    s.received = w_.received;
    s.lost = w_.lost;
    s.unreadable_hops = w_.unreadable_hops;
    for (const auto& f : r_.findings) ++s.by_kind[f.kind];
    r_.unknown_devices.assign(w_.unknown_devices.begin(), w_.unknown_devices.end());
    return std::move(r_);
  }

 private:
  // An observed link as text, the lower tier's end first (host, ToR,
  // aggregation, core), as the plan writes its cables.
  std::string link_text(PortRef x, PortRef y) const {
    if (std::tie(dev(y).role, dev(y).name) < std::tie(dev(x).role, dev(x).name)) std::swap(x, y);
    return f_.name(x) + " -- " + f_.name(y);
  }

  std::string ends(int cable) const {
    return f_.name(f_.end_of(cable, 0)) + " -- " + f_.name(f_.end_of(cable, 1));
  }
  const std::string& id(int cable) const { return bp_.cables[cable].id; }
  const Device& dev(PortRef p) const { return bp_.devices[p.device]; }

  void add(FindingKind kind, Severity severity, std::vector<int> cables, std::string expected,
           std::string observed, std::string message) {
    for (int c : cables) {
      involved_[c] = true;
      if (severity != Severity::info) faulted_[c] = true;
    }
    r_.findings.push_back({kind, severity, std::move(cables),
                           std::move(expected), std::move(observed), std::move(message), std::nullopt, {}, {}});
  }

  // An HPN invariant the observed link {x, y} breaks, if any: a host NIC port
  // on a ToR of another rail or plane (HPN §4: NIC r to ToR pair r, port 1 to
  // plane 1, port 2 to plane 2), a ToR uplink into another plane (§6).
  bool invariant(PortRef x, PortRef y, int cable) {
    if (dev(x).role == Role::tor && dev(y).role == Role::host) std::swap(x, y);
    if (dev(x).role == Role::agg && dev(y).role == Role::tor) std::swap(x, y);
    if (dev(x).role == Role::core && dev(y).role == Role::agg) std::swap(x, y);
    const Device& a = dev(x);
    const Device& b = dev(y);
    std::vector<int> cables;
    if (cable >= 0) cables.push_back(cable);
    std::string observed = link_text(x, y);
    std::string expected = cable >= 0 ? ends(cable) : "no cable";
    // The cable's end that stayed where the plan has it, the port its
    // other end landed on, and where that end belongs: a cable moved at
    // its lower end (a host's, a ToR's uplink end) names it from above.
    const bool x_moved = cable >= 0 && f_.cable_at(x).cable != cable;
    const PortRef anchor = x_moved ? y : x, landed = x_moved ? x : y;
    const std::string from = cable >= 0 ? fmt::format("cable {} from {}", id(cable), f_.name(anchor))
                                        : "an unplanned cable from " + f_.name(anchor);
    auto back = [&](const std::string& otherwise) {
      return cable >= 0 ? f_.name(f_.far_end(anchor)) : otherwise;
    };
    if (a.role == Role::host && b.role == Role::tor) {
      const PanelPort& port = f_.port(x);
      if (port.nic > 0 && b.rail != port.nic) {
        add(FindingKind::rail_violation, Severity::critical, cables, expected, observed,
            x_moved ? fmt::format("{} lands on {} (NIC {}), but {} is a ToR of rail {} and NIC {} belongs on rail {}: "
                                  "move it to {}",
                                  from, f_.name(landed), port.nic, b.name, b.rail, port.nic, port.nic, back(""))
                    : fmt::format("{} (NIC {}) lands on {}, a ToR of rail {}; NIC {} belongs on rail {}{}", from,
                                  port.nic, f_.name(y), b.rail, port.nic, port.nic,
                                  cable >= 0 ? ": move it to " + back("") : ": remove it"));
        return true;
      }
      // Port k of a NIC on plane k: the host port's planned ToR says which plane is right.
      PortRef planned = f_.far_end(x);
      int want = planned.valid() ? dev(planned).plane : kNone;
      if (port.nic > 0 && dual_plane_ && want != kNone && b.plane != want && cable >= 0) {
        add(FindingKind::plane_violation, Severity::critical, cables, expected, observed,
            x_moved ? fmt::format("{} lands on {}, whose NIC {} port belongs in plane {}, so both ports of NIC {} "
                                  "reach plane {}; move it to {}",
                                  from, f_.name(landed), port.nic, want, port.nic, b.plane, back(""))
                    : fmt::format("{} lands on {} in plane {}, so both ports of NIC {} reach one plane; "
                                  "move it to {} in plane {}",
                                  from, f_.name(y), b.plane, port.nic, f_.name(planned), want));
        return true;
      }
    }
    if (a.role == Role::agg && b.role == Role::core && a.plane != b.plane && dual_plane_) {
      add(FindingKind::plane_violation, Severity::critical, cables, expected, observed,
          fmt::format("{} (plane {}) lands on {} in plane {}: the core keeps the planes apart, an "
                      "aggregation switch's uplinks stay in its own plane; move it to {}",
                      from, dev(anchor).plane, f_.name(landed), dev(landed).plane,
                      back("a plane-" + std::to_string(a.plane) + " core")));
      return true;
    }
    if (a.role == Role::tor && b.role == Role::agg && a.plane != b.plane && dual_plane_) {
      add(FindingKind::plane_violation, Severity::critical, cables, expected, observed,
          fmt::format("{} (plane {}) lands on {} in plane {}: a ToR's uplinks stay in its own "
                      "plane; move it to {}",
                      from, dev(anchor).plane, f_.name(landed), dev(landed).plane,
                      back("a plane-" + std::to_string(a.plane) + " switch")));
      return true;
    }
    return false;
  }

  // What an observed link {x, y} crosses that HPN keeps apart, without a
  // finding: "rails" (a host NIC on a ToR of another rail), "planes" (a NIC
  // port, ToR uplink or aggregation uplink in the other plane), or "".
  std::string crossing(PortRef x, PortRef y) const {
    if (dev(x).role == Role::tor && dev(y).role == Role::host) std::swap(x, y);
    if (dev(x).role == Role::agg && dev(y).role == Role::tor) std::swap(x, y);
    if (dev(x).role == Role::core && dev(y).role == Role::agg) std::swap(x, y);
    const Device& a = dev(x);
    const Device& b = dev(y);
    if (a.role == Role::host && b.role == Role::tor) {
      const PanelPort& port = f_.port(x);
      if (port.nic > 0 && b.rail != port.nic) return "rails";
      PortRef planned = f_.far_end(x);
      if (port.nic > 0 && dual_plane_ && planned.valid() && dev(planned).plane != kNone && b.plane != dev(planned).plane) {
        return "planes";
      }
      return "";
    }
    const bool uplink = (a.role == Role::agg && b.role == Role::core) || (a.role == Role::tor && b.role == Role::agg);
    return uplink && dual_plane_ && a.plane != b.plane ? "planes" : "";
  }

  void mismatches() {
    // Undirected observed links the plan does not have.
    std::set<std::pair<PortRef, PortRef>> links;
    for (const auto& [link, count] : w_.unplanned) {
      auto [x, y] = link;
      if (y < x) std::swap(x, y);
      links.insert({x, y});
    }
    std::set<std::pair<PortRef, PortRef>> done;
    for (const auto& link : links) {
      if (done.count(link)) continue;
      auto [x, y] = link;
      done.insert(link);
      // The anchor is the end whose planned cable starts there (its a-end):
      // the cable was plugged in at its own device and run to the wrong place.
      // With a planned cable at one end only, the cable is that one,
      // moved at its other end (to a port the plan leaves free).
      CableEnd ex = f_.cable_at(x), ey = f_.cable_at(y);
      if (ey.cable >= 0 && (ex.cable < 0 || (ex.end != 0 && ey.end == 0))) {
        std::swap(x, y);
        std::swap(ex, ey);
      }
      PortRef px = f_.far_end(x), py = f_.far_end(y);
      // Two cables exchanged at one end: {x, y} and {px, py} both observed.
      if (ex.cable >= 0 && ey.cable >= 0 && ex.cable != ey.cable) {
        std::pair<PortRef, PortRef> twin = px < py ? std::pair{px, py} : std::pair{py, px};
        if (links.count(twin)) {
          done.insert(twin);
          // Where the two ends were exchanged: the device both moved ends share.
          bool at_y = dev(y).name == dev(px).name;
          int first = std::min(ex.cable, ey.cable), second = std::max(ex.cable, ey.cable);
          auto planned_port_at = [&](int cable, int device) {
            PortRef a = f_.end_of(cable, 0);
            return f_.port(a.device == device ? a : f_.end_of(cable, 1)).name;
          };
          const std::string expected = ends(first) + "; " + ends(second);
          const std::string observed = link_text(x, y) + "; " + link_text(px, py);
          // Across rails or planes the exchange breaks HPN's layout: that is
          // the finding, and the exchange back is its fix.
          std::string across = crossing(x, y);
          if (across.empty()) across = crossing(px, py);
          else if (across == "planes" && crossing(px, py) == "rails") across = "rails";
          // Cable ex runs from x and lands on y, where ey belongs; ey, from
          // py, lands on px, where ex belongs.
          const std::string moved_ex = fmt::format("{} from {} lands on {}, where {} belongs", id(ex.cable),
                                                   f_.name(x), f_.name(y), id(ey.cable));
          const std::string moved_ey = fmt::format("{} from {} lands on {}, where {} belongs", id(ey.cable),
                                                   f_.name(py), f_.name(px), id(ex.cable));
          const std::string moved =
              ex.cable == first ? moved_ex + ", and " + moved_ey : moved_ey + ", and " + moved_ex;
          if (!across.empty()) {
            add(across == "rails" ? FindingKind::rail_violation : FindingKind::plane_violation, Severity::critical,
                {first, second}, expected, observed,
                fmt::format("cables {} and {} are exchanged across {}: {}; swap them back", id(first), id(second),
                            across, moved));
          } else if (at_y || dev(x).name == dev(py).name) {
            // Both moved ends on one device: two of its ports hold each other's cable.
            int at = at_y ? px.device : x.device;
            add(FindingKind::swapped, Severity::critical, {first, second}, expected, observed,
                fmt::format("cables {} and {} are swapped at {}: {} and {} hold each other's cable; "
                            "swap them back", id(first), id(second), bp_.devices[at].name,
                            planned_port_at(first, at), planned_port_at(second, at)));
          } else {
            add(FindingKind::swapped, Severity::critical, {first, second}, expected, observed,
                fmt::format("cables {} and {} are exchanged: {}; swap them back", id(first), id(second), moved));
          }
          continue;
        }
      }
      if (invariant(x, y, ex.cable)) continue;
      if (ex.cable < 0) {
        add(FindingKind::unplanned, Severity::warning, {}, "no cable", link_text(x, y),
            fmt::format("an unplanned cable joins {} and {}; remove it", f_.name(x), f_.name(y)));
        continue;
      }
      if (px.valid() && y.device == px.device) {
        add(FindingKind::wrong_port, Severity::critical, {ex.cable}, ends(ex.cable), link_text(x, y),
            fmt::format("cable {} from {} lands on {} port {}; move it to port {}", id(ex.cable),
                        f_.name(x), dev(y).name, f_.port(y).name, f_.port(px).name));
      } else {
        add(FindingKind::wrong_device, Severity::critical, {ex.cable}, ends(ex.cable), link_text(x, y),
            fmt::format("cable {} from {} lands on {} instead of {}; re-run it to {}", id(ex.cable),
                        f_.name(x), f_.name(y), f_.name(px), f_.name(px)));
      }
    }
  }

  // HPN §7: a core sends traffic for pod P that arrives on port i out of
  // the port of P's group with the same index (core-rules.csv). A trace
  // that left by another port breaks the rule, unless the rule's own cable
  // is at fault in this run (then the hash fallback is doing its job).
  void core_rules() {
    std::map<std::tuple<int, std::string, int>, int> row_of;  // (core, in-port, pod) -> core_rules index
    for (size_t r = 0; r < bp_.core_rules.size(); ++r) {
      const CoreRule& rule = bp_.core_rules[r];
      if (rule.status == "active") row_of[{rule.core, rule.in_port, rule.dst_pod}] = static_cast<int>(r);
    }
    struct Seen {
      int row = -1;
      std::map<int, int64_t> outs;  // observed out-port -> traces
    };
    std::map<std::tuple<int, int, int>, Seen> by_rule;
    for (const auto& [key, count] : w_.core_hops) {
      const auto [core, in, pod, out] = key;
      const std::string& in_name = bp_.panels[bp_.devices[core].panel].ports[in].name;
      auto it = row_of.find({core, in_name, pod});
      if (it == row_of.end()) continue;  // no rule: the core hashes
      Seen& seen = by_rule[{core, in, pod}];
      seen.row = it->second;
      seen.outs[out] += count;
    }
    for (const auto& [key, seen] : by_rule) {
      const auto [core, in, pod] = key;
      const CoreRule& rule = bp_.core_rules[seen.row];
      const Panel& panel = bp_.panels[bp_.devices[core].panel];
      const PortRef planned{core, panel.find(rule.out_port)};
      const int planned_cable = f_.cable_at(planned).cable;
      if (planned_cable >= 0 && faulted_[planned_cable]) continue;
      for (const auto& [out, count] : seen.outs) {
        const PortRef left{core, out};
        if (left == planned) continue;
        const int left_cable = f_.cable_at(left).cable;
        const PortRef came{core, in};
        const int in_cable = f_.cable_at(came).cable;
        auto cable_text = [&](int cable, PortRef at, const char* way) {
          if (cable < 0) return fmt::format("{} (no cable)", f_.name(at));
          return fmt::format("{} (cable {} {} {})", f_.port(at).name, bp_.cables[cable].id, way, f_.name(f_.far_end(at)));
        };
        std::vector<int> cables;
        if (left_cable >= 0) cables.push_back(left_cable);
        if (planned_cable >= 0) cables.push_back(planned_cable);
        add(FindingKind::core_rule_violation, Severity::critical, cables,
            fmt::format("{}: in {} for pod {} -> out {} (core-rules.csv row {})", bp_.devices[core].name,
                        rule.in_port, pod, rule.out_port, seen.row + 1),
            fmt::format("{}: in {} for pod {} -> out {} ({} traces)", bp_.devices[core].name, rule.in_port, pod,
                        f_.port(left).name, count),
            fmt::format("{} forwarded traffic for pod {} that arrived on {} out of {}; core-rules.csv row {} "
                        "sends it out of {}: load the core's rules (hpnctl config {})",
                        bp_.devices[core].name, pod, cable_text(in_cable, came, "from"),
                        cable_text(left_cable, left, "to"), seen.row + 1, cable_text(planned_cable, planned, "to"),
                        bp_.devices[core].name));
      }
    }
  }

  // A session up to the right device that speaks another AS than the plan
  // gives it: the cable is right, the far switch's configuration is not.
  void asn_mismatches() {
    std::set<std::pair<int, int>> seen;  // (device at the far end, observed AS) reported once
    for (const auto& m : w_.asn_mismatches) {
      PortRef far = m.cable >= 0 ? f_.far_end(m.port) : PortRef{};
      const std::string device = far.valid() ? dev(far).name : m.peer;
      if (!seen.insert({far.valid() ? far.device : -1, static_cast<int>(m.observed)}).second) continue;
      std::vector<int> cables;
      if (m.cable >= 0) cables.push_back(m.cable);
      add(FindingKind::wrong_asn, Severity::critical, cables, fmt::format("{} in AS {}", device, m.planned),
          fmt::format("{} in AS {}", m.peer, m.observed),
          fmt::format("the BGP session on {} reaches {} in AS {}, but the plan gives {} AS {}: load {}'s "
                      "configuration from the plan (hpnctl config {})",
                      f_.name(m.port), m.peer, m.observed, device, m.planned, device, device));
    }
  }

  // LLDP judges a cable with dumps of both its devices, and one with a
  // dump of one of them that heard it: the other end's silence is then
  // unobserved, never missing.
  bool lldp_scope(int cable) const {
    const Cable& c = bp_.cables[cable];
    const auto& e = w_.cables[cable].dir;
    for (const auto* devices : {&w_.lldp_devices, &w_.bgp_devices}) {
      if (devices == &w_.bgp_devices && c.kind != CableKind::tor_agg && c.kind != CableKind::agg_core) continue;
      const bool a = devices->count(c.a_device) > 0, z = devices->count(c.z_device) > 0;
      if ((a && z) || ((a || z) && (e[0].received > 0 || e[1].received > 0))) return true;
    }
    return false;
  }

  // --scope: the cables of the scope's hosts, the uplinks of their ToRs,
  // the core cables of their pods (probe::cables_in_scope).
  bool in_user_scope(int cable) const { return o_.scope_hosts.empty() || scope_cables_[cable]; }

  bool in_scope(int cable) const {
    const Cable& c = bp_.cables[cable];
    if (!in_user_scope(cable)) return false;
    if (lldp_scope(cable)) return true;
    switch (c.kind) {
      case CableKind::host_tor: return w_.probed_hosts.count(c.a_device) > 0;
      case CableKind::tor_agg: return probed_tors_.count(c.a_device) > 0;
      // Crossed by probes between pods, or reached up by switch probes to
      // the core (which only witness the aggregation switch's direction):
      // sent to it, answered or not, so that a core that never answers
      // leaves its cables unverified rather than out of the verdict.
      case CableKind::agg_core:
        return probed_pods_.count(bp_.devices[c.a_device].pod) > 0 &&
               (w_.inter_pod || w_.switch_probes_sent.count(c.z_device) > 0);
      case CableKind::frontend: return false;  // probes run on the back end
    }
    return false;
  }

  // Enough traffic went through the cable's ECMP group, this way, that a
  // member nobody saw was not merely unlucky.
  bool group_says_enough(int cable, int direction) const {
    // Within one pod no probe is hashed over an aggregation switch's core
    // uplinks (switch probes to a core take the one uplink to it): their
    // silence says nothing.
    if (bp_.cables[cable].kind == CableKind::agg_core && !w_.inter_pod) return false;
    // Down from a core the port is the rule's, chosen by the in-port and
    // the pod (HPN §7), not hashed over the group: silence says nothing.
    if (bp_.cables[cable].kind == CableKind::agg_core && direction == 1) return false;
    auto it = groups_.find({bp_.cables[cable].a_device, bp_.cables[cable].kind});
    if (it == groups_.end() || it->second.size() < 2) return false;
    if (bp_.cables[cable].kind == CableKind::tor_agg && direction == 1) {
      // A cable that lands the ToR's pair partner (the other plane's ToR
      // of its rail and segment, which holds the same hosts' NICs) on this
      // aggregation switch gives it a second way down to them, which its
      // hash may prefer for every flow it gets.
      const Device& tor = bp_.devices[bp_.cables[cable].a_device];
      if (auto foreign = foreign_tors_.find(bp_.cables[cable].z_device); foreign != foreign_tors_.end()) {
        for (int other : foreign->second) {
          const Device& o = bp_.devices[other];
          if (other != bp_.cables[cable].a_device && o.pod == tor.pod && o.segment == tor.segment && o.rail == tor.rail) {
            return false;
          }
        }
      }
      return std::exp(-expected_down(cable)) < o_.miss_probability;
    }
    // Distinct five-tuples: every datagram of one hashes alike.
    int64_t total = 0;
    for (int member : it->second) total += w_.cables[member].dir[direction].flows;
    double n = static_cast<double>(it->second.size());
    return std::pow(1.0 - 1.0 / n, static_cast<double>(total)) < o_.miss_probability;
  }

  // Down a ToR's uplink comes what other ToRs hashed up to its aggregation
  // switch for this ToR's hosts: per source ToR, its five-tuples down to
  // this one, times the share of its working uplinks (seen carrying traffic up)
  // that reach the switch. Faults elsewhere in the run (a dark or miswired
  // cable into the switch) lower it, and a silence they explain is then
  // no evidence: traffic the uniform hash over the group would promise
  // never came this way.
  double expected_down(int cable) const {
    const Cable& c = bp_.cables[cable];
    auto sources = traces_to_.find(c.a_device);
    if (sources == traces_to_.end()) return 0;
    double lambda = 0;
    for (const auto& [source, traces] : sources->second) {
      auto up = groups_.find({source, CableKind::tor_agg});
      if (up == groups_.end()) continue;
      int working = 0, to_switch = 0;
      for (int u : up->second) {
        if (w_.cables[u].dir[0].received == 0) continue;
        ++working;
        if (bp_.cables[u].z_device == c.z_device) ++to_switch;
      }
      if (working > 0) lambda += static_cast<double>(traces) * to_switch / working;
    }
    return lambda;
  }

  // The uniform hash's promise for a ToR's downward group: what silence
  // would have meant had every switch of the group got its share.
  bool uniform_says_enough(int cable, int direction) const {
    auto it = groups_.find({bp_.cables[cable].a_device, bp_.cables[cable].kind});
    if (it == groups_.end() || it->second.size() < 2) return false;
    int64_t total = 0;
    for (int member : it->second) total += w_.cables[member].dir[direction].flows;
    return std::pow(1.0 - 1.0 / static_cast<double>(it->second.size()), static_cast<double>(total)) < o_.miss_probability;
  }

  // The cables into aggregation switch `agg` from ToRs other than
  // `except` that this run found at fault or saw carry nothing up.
  std::vector<int> starved_by(int agg, int except) const {
    std::vector<int> out;
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      const Cable& c = bp_.cables[i];
      if (c.kind != CableKind::tor_agg || c.z_device != agg || c.a_device == except) continue;
      if (faulted_[i] || w_.cables[i].dir[0].received == 0) out.push_back(static_cast<int>(i));
    }
    return out;
  }

  bool enough(int cable, int direction) const {
    const Cable& c = bp_.cables[cable];
    // Both LLDP agents, or both ends' BGP, ran: one exchange settles it.
    if (w_.cables[cable].dir[direction].lldp || w_.cables[cable].dir[direction].bgp) return true;
    if (c.kind == CableKind::host_tor) {
      const DirectionEvidence& e = w_.cables[cable].dir[direction];
      return e.sent >= o_.min_probes && probe::silence_is_evidence(e.sent_by_reach, o_.silence);
    }
    return group_says_enough(cable, direction);
  }

  // What scope and the silence tests rest on, before any finding.
  void prepare() {
    if (!o_.scope_hosts.empty()) scope_cables_ = probe::cables_in_scope(bp_, o_.scope_hosts);
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      const Cable& c = bp_.cables[i];
      if (c.kind == CableKind::host_tor && w_.probed_hosts.count(c.a_device)) {
        probed_tors_.insert(c.z_device);
        probed_pods_.insert(bp_.devices[c.a_device].pod);
      }
      if (c.kind == CableKind::tor_agg || c.kind == CableKind::agg_core) {
        groups_[{c.a_device, c.kind}].push_back(static_cast<int>(i));
      }
    }
    for (const auto& [pair, flows] : w_.tor_to_tor) traces_to_[pair.second].emplace_back(pair.first, flows);
    for (const auto& [link, count] : w_.unplanned) {
      auto [x, y] = link;
      if (dev(x).role == Role::agg) std::swap(x, y);
      if (dev(x).role == Role::tor && dev(y).role == Role::agg) foreign_tors_[y.device].insert(x.device);
    }
  }

  // A switch in scope that answered nothing (no switch probe, no record in
  // any trace, no BGP session or LLDP agent that heard it or that it
  // heard) although the run had it answer: switch probes whose silence
  // loss cannot explain, or a cable of it in scope with enough probes or
  // dumps across it that its silence would be evidence. Dead, or cut off:
  // one finding naming it with its cables in scope, which no other finding
  // then names (each would only repeat that nothing came back).
  void unreached() {
    std::map<int, std::vector<int>> cables_of;  // switch -> its cables in scope
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      const int cable = static_cast<int>(i);
      if (!in_scope(cable)) continue;
      for (int device : {bp_.cables[i].a_device, bp_.cables[i].z_device}) {
        if (bp_.devices[device].role != Role::host) cables_of[device].push_back(cable);
      }
    }
    for (const auto& [device, sent] : w_.switch_probes_sent) cables_of.try_emplace(device);
    for (const auto& [device, cables] : cables_of) {
      if (w_.device_answered[device]) continue;
      auto probes = w_.switch_probes_sent.find(device);
      const int64_t sent = probes == w_.switch_probes_sent.end() ? 0 : probes->second;
      bool expected = switch_silence_is_evidence(bp_, device, sent, o_.silence);
      bool dumps = false;  // its own BGP or LLDP dump, or a peer's with a cable to it, was read
      for (int c : cables) {
        expected = expected || enough(c, 0) || enough(c, 1);
        for (const auto* read : {&w_.bgp_devices, &w_.lldp_devices}) {
          dumps = dumps || read->count(bp_.cables[c].a_device) || read->count(bp_.cables[c].z_device);
        }
      }
      if (!expected) continue;
      const Device& d = bp_.devices[device];
      std::vector<std::string> tried;
      if (sent > 0) tried.push_back(fmt::format("none of the {} switch probes sent to it came back", sent));
      tried.push_back("no probe's trace shows it");
      if (dumps) tried.push_back("no BGP session or LLDP agent heard it or was heard by it");
      std::string what;
      for (size_t k = 0; k < tried.size(); ++k) {
        what += (k == 0 ? "" : k + 1 == tried.size() ? ", and " : ", ") + tried[k];
      }
      add(FindingKind::unreached, Severity::critical, cables, fmt::format("{} answering on the fabric", d.name),
          "nothing",
          fmt::format("switch {} answered nothing: {}; check that it is powered and running, that its cables are "
                      "lit, and that it answers ICMPv6 ({} {} in scope cannot be verified until it answers)",
                      d.name, what, cables.size(), cables.size() == 1 ? "cable" : "cables"));
      r_.findings.back().device = d.name;
    }
  }

  void silences() {
    // A second, unplanned link between two switches makes the split of
    // traffic between them unpredictable (hashes polarize): the cables they
    // share are not judged by their silence; the mismatch finding explains.
    std::set<std::pair<int, int>> doubled;
    for (const auto& [link, count] : w_.unplanned) {
      doubled.insert({std::min(link.first.device, link.second.device), std::max(link.first.device, link.second.device)});
    }
    auto& s = r_.summary;
    for (size_t i = 0; i < bp_.cables.size(); ++i) {
      int cable = static_cast<int>(i);
      const Cable& c = bp_.cables[i];
      auto& coverage = s.coverage[std::string(to_string(c.kind))];
      if (!in_scope(cable)) {
        ++s.cables_out_of_scope;
        ++coverage.out_of_scope;
        continue;
      }
      ++s.cables_in_scope;
      ++coverage.in_scope;
      if (involved_[i]) continue;
      if (doubled.count({std::min(c.a_device, c.z_device), std::max(c.a_device, c.z_device)})) continue;
      const auto& e = w_.cables[i].dir;
      bool seen[2] = {e[0].received > 0, e[1].received > 0};
      bool can[2] = {enough(cable, 0), enough(cable, 1)};
      std::string a = f_.name(f_.end_of(cable, 0)), z = f_.name(f_.end_of(cable, 1));
      // With LLDP dumps, what would settle an undecided cable: the dump of
      // an end that has none, or one whose neighbours name their ports.
      std::string lldp_hint;
      if (!w_.lldp_devices.empty()) {
        int without = !w_.lldp_devices.count(c.z_device) ? c.z_device
                      : !w_.lldp_devices.count(c.a_device) ? c.a_device : -1;
        lldp_hint = without >= 0 ? fmt::format(" or give the LLDP dump of {}", bp_.devices[without].name)
                                 : " or check what its ports' LLDP neighbours name (--lldp-match)";
      }
      // Probes crossed a direction no trace shows where a switch wrote no
      // telemetry (witness.h): its silence is no evidence of anything.
      const bool gapped[2] = {!seen[0] && e[0].across_gap > 0, !seen[1] && e[1].across_gap > 0};
      if (seen[0] && seen[1]) {
        ++s.cables_verified;
        ++coverage.verified;
      } else if (gapped[0] || gapped[1]) {
        ++coverage.unobserved;
        std::vector<PortRef> silent;
        for (int d = 0; d < 2; ++d) {
          if (gapped[d]) silent.push_back(e[d].silent);
        }
        const int64_t crossed = e[0].across_gap + e[1].across_gap;
        const std::string why = fmt::format("{}, so the {} {} that crossed it there carry no record of it (see the "
                                            "telemetry findings); enable it and verify again",
                                            gap_reason(f_, w_, silent), crossed, crossed == 1 ? "trace" : "traces");
        if (seen[0] || seen[1]) {
          const int dark = seen[0] ? 1 : 0;
          const std::string from = dark == 0 ? a : z, to = dark == 0 ? z : a;
          add(FindingKind::unobserved, Severity::info, {cable}, ends(cable),
              fmt::format("{} -> {} only; no telemetry", to, from),
              fmt::format("cable {} ({} -- {}) was seen {} -> {} only: {}", c.id, a, z, to, from, why));
        } else {
          add(FindingKind::unobserved, Severity::info, {cable}, ends(cable), "no telemetry",
              fmt::format("cable {} ({} -- {}) was seen neither way: {}", c.id, a, z, why));
        }
      } else if (!seen[0] && !seen[1]) {
        bool neighbours = w_.device_seen[c.a_device] && w_.device_seen[c.z_device];
        if ((can[0] || can[1]) && neighbours) {
          add(FindingKind::missing, Severity::critical, {cable}, ends(cable), "nothing, either way",
              fmt::format("cable {} ({} -- {}) shows no light either way although {}; check that it "
                          "is in place, seated and lit at both ends", c.id, a, z,
                          e[0].lldp || e[1].lldp ? "LLDP runs at both ends and neither hears the other"
                          : e[0].bgp || e[1].bgp ? "BGP runs at both ends and neither hears the other"
                                                 : "probes were sent across it"));
        } else {
          ++coverage.unobserved;
          add(FindingKind::unobserved, Severity::info, {cable}, ends(cable), "not enough probes",
              fmt::format("cable {} ({} -- {}): too few probes crossed it to tell; probe it again{}",
                          c.id, a, z, lldp_hint));
        }
      } else {
        int dead = seen[0] ? 1 : 0;
        std::string from = dead == 0 ? a : z, to = dead == 0 ? z : a;
        if (can[dead]) {
          add(FindingKind::unidirectional, Severity::critical, {cable}, ends(cable),
              fmt::format("{} -> {} only", dead == 0 ? z : a, dead == 0 ? a : z),
              fmt::format("cable {} carries {} -> {} but nothing {} -> {}: clean or replace the "
                          "fibre or optic of that direction{}", c.id, dead == 0 ? z : a,
                          dead == 0 ? a : z, from, to,
                          e[dead].lldp ? fmt::format(", or check that LLDP is sent from {}", from)
                          : e[dead].bgp ? fmt::format("; {} hears {}, {} hears nothing from {}, so their "
                                                      "BGP session cannot form", from, to, to, from)
                                        : ""));
        } else {
          ++coverage.unobserved;
          const bool core_down = c.kind == CableKind::agg_core && !w_.inter_pod && dead == 1;
          // Silent down a ToR uplink that the uniform hash would have
          // filled: the run's own faults starved its switch.
          const std::vector<int> starved = c.kind == CableKind::tor_agg && dead == 1 && uniform_says_enough(cable, 1)
                                               ? starved_by(c.z_device, c.a_device)
                                               : std::vector<int>{};
          if (!starved.empty()) {
            std::string names;
            for (size_t k = 0; k < starved.size(); ++k) {
              names += (k == 0 ? "" : k + 1 == starved.size() ? " and " : ", ") + id(starved[k]);
            }
            add(FindingKind::unobserved, Severity::info, {cable}, ends(cable), fmt::format("{} -> {} only", to, from),
                fmt::format("cable {} ({} -- {}) was seen {} -> {} only, and that is no fault of its own: "
                            "little traffic for {}'s hosts reached {}, because {} {} carried nothing up to it "
                            "in this run (see {}); fix {} and verify again", c.id, a, z, to, from,
                            dev(f_.end_of(cable, 0)).name, dev(f_.end_of(cable, 1)).name,
                            starved.size() == 1 ? "cable" : "cables", names,
                            starved.size() == 1 ? "its finding" : "their findings",
                            starved.size() == 1 ? "it" : "them"));
            continue;
          }
          add(FindingKind::unobserved, Severity::info, {cable}, ends(cable), fmt::format("{} -> {} only", to, from),
              core_down ? fmt::format("cable {} ({} -- {}) was seen {} -> {} only: within one pod no probe "
                                      "crosses a core downward; give the BGP or LLDP dumps of both ends "
                                      "(--bgp, --lldp), or probe from another pod", c.id, a, z, to, from)
                        : fmt::format("cable {} ({} -- {}) was seen one way only and too few probes went the "
                                      "other way ({} -> {}) to tell; probe it again{}", c.id, a, z, from, to,
                                      lldp_hint));
        }
      }
    }
  }

  // Directions that lose more than the run's background explains, on
  // cables in scope that no other finding names (their silence or their
  // miswiring explains their losses) and that were seen both ways: a
  // direction nothing came back by is missing, unidirectional or unobserved.
  void lossy() {
    const LossEstimate estimate = estimate_loss(w_.loss, bp_.cables.size(), o_.loss);
    auto& s = r_.summary;
    s.baseline_loss = estimate.baseline;
    s.loss_directions_tested = estimate.tested;
    auto judged = [&](int cable) {
      const auto& e = w_.cables[cable].dir;
      return in_scope(cable) && !involved_[cable] && e[0].received > 0 && e[1].received > 0;
    };
    for (const auto& d : estimate.undecided) s.loss_undecided += judged(d.cable) ? 1 : 0;
    s.loss_judged = estimate.baseline <= o_.loss.max_background;
    if (!s.loss_judged) return;
    std::vector<DirectionLoss> found;
    for (const auto& d : estimate.culprits) {
      if (d.rate >= o_.loss.warn && judged(d.cable)) found.push_back(d);
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::tie(a.cable, a.direction) < std::tie(b.cable, b.direction);
    });
    auto percent = [](double x) { return fmt::format("{:.1f}%", 100 * x); };
    for (const auto& d : found) {
      const Cable& c = bp_.cables[d.cable];
      const std::string from = f_.name(f_.end_of(d.cable, d.direction)), to = f_.name(f_.end_of(d.cable, 1 - d.direction));
      const bool critical = d.rate >= o_.loss.critical;
      add(FindingKind::lossy, critical ? Severity::critical : Severity::warning, {d.cable}, ends(d.cable),
          fmt::format("{} -> {} loses {}", from, to, percent(d.rate)),
          fmt::format("cable {} loses {} of what it carries {} -> {} (95% interval {} to {}; {} of {} attempts "
                      "across it lost, {:.1f} expected at the background {:.2f}% per cable): clean or replace the "
                      "fibre or optic of that direction",
                      c.id, percent(d.rate), from, to, percent(d.low), percent(d.high), d.lost, d.attempts,
                      d.expected_lost, 100 * estimate.baseline));
      r_.findings.back().loss = LossFinding{d.direction, d.attempts, d.lost, d.rate, d.low, d.high, estimate.baseline};
    }
  }

  const FabricIndex& f_;
  const Blueprint& bp_;
  const Witnesses& w_;
  const DiffOptions& o_;
  Report r_;
  std::vector<bool> involved_;
  std::vector<bool> faulted_;  // in a finding above info
  bool dual_plane_;
  std::set<int> probed_tors_, probed_pods_;
  std::vector<bool> scope_cables_;  // by cable, with --scope
  std::map<std::pair<int, CableKind>, std::vector<int>> groups_;
  std::map<int, std::set<int>> foreign_tors_;  // aggregation switch -> ToRs an unplanned link joins it to
  std::map<int, std::vector<std::pair<int, int64_t>>> traces_to_;  // ToR -> (source ToR, traces via the agg tier)
};

}  // namespace

Report diff(const FabricIndex& fabric, const Witnesses& witnesses, const DiffOptions& options) {
  return Differ(fabric, witnesses, options).run();
}

}  // namespace hpn::validator
