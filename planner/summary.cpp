#include "planner/summary.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "blueprint/text_table.h"
#include "planner/topology.h"

namespace hpn {

PlanSummary summarize(const Spec& spec, const Topology& t, const Blueprint& bp) {
  PlanSummary s;
  s.name = spec.name;
  s.pods = spec.pods;
  s.pods_planned = spec.core.pods_planned;
  s.segments_per_pod = spec.pod.segments;
  s.dual_tor = spec.segment.dual_tor;
  s.planes = spec.pod.planes;

  std::map<Role, int64_t> roles;
  for (const auto& d : bp.devices) ++roles[d.role];
  for (Role r : {Role::host, Role::tor, Role::agg, Role::core, Role::frontend}) {
    if (roles.count(r)) s.devices.push_back({std::string(to_string(r)), roles[r]});
  }
  std::map<CableKind, PlanSummary::CableCount> kinds;
  for (const auto& c : bp.cables) {
    auto& k = kinds[c.kind];
    (c.state == State::active ? k.active : k.backup)++;
    s.cable_metres += c.length_m;
  }
  for (auto& [kind, count] : kinds) {
    count.kind = std::string(to_string(kind));
    s.cables.push_back(count);
  }
  s.cable_count = static_cast<int64_t>(bp.cables.size());

  s.per_segment = {int64_t{spec.segment.active_hosts} * spec.host.gpus,
                   int64_t{spec.segment.backup_hosts} * spec.host.gpus};
  s.per_pod = {s.per_segment.active * spec.pod.segments, s.per_segment.backup * spec.pod.segments};
  s.fabric = {s.per_pod.active * spec.pods, s.per_pod.backup * spec.pods};

  double tor_up = double(spec.tor.uplinks) * spec.tor.port_speed_gbps;
  double per_host = double(t.tor_ports_per_host) * spec.host.port_speed_gbps;
  s.tor_oversubscription = spec.segment.active_hosts * per_host / tor_up;
  s.tor_oversubscription_backup = spec.segment.hosts() * per_host / tor_up;
  s.agg_oversubscription = double(spec.aggregation.downlinks) / spec.aggregation.uplinks;
  if (t.fe_sides > 0 && spec.frontend.uplinks > 0) {
    s.frontend_oversubscription = double(spec.frontend.hosts_per_leaf_pair) * spec.host.port_speed_gbps /
                                  (double(spec.frontend.uplinks) * spec.frontend.port_speed_gbps);
  }
  s.cores_per_plane = t.cores_per_plane;
  s.core_ports_per_pod = t.core_ports_per_pod;
  for (const auto& r : bp.core_rules) (r.status == "active" ? s.core_rules_active : s.core_rules_reserved)++;
  for (const auto& b : bp.bom) {
    if (b.category == "optic") s.optic_count += b.count;
  }
  s.bom = bp.bom;
  s.warnings = static_cast<int64_t>(bp.warnings.size());
  s.failures = expect_failures(spec, bp);
  s.notes = plan_notes(spec, bp);
  return s;
}

std::vector<PlanSummary::Note> plan_notes(const Spec& spec, const Blueprint& bp) {
  std::vector<PlanSummary::Note> notes;
  // Warnings by cause, in the order the causes first occur.
  std::vector<std::string> causes;
  std::map<std::string, std::pair<int64_t, const Warning*>> by_cause;
  for (const auto& w : bp.warnings) {
    auto [it, fresh] = by_cause.emplace(w.cause, std::pair<int64_t, const Warning*>{0, &w});
    if (fresh) causes.push_back(w.cause);
    ++it->second.first;
  }
  for (const auto& cause : causes) {
    const auto& [count, first] = by_cause[cause];
    notes.push_back({"warning", cause, count,
                     count == 1 ? fmt::format("cable {}: {}", first->cable, first->message)
                                : fmt::format("{} cables ({}), e.g. cable {}: {}; all in warnings.csv", grouped(count),
                                              cause, first->cable, first->message)});
  }
  // Information: runs past the multimode reach that the rules put on
  // single-mode, by kind; runs through the panels.
  std::map<CableKind, int64_t> single_mode;
  int64_t patched = 0;
  std::set<int> panels;  // those a patched run goes through
  for (const auto& leg : bp.legs) panels.insert(leg.from_panel == kNone ? leg.to_panel : leg.from_panel);
  for (const auto& c : bp.cables) {
    if (c.media == "smf" && c.length_m > spec.media.multimode_limit_m) ++single_mode[c.kind];
    if (c.patched()) ++patched;
  }
  for (const auto& [kind, count] : single_mode) {
    notes.push_back({"info", "single-mode", count,
                     fmt::format("{} {} run{} over {} m use single-mode, as planned", grouped(count), to_string(kind),
                                 count == 1 ? "" : "s", spec.media.multimode_limit_m)});
  }
  if (patched > 0) {
    notes.push_back({"info", "patched", patched,
                     fmt::format("{} fibre run{} over {} m go through {} patch panels and {} trunks (legs.csv)",
                                 grouped(patched), patched == 1 ? "" : "s", spec.media.patch_beyond_m,
                                 panels.size(), grouped(int64_t(bp.trunks.size())))});
  }
  return notes;
}

namespace {

std::string ratio(double r) { return fmt::format("{:.3f}:1", r); }
std::string num(int64_t n) { return std::to_string(n); }

}  // namespace

void render_summary(const PlanSummary& s, const std::string& out_dir, std::ostream& out) {
  out << fmt::format("plan '{}': {} pod{} of {} segments, {}, {}; core sized for {} pods\n", s.name,
                     s.pods, s.pods == 1 ? "" : "s", s.segments_per_pod,
                     s.dual_tor ? "dual-ToR" : "single-ToR",
                     s.planes == 2 ? "dual-plane" : "single-plane", s.pods_planned);
  out << fmt::format("written to {}/\n\n", out_dir);

  TextTable devices({"devices", "count"});
  for (const auto& [role, count] : s.devices) devices.add({role, num(count)});
  devices.render(out);
  out << '\n';

  TextTable cables({"cables", "active", "backup", "total"});
  for (const auto& c : s.cables) cables.add({c.kind, num(c.active), num(c.backup), num(c.active + c.backup)});
  cables.render(out);
  out << '\n';

  TextTable gpus({"GPUs", "active", "backup"});
  gpus.add({"per segment", num(s.per_segment.active), num(s.per_segment.backup)});
  gpus.add({"per pod", num(s.per_pod.active), num(s.per_pod.backup)});
  gpus.add({"fabric", num(s.fabric.active), num(s.fabric.backup)});
  gpus.render(out);
  out << '\n';

  TextTable over({"oversubscription", "down:up"});
  over.add({"ToR", ratio(s.tor_oversubscription)});
  over.add({"ToR, backups in use", ratio(s.tor_oversubscription_backup)});
  over.add({"aggregation to core", ratio(s.agg_oversubscription)});
  if (s.frontend_oversubscription > 0) over.add({"front-end leaf", ratio(s.frontend_oversubscription)});
  over.render(out);
  out << fmt::format("\ncore: {} switches per plane, {} ports per pod; rules {} active, {} reserved\n\n",
                     s.cores_per_plane, s.core_ports_per_pod, s.core_rules_active,
                     s.core_rules_reserved);

  TextTable bom({"bill of materials", "media", "count"});
  std::map<std::pair<std::string, std::string>, int64_t> totals;  // cables summed over lengths
  for (const auto& b : s.bom) totals[{b.category == "cable" ? "cable: " + b.part : b.category + ": " + b.part, b.media}] += b.count;
  for (const auto& [key, count] : totals) bom.add({key.first, key.second, num(count)});
  bom.render(out);
  out << '\n';
  render_expected_failures(s.failures, out);
  out << fmt::format("\n{} cables, {} m in all; {} optics; by length in bom.csv\n", s.cable_count,
                     s.cable_metres, s.optic_count);
  for (const auto& n : s.notes) out << fmt::format("{}: {}\n", n.severity == "info" ? "note" : "warning", n.text);
}

nlohmann::ordered_json summary_json(const PlanSummary& s) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["pods"] = s.pods;
  j["pods_planned"] = s.pods_planned;
  j["segments_per_pod"] = s.segments_per_pod;
  j["dual_tor"] = s.dual_tor;
  j["planes"] = s.planes;
  auto& devices = j["devices"] = nlohmann::ordered_json::object();
  for (const auto& [role, count] : s.devices) devices[role] = count;
  auto& cables = j["cables"] = nlohmann::ordered_json::object();
  for (const auto& c : s.cables) {
    cables[c.kind] = {{"active", c.active}, {"backup", c.backup}, {"total", c.active + c.backup}};
  }
  auto gpus = [](const PlanSummary::Gpus& g) {
    return nlohmann::ordered_json{{"active", g.active}, {"backup", g.backup}};
  };
  j["gpus"] = {{"per_segment", gpus(s.per_segment)}, {"per_pod", gpus(s.per_pod)}, {"fabric", gpus(s.fabric)}};
  auto r = [](double x) { return std::round(x * 1000) / 1000; };
  j["oversubscription"] = {{"tor", r(s.tor_oversubscription)},
                           {"tor_with_backups", r(s.tor_oversubscription_backup)},
                           {"aggregation_to_core", r(s.agg_oversubscription)}};
  if (s.frontend_oversubscription > 0) j["oversubscription"]["frontend_leaf"] = r(s.frontend_oversubscription);
  j["core"] = {{"switches_per_plane", s.cores_per_plane},
               {"ports_per_pod", s.core_ports_per_pod},
               {"rules_active", s.core_rules_active},
               {"rules_reserved", s.core_rules_reserved}};
  auto& bom = j["bom"] = nlohmann::ordered_json::array();
  for (const auto& b : s.bom) {
    nlohmann::ordered_json line{{"category", b.category}, {"part", b.part}};
    line["media"] = b.media.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(b.media);
    line["length_m"] = b.length_m ? nlohmann::ordered_json(b.length_m) : nlohmann::ordered_json();
    line["count"] = b.count;
    if (!b.fibre.empty()) {
      line["fibre"] = b.fibre;
      line["connector"] = b.connector;
      line["polarity"] = b.polarity;
    }
    bom.push_back(line);
  }
  j["totals"] = {{"cables", s.cable_count}, {"cable_metres", s.cable_metres}, {"optics", s.optic_count}};
  j["warnings"] = s.warnings;
  j["expected_failures"] = expected_failures_json(s.failures);
  auto& notes = j["notes"] = nlohmann::ordered_json::array();
  for (const auto& n : s.notes) {
    notes.push_back({{"severity", n.severity}, {"cause", n.cause}, {"count", n.count}, {"text", n.text}});
  }
  return j;
}

}  // namespace hpn
