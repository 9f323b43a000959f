#include "planner/reliability.h"

#include <fmt/format.h>

#include <cmath>

#include "blueprint/text_table.h"
#include "planner/impact.h"

namespace hpn {

namespace {

int cut_off_by(const Blueprint& bp, int first, Failure::Kind kind) {
  if (first < 0) return 0;
  return assess_impact(bp, {{kind, first}}).hosts_dark_on_a_rail();
}

// Three significant figures: 18.6 link failures, 0.00816 ToRs.
std::string fixed(double x) { return fmt::format("{:.3g}", x); }

}  // namespace

ExpectedFailures expect_failures(const Spec& spec, const Blueprint& bp) {
  ExpectedFailures e;
  e.rates = spec.reliability;
  e.segments = int64_t{spec.pods} * spec.pod.segments;
  e.backup_hosts_per_segment = spec.segment.backup_hosts;
  int first_link = -1, first_tor = -1;
  for (size_t i = 0; i < bp.cables.size(); ++i) {
    if (bp.cables[i].kind != CableKind::host_tor) continue;
    ++e.nic_tor_links;
    if (first_link < 0) first_link = static_cast<int>(i);
  }
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].role != Role::tor) continue;
    ++e.tors;
    if (first_tor < 0) first_tor = static_cast<int>(i);
  }
  e.hosts_cut_off_by_link = cut_off_by(bp, first_link, Failure::Kind::cable);
  e.hosts_cut_off_by_tor = cut_off_by(bp, first_tor, Failure::Kind::device);
  return e;
}

void render_expected_failures(const ExpectedFailures& e, std::ostream& out) {
  out << fmt::format("expected failures a month (reliability: {}% of NIC-ToR links, {}% of ToRs):\n",
                     e.rates.nic_tor_link_monthly_pct, e.rates.tor_monthly_pct);
  TextTable table({"failure", "planned", "a month", "per segment", "hosts one cuts off a rail"});
  table.add({"NIC-ToR link", std::to_string(e.nic_tor_links), fixed(e.links_a_month()),
             fixed(e.per_segment(e.links_a_month())), std::to_string(e.hosts_cut_off_by_link)});
  table.add({"ToR", std::to_string(e.tors), fixed(e.tors_a_month()), fixed(e.per_segment(e.tors_a_month())),
             std::to_string(e.hosts_cut_off_by_tor)});
  table.render(out, "  ");
  out << fmt::format("backup hosts per segment: {}, against {} hosts cut off a rail a month per segment",
                     e.backup_hosts_per_segment, fixed(e.hosts_cut_off_a_month_per_segment()));
  const int worst = std::max(e.hosts_cut_off_by_link, e.hosts_cut_off_by_tor);
  if (worst == 0) {
    out << " (no single failure cuts a host off a rail)\n";
  } else if (worst > e.backup_hosts_per_segment) {
    out << fmt::format("; one {} failure cuts off {} hosts, more than the segment's {} backup hosts\n",
                       e.hosts_cut_off_by_tor >= e.hosts_cut_off_by_link ? "ToR" : "NIC-ToR link", worst,
                       e.backup_hosts_per_segment);
  } else {
    out << fmt::format("; one failure cuts off at most {} hosts\n", worst);
  }
  out << fmt::format("link flaps: {} to {} a day across the paper's fleet (its size not given: not scaled)\n",
                     e.rates.link_flaps_per_day_min, e.rates.link_flaps_per_day_max);
}

nlohmann::ordered_json expected_failures_json(const ExpectedFailures& e) {
  auto r = [](double x) { return std::round(x * 1e6) / 1e6; };
  return {{"rates",
           {{"nic_tor_link_monthly_pct", e.rates.nic_tor_link_monthly_pct},
            {"tor_monthly_pct", e.rates.tor_monthly_pct},
            {"link_flaps_per_day", {{"min", e.rates.link_flaps_per_day_min}, {"max", e.rates.link_flaps_per_day_max}}}}},
          {"nic_tor_links", {{"planned", e.nic_tor_links},
                             {"failures_a_month", r(e.links_a_month())},
                             {"per_segment", r(e.per_segment(e.links_a_month()))},
                             {"hosts_cut_off_by_one", e.hosts_cut_off_by_link}}},
          {"tors", {{"planned", e.tors},
                    {"failures_a_month", r(e.tors_a_month())},
                    {"per_segment", r(e.per_segment(e.tors_a_month()))},
                    {"hosts_cut_off_by_one", e.hosts_cut_off_by_tor}}},
          {"backup_hosts_per_segment", e.backup_hosts_per_segment},
          {"hosts_cut_off_a_month_per_segment", r(e.hosts_cut_off_a_month_per_segment())}};
}

}  // namespace hpn
