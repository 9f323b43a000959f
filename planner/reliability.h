// The failures a month a plan should expect (`hpnctl plan`), from the spec's
// rates (reliability:, the HPN paper's fleet by default: 0.057% of NIC-ToR
// links and 0.051% of ToRs a month, HPN §2 Figure 5), and what each costs
// against the backup hosts a segment keeps (HPN §5: 8 per segment, to take
// over from a host that fails).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>

#include "blueprint/model.h"
#include "planner/spec.h"

namespace hpn {

struct ExpectedFailures {
  ReliabilitySpec rates;
  int64_t nic_tor_links = 0;  // planned host-ToR cables, backup hosts' included
  int64_t tors = 0;
  int64_t segments = 0;       // in the fabric
  int backup_hosts_per_segment = 0;
  // Hosts one failure cuts off a rail (every path on it gone), from
  // assess_impact() on the plan's first host cable and first ToR: the
  // expansion wires every segment alike, so one of each stands for all.
  int hosts_cut_off_by_link = 0;
  int hosts_cut_off_by_tor = 0;

  double links_a_month() const { return double(nic_tor_links) * rates.nic_tor_link_monthly_pct / 100; }
  double tors_a_month() const { return double(tors) * rates.tor_monthly_pct / 100; }
  double per_segment(double fabric) const { return segments == 0 ? 0 : fabric / double(segments); }
  // Hosts a month, per segment, that a backup host has to stand in for.
  double hosts_cut_off_a_month_per_segment() const {
    return per_segment(links_a_month() * hosts_cut_off_by_link + tors_a_month() * hosts_cut_off_by_tor);
  }
};

ExpectedFailures expect_failures(const Spec& spec, const Blueprint& bp);
void render_expected_failures(const ExpectedFailures& e, std::ostream& out);
nlohmann::ordered_json expected_failures_json(const ExpectedFailures& e);

}  // namespace hpn
