// What a person wants to know about a plan at a glance: counts, GPUs,
// oversubscription per tier, bill-of-materials totals. One model, rendered
// as text or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "planner/reliability.h"
#include "planner/spec.h"
#include "planner/topology.h"

namespace hpn {

struct PlanSummary {
  std::string name;
  int pods = 0;
  int pods_planned = 0;
  int segments_per_pod = 0;
  bool dual_tor = true;
  int planes = 0;
  std::vector<std::pair<std::string, int64_t>> devices;  // by role, in tier order
  struct CableCount {
    std::string kind;
    int64_t active = 0, backup = 0;
  };
  std::vector<CableCount> cables;
  struct Gpus {
    int64_t active = 0, backup = 0;
  };
  Gpus per_segment, per_pod, fabric;
  double tor_oversubscription = 0;         // down:up with the active hosts
  double tor_oversubscription_backup = 0;  // with the backup hosts in use too
  double agg_oversubscription = 0;         // toward the core
  double frontend_oversubscription = 0;    // 0 without a front end
  int cores_per_plane = 0;
  int core_ports_per_pod = 0;
  int64_t core_rules_active = 0, core_rules_reserved = 0;
  int64_t cable_count = 0, optic_count = 0, cable_metres = 0;
  std::vector<BomLine> bom;
  int64_t warnings = 0;
  ExpectedFailures failures;  // a month, from the spec's reliability: rates
  // What the plan says about itself, one line per cause with its count:
  // warnings (the chosen media cannot reach) and information (long runs
  // on single-mode, runs through patch panels), so 6,720 runs planned
  // correctly are one line, not 6,720 warnings.
  struct Note {
    std::string severity;  // "warning" | "info"
    std::string cause;     // a warning's Warning::cause; "single-mode", "patched" for information
    int64_t count = 0;
    std::string text;
  };
  std::vector<Note> notes;
};

// `topology` is derive_topology(spec), as the check and the expansion had it.
PlanSummary summarize(const Spec& spec, const Topology& topology, const Blueprint& bp);
// The notes of summarize(), warnings first.
std::vector<PlanSummary::Note> plan_notes(const Spec& spec, const Blueprint& bp);
void render_summary(const PlanSummary& summary, const std::string& out_dir, std::ostream& out);
nlohmann::ordered_json summary_json(const PlanSummary& summary);

}  // namespace hpn
