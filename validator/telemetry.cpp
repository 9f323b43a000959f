#include "validator/telemetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace hpn::validator {

namespace {

// Did some record name this switch port as its ingress?
bool wrote_on(const Witnesses& w, PortRef p) {
  if (p.device < 0 || p.port < 0) return false;
  const auto& ports = w.recorded_ingress[p.device];
  return static_cast<std::size_t>(p.port) < ports.size() && ports[p.port];
}

bool wrote_anything(const Witnesses& w, int device) {
  const auto& ports = w.recorded_ingress[device];
  return std::find(ports.begin(), ports.end(), true) != ports.end();
}

// "etp1a, etp1b and etp2a", or the first five and how many more.
std::string port_list(const std::vector<std::string>& ports) {
  constexpr std::size_t kShown = 5;
  std::string out;
  const std::size_t shown = std::min(ports.size(), kShown);
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i == 0 ? "" : i + 1 == shown && ports.size() <= kShown ? " and " : ", ") + ports[i];
  }
  if (ports.size() > kShown) out += fmt::format(" and {} more", ports.size() - kShown);
  return out;
}

std::string traces(std::int64_t n) { return fmt::format("{} {}", n, n == 1 ? "trace" : "traces"); }

// The gap's first switch, unless a record of that switch on that very
// port contradicts it: then the plan does not explain the gap.
PortRef explained_start(const FabricIndex& f, const Witnesses& w, PortRef from, PortRef to) {
  const PortRef start = gap_start(f, from, to);
  return wrote_on(w, start) ? PortRef{} : start;
}

}  // namespace

bool switch_silence_is_evidence(const Blueprint& bp, int device, std::int64_t probes, const probe::SilenceRule& rule) {
  probe::ProbesByReach by_reach{};
  by_reach[static_cast<int>(bp.devices[device].role == Role::core ? probe::Reach::agg : probe::Reach::tor)] = probes;
  return probes > 0 && probe::silence_is_evidence(by_reach, rule);
}

std::string gap_reason(const FabricIndex& f, const Witnesses& w, const std::vector<PortRef>& silent) {
  const Blueprint& bp = f.blueprint();
  std::map<int, std::set<std::string>> by_switch;  // switch -> its ports named ("" when not known)
  bool unknown = false;
  for (const PortRef p : silent) {
    if (p.device < 0 || wrote_on(w, p)) {
      unknown = true;
      continue;
    }
    auto& ports = by_switch[p.device];
    if (p.port >= 0) ports.insert(f.port(p).name);
  }
  std::vector<std::string> clauses;
  for (const auto& [device, ports] : by_switch) {
    const std::string& name = bp.devices[device].name;
    if (!wrote_anything(w, device)) {
      clauses.push_back(fmt::format("switch {} wrote no telemetry at all", name));
    } else if (ports.empty()) {
      clauses.push_back(fmt::format("switch {} wrote no telemetry", name));
    } else {
      clauses.push_back(fmt::format("switch {} wrote no telemetry on {} {}", name, ports.size() == 1 ? "port" : "ports",
                                    port_list({ports.begin(), ports.end()})));
    }
  }
  if (unknown || clauses.empty()) clauses.push_back("a switch next to it wrote no telemetry");
  return fmt::format("{}", fmt::join(clauses, " and "));
}

std::vector<Finding> telemetry_findings(const FabricIndex& f, const Witnesses& w, const probe::SilenceRule& rule) {
  const Blueprint& bp = f.blueprint();
  std::vector<Finding> out;
  // Per switch: its silent ports (port -1: one the plan cannot tell) and
  // the traces each left a gap in; and the gaps no one switch explains.
  std::map<int, std::map<int, std::int64_t>> silent;
  std::map<std::pair<PortRef, PortRef>, std::int64_t> unexplained;
  for (const auto& [gap, n] : w.gaps) {
    const PortRef start = explained_start(f, w, gap.first, gap.second);
    if (start.device >= 0) silent[start.device][start.port] += n;
    else unexplained[gap] += n;
  }
  for (const auto& [device, ports] : silent) {
    const Device& d = bp.devices[device];
    const std::string sysctl = fmt::format("hpnctl config {} --format sysctl", d.name);
    if (!wrote_anything(w, device)) {
      // The whole switch: its node's IOAM, not a port's.
      std::int64_t total = 0;
      std::vector<std::string> names;
      for (const auto& [port, n] : ports) {
        total += n;
        if (port >= 0) names.push_back(f.port({device, port}).name);
      }
      Finding finding{FindingKind::telemetry, Severity::warning, {},
                      fmt::format("{} writes an IOAM record into each probe it forwards", d.name),
                      fmt::format("{} crossed it with no record of it", traces(total)),
                      fmt::format("switch {} wrote no telemetry at all: {} crossed it{} and none carries a record of "
                                  "it, so the cables they crossed there cannot be verified; enable IOAM on it: its "
                                  "node ID (net.ipv6.ioam6_id={}), the IOAM namespace, and ioam6_enabled=1 with the "
                                  "port's ID on every port ({} lists them)",
                                  d.name, traces(total),
                                  names.empty() ? "" : " (entering on " + port_list(names) + ")", d.node_id, sysctl),
                      std::nullopt, d.name, names};
      out.push_back(std::move(finding));
      continue;
    }
    for (const auto& [port, n] : ports) {
      if (port < 0) {
        out.push_back({FindingKind::telemetry, Severity::warning, {},
                       fmt::format("{} writes an IOAM record into each probe it forwards", d.name),
                       fmt::format("{} crossed it with no record of it", traces(n)),
                       fmt::format("switch {} wrote no telemetry into {} that crossed it, on a port the plan cannot "
                                   "tell, so the cables they crossed there cannot be verified; check that every port "
                                   "of it has IOAM enabled ({} lists them)",
                                   d.name, traces(n), sysctl),
                       std::nullopt, d.name, {}});
        continue;
      }
      const PanelPort& p = f.port({device, port});
      out.push_back({FindingKind::telemetry, Severity::warning, {},
                     fmt::format("{}:{} writes an IOAM record into each probe that enters it", d.name, p.name),
                     fmt::format("{} entered it with no record of {}", traces(n), d.name),
                     fmt::format("switch {} wrote no telemetry on port {}: {} that entered there carry no record of "
                                 "it, so the cables they crossed there cannot be verified; enable IOAM on that port: "
                                 "net.ipv6.conf.{}.ioam6_enabled=1 and net.ipv6.conf.{}.ioam6_id={} ({})",
                                 d.name, p.name, traces(n), p.name, p.name, p.port_id, sysctl),
                     std::nullopt, d.name, {p.name}});
    }
  }
  for (const auto& [gap, n] : unexplained) {
    const auto& [from, to] = gap;
    const std::string after = to.valid() ? "were next seen entering " + f.name(to) : "carry no record after it";
    out.push_back({FindingKind::telemetry, Severity::warning, {},
                   fmt::format("a record of every switch after {}", f.name(from)),
                   fmt::format("{} with none before {}", traces(n), to.valid() ? f.name(to) : "their end"),
                   fmt::format("{} left {} and {} with no record between, and the plan puts no one switch there that "
                               "wrote none: a switch on their path wrote no telemetry, or a cable there is not where "
                               "the plan has it; enable IOAM on every switch port (hpnctl config SWITCH --format "
                               "sysctl) and verify again",
                               traces(n), f.name(from), after),
                   std::nullopt, "", {}});
  }
  // Switches alive by other evidence that answered no switch probe: their
  // ICMPv6 errors are dropped or policed to nothing.
  for (const auto& [device, sent] : w.switch_probes_sent) {
    if (w.probed_switches.count(device) || !w.device_answered[device]) continue;
    if (!switch_silence_is_evidence(bp, device, sent, rule)) continue;
    const Device& d = bp.devices[device];
    out.push_back({FindingKind::telemetry, Severity::warning, {},
                   fmt::format("{} answers switch probes (ICMPv6 destination unreachable)", d.name),
                   fmt::format("none of {} switch probes answered", sent),
                   fmt::format("switch {} answered none of the {} switch probes sent to it, although other evidence "
                               "shows it up: it sends no ICMPv6 errors, or polices them to nothing (a control-plane "
                               "policer, net.ipv6.icmp.ratelimit, a filter); let it answer the probing hosts, or the "
                               "cables only switch probes reach cannot be verified",
                               d.name, sent),
                   std::nullopt, d.name, {}});
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.device, a.ports) < std::tie(b.device, b.ports);
  });
  return out;
}

}  // namespace hpn::validator
