#include "validator/finding.h"

#include <ostream>

namespace hpn::validator {

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::swapped: return "swapped";
    case FindingKind::wrong_port: return "wrong-port";
    case FindingKind::wrong_device: return "wrong-device";
    case FindingKind::missing: return "missing";
    case FindingKind::unobserved: return "unobserved";
    case FindingKind::unplanned: return "unplanned";
    case FindingKind::unidirectional: return "unidirectional";
    case FindingKind::plane_violation: return "plane-violation";
    case FindingKind::rail_violation: return "rail-violation";
    case FindingKind::wrong_asn: return "wrong-asn";
    case FindingKind::core_rule_violation: return "core-rule-violation";
    case FindingKind::lossy: return "lossy";
    case FindingKind::telemetry: return "telemetry";
    case FindingKind::unreached: return "unreached";
  }
  return "?";
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::critical: return "critical";
    case Severity::warning: return "warning";
    case Severity::info: return "info";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, FindingKind kind) { return out << to_string(kind); }
std::ostream& operator<<(std::ostream& out, Severity severity) { return out << to_string(severity); }

}  // namespace hpn::validator
