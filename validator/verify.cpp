#include "validator/verify.h"

#include <fmt/format.h>

#include <utility>

#include "validator/witness.h"

namespace hpn::validator {

Result<Report> verify(const FabricIndex& fabric, const Evidence& evidence, const VerifyOptions& options) {
  Witnesses witnesses = collect_witnesses(fabric, evidence.observations);
  // Observations that name no device of this plan are no evidence about
  // it: most likely another plan's.
  if (!evidence.observations.empty() && witnesses.probed_hosts.empty()) {
    return Error{fmt::format(
        "none of the {} observation records names a host of {} (the first names '{}'): are they from another plan?",
        evidence.observations.size(), options.plan_name,
        witnesses.unknown_devices.empty() ? std::string("-") : *witnesses.unknown_devices.begin())};
  }
  if (auto added = add_lldp_witnesses(fabric, evidence.lldp, options.lldp_match, witnesses); !added) {
    return added.error();
  }
  if (auto added = add_bgp_witnesses(fabric, evidence.bgp, witnesses); !added) return added.error();
  return diff(fabric, witnesses, options.diff);
}

}  // namespace hpn::validator
