#include "validator/report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string_view>
#include <nlohmann/json.hpp>

#include "blueprint/csv.h"
#include "blueprint/text_table.h"

namespace hpn::validator {
namespace {

using ordered_json = nlohmann::ordered_json;

// The count of findings per kind, in the order of the kinds' names: the
// order reports have always listed them in.
std::map<std::string_view, int64_t> by_name(const std::map<FindingKind, int64_t>& by_kind) {
  std::map<std::string_view, int64_t> out;
  for (const auto& [kind, n] : by_kind) out[to_string(kind)] = n;
  return out;
}

std::string cable_list(const Finding& f, const Blueprint& bp) {
  std::string s;
  for (int c : f.cables) s += (s.empty() ? "" : " ") + bp.cables[c].id;
  return s.empty() ? "-" : s;
}

ordered_json direction(const DirectionEvidence& d) { return {{"sent", d.sent}, {"received", d.received}}; }

ordered_json coverage_json(const Report::Summary& s) {
  ordered_json out = ordered_json::object();
  for (const auto& [kind, c] : s.coverage) {
    out[kind] = {{"in_scope", c.in_scope}, {"verified", c.verified}, {"unobserved", c.unobserved},
                 {"out_of_scope", c.out_of_scope}};
  }
  return out;
}

// Why a run without findings is still not clean, in one clause; empty when it is.
std::string not_clean_because(const Report& r) {
  const auto& s = r.summary;
  if (s.cables_in_scope == 0) return "no cable was in scope: nothing was verified";
  if (s.cables_verified < s.cables_in_scope) {
    return fmt::format("{} of the {} cables in scope were not verified both ways", s.cables_in_scope - s.cables_verified,
                       s.cables_in_scope);
  }
  return "";
}

ordered_json to_json(const Report& r, const Blueprint& bp) {
  ordered_json j;
  auto& findings = j["findings"] = ordered_json::array();
  for (const auto& f : r.findings) {
    ordered_json item{{"kind", std::string(to_string(f.kind))}, {"severity", std::string(to_string(f.severity))}};
    auto& cables = item["cables"] = ordered_json::array();
    auto& labels = item["labels"] = ordered_json::array();
    auto evidence = ordered_json::object();
    for (int c : f.cables) {
      const Cable& cable = bp.cables[c];
      cables.push_back(cable.id);
      labels.push_back({{"cable", cable.id}, {"label_a", cable_label(bp, cable, true)},
                        {"label_z", cable_label(bp, cable, false)}});
      evidence[cable.id] = {{"a_to_z", direction(r.evidence[c].dir[0])},
                            {"z_to_a", direction(r.evidence[c].dir[1])}};
    }
    if (!f.device.empty()) item["device"] = f.device;
    if (!f.ports.empty()) item["ports"] = f.ports;
    item["expected"] = f.expected;
    item["observed"] = f.observed;
    item["evidence"] = evidence;
    item["message"] = f.message;
    if (f.loss) {
      // Rates rounded to 1e-6: the same digits on every machine.
      auto r = [](double x) { return std::round(x * 1e6) / 1e6; };
      item["loss"] = {{"direction", f.loss->direction == 0 ? "a_to_z" : "z_to_a"},
                      {"rate", r(f.loss->rate)},
                      {"interval", {r(f.loss->low), r(f.loss->high)}},
                      {"attempts", f.loss->attempts},
                      {"lost", f.loss->lost},
                      {"baseline", r(f.loss->baseline)}};
    }
    findings.push_back(item);
  }
  const auto& s = r.summary;
  ordered_json kinds = ordered_json::object();
  for (const auto& [kind, n] : by_name(s.by_kind)) kinds[std::string(kind)] = n;
  j["summary"] = {{"clean", r.clean()},
                  {"observations", s.observations},
                  {"received", s.received},
                  {"lost", s.lost},
                  {"unreadable_hops", s.unreadable_hops},
                  {"cables_in_scope", s.cables_in_scope},
                  {"cables_verified", s.cables_verified},
                  {"cables_out_of_scope", s.cables_out_of_scope},
                  {"coverage", coverage_json(s)},
                  {"loss", {{"baseline", std::round(s.baseline_loss * 1e6) / 1e6},
                            {"directions_tested", s.loss_directions_tested},
                            {"undecided", s.loss_undecided},
                            {"judged", s.loss_judged}}},
                  {"findings", kinds}};
  j["unknown_devices"] = r.unknown_devices;
  return j;
}

}  // namespace

void render_report(const Report& r, const FabricIndex& fabric, OutputFormat format, std::ostream& out) {
  const Blueprint& bp = fabric.blueprint();
  if (format == OutputFormat::json) {
    out << to_json(r, bp).dump(2) << '\n';
    return;
  }
  if (format == OutputFormat::csv) {
    CsvWriter w(out);
    w.row({"kind", "severity", "cables", "expected", "observed", "a_to_z_sent", "a_to_z_received",
           "z_to_a_sent", "z_to_a_received", "message"});
    for (const auto& f : r.findings) {
      DirectionEvidence az, za;
      for (int c : f.cables) {
        az.sent += r.evidence[c].dir[0].sent;
        az.received += r.evidence[c].dir[0].received;
        za.sent += r.evidence[c].dir[1].sent;
        za.received += r.evidence[c].dir[1].received;
      }
      w.field(to_string(f.kind)).field(to_string(f.severity)).field(cable_list(f, bp)).field(f.expected).field(f.observed);
      w.field(az.sent).field(az.received).field(za.sent).field(za.received).field(f.message);
      w.end_row();
    }
    return;
  }
  if (!r.findings.empty()) {
    TextTable table({"severity", "kind", "cables", "finding"});
    for (const auto& f : r.findings) {
      table.add({std::string(to_string(f.severity)), std::string(to_string(f.kind)), cable_list(f, bp), f.message});
    }
    table.render(out);
    out << '\n';
  }
  const auto& s = r.summary;
  out << fmt::format("{}: {} cables in scope, {} verified both ways; {} findings",
                     r.clean() ? "clean" : "NOT CLEAN", s.cables_in_scope, s.cables_verified,
                     r.findings.size());
  std::string kinds;
  for (const auto& [kind, n] : by_name(s.by_kind)) kinds += fmt::format("{}{} {}", kinds.empty() ? " (" : ", ", n, kind);
  out << kinds << (kinds.empty() ? "" : ")") << '\n';
  std::string per_kind;
  for (const auto& [kind, c] : s.coverage) {
    per_kind += fmt::format("{}{} {}/{} verified{}", per_kind.empty() ? "" : ", ", kind, c.verified, c.in_scope,
                            c.unobserved ? fmt::format(" ({} unobserved)", c.unobserved) : "");
  }
  if (!per_kind.empty()) out << "coverage: " << per_kind << '\n';
  if (const std::string why = not_clean_because(r); !why.empty() && !r.clean()) out << "not clean: " << why << '\n';
  if (s.loss_directions_tested > 0 || s.loss_undecided > 0) {
    out << fmt::format("loss: background {:.2f}% per cable, {} directions measured", 100 * s.baseline_loss,
                       s.loss_directions_tested);
    if (!s.loss_judged) {
      out << "; not judged: the background is above --lossy-max-background, no cable is named lossy";
    } else if (s.loss_undecided > 0) {
      out << fmt::format("; {} undecided: too few attempts to rule out a loss of --lossy-detect there "
                         "(summary.loss in --format json); probe again, or raise --lossy-budget",
                         s.loss_undecided);
    }
    out << '\n';
  }
  out << fmt::format("{} observations, {} received, {} lost; {} cables outside the probed scope\n",
                     s.observations, s.received, s.lost, s.cables_out_of_scope);
  if (!r.unknown_devices.empty()) {
    out << fmt::format("{} device names in the observations are not in the blueprint (first: {})\n",
                       r.unknown_devices.size(), r.unknown_devices.front());
  }
}

}  // namespace hpn::validator
