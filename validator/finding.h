// What a finding is about and how bad it is: closed sets, so that a
// misspelt kind stops the build, each written as the one name that reports
// (JSON, CSV, the table) and schemas/verify-report.schema.json use.
#pragma once

#include <array>
#include <iosfwd>
#include <string_view>

namespace hpn::validator {

enum class FindingKind {
  swapped,              // two cables exchanged
  wrong_port,           // a cable on another port of the planned device
  wrong_device,         // a cable on another device
  missing,              // nothing came back either way
  unobserved,           // too little evidence to call (info)
  unplanned,            // a link no cable of the plan accounts for
  unidirectional,       // one way only
  plane_violation,      // a link across planes (HPN §6)
  rail_violation,       // a host NIC on another rail's ToR (HPN §4)
  wrong_asn,            // a BGP peer in another AS than planned
  core_rule_violation,  // a core switch forwarding against its per-port rule (HPN §7)
  lossy,                // one direction loses more than the background explains
  telemetry,            // a switch that writes no IOAM record or answers no probe
  unreached,            // a switch nothing on the fabric reached
};

// Every kind, in declaration order: what a schema's list must match.
inline constexpr std::array kFindingKinds{
    FindingKind::swapped,        FindingKind::wrong_port,      FindingKind::wrong_device,
    FindingKind::missing,        FindingKind::unobserved,      FindingKind::unplanned,
    FindingKind::unidirectional, FindingKind::plane_violation, FindingKind::rail_violation,
    FindingKind::wrong_asn,      FindingKind::core_rule_violation, FindingKind::lossy,
    FindingKind::telemetry,      FindingKind::unreached,
};

// Declared most severe first: reports list findings in this order, and
// anything above info keeps a run from being clean.
enum class Severity { critical, warning, info };

inline constexpr std::array kSeverities{Severity::critical, Severity::warning, Severity::info};

std::string_view to_string(FindingKind kind);  // "wrong-port"
std::string_view to_string(Severity severity);  // "critical"
std::ostream& operator<<(std::ostream& out, FindingKind kind);
std::ostream& operator<<(std::ostream& out, Severity severity);

}  // namespace hpn::validator
