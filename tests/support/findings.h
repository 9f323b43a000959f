// A report's findings as tests read them: shared by the validator's tests
// (one definition, so that every test file describes findings the same way).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "validator/diff.h"

namespace hpn::test {

// Every finding as "kind: message", a line each: what INFO shows when a
// check on the findings fails.
inline std::string findings_text(const validator::Report& r) {
  std::string s;
  for (const auto& f : r.findings) {
    s.append(to_string(f.severity)).append(" ").append(to_string(f.kind)).append(": ").append(f.message).append("\n");
  }
  return s;
}

// The IDs of the cables a finding names, sorted.
inline std::vector<std::string> finding_cable_ids(const Blueprint& bp, const validator::Finding& f) {
  std::vector<std::string> out;
  for (int c : f.cables) out.push_back(bp.cables[c].id);
  std::sort(out.begin(), out.end());
  return out;
}

// The findings above severity info: what makes a run not clean.
inline std::vector<const validator::Finding*> serious_findings(const validator::Report& r) {
  std::vector<const validator::Finding*> out;
  for (const auto& f : r.findings) {
    if (f.severity != validator::Severity::info) out.push_back(&f);
  }
  return out;
}

// The findings of one kind, in report order.
inline std::vector<const validator::Finding*> findings_of_kind(const validator::Report& r,
                                                               validator::FindingKind kind) {
  std::vector<const validator::Finding*> out;
  for (const auto& f : r.findings) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

}  // namespace hpn::test
