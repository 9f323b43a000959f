// The verdict's pipeline, in one place: a blueprint and the evidence
// gathered for it (probe observations, LLDP and BGP dumps) in, a Report
// out. `hpnctl verify` reads or gathers the evidence (files, or a lab it
// builds), calls verify() and renders; nothing here does I/O.
//
//   observations -> witnessed links and loss evidence (witness.h)
//   + LLDP neighbours (lldp.h) + BGP sessions (bgp.h)
//   -> the diff against the plan (diff.h): missing, miswired and unplanned
//      links, telemetry gaps (telemetry.h), core rules, and lossy
//      directions from the loss estimate (loss_estimate.h)
#pragma once

#include <string>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/result.h"
#include "probe/observation.h"
#include "validator/bgp.h"
#include "validator/diff.h"
#include "validator/lldp.h"

namespace hpn::validator {

// What was gathered about a fabric. Any part may be empty.
struct Evidence {
  probe::ObservationSet observations;
  std::vector<LldpDump> lldp;
  std::vector<BgpDump> bgp;
};

struct VerifyOptions {
  DiffOptions diff;
  LldpMatch lldp_match = LldpMatch::port_description;
  // How errors name the plan ("none of ... names a host of PLAN").
  std::string plan_name = "the plan";
};

// Errors are input errors: observations none of which names a host of the
// plan (most likely another plan's), or an LLDP or BGP dump of a device
// the plan lacks or given twice (located, as lldp.h and bgp.h word them).
Result<Report> verify(const FabricIndex& fabric, const Evidence& evidence, const VerifyOptions& options);

}  // namespace hpn::validator
