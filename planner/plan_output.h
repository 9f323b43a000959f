// Writing a plan's output directory, all or nothing.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "planner/summary.h"

namespace hpn {

// Called as each file is done, for progress on a terminal.
using ProgressFn = std::function<void(const std::string& file)>;

// Can a plan be written at `dir`? Refuses '.', an existing file, and an
// existing non-empty directory that is not a plan.
Status check_plan_target(const std::string& dir);

// Writes blueprint.db, the CSV sheets, summary.json and spec.yaml into a
// temporary sibling of `dir`, then swaps it into place in one rename. An
// existing plan at `dir` is replaced; any other existing, non-empty
// directory is refused. On failure nothing at `dir` changes.
Status write_plan(const Blueprint& bp, const PlanSummary& summary, const std::string& dir,
                  const ProgressFn& progress = {});

// The sheets alone (every file but blueprint.db) into an existing directory.
Status write_sheets(const Blueprint& bp, const PlanSummary& summary, const std::filesystem::path& dir,
                    const std::function<void(const char*)>& done = {});

// The CSV sheets, each as its own function so tests and other tools (the
// lab's wiring file reader) share one definition of the columns.
void write_cabling_csv(const Blueprint& bp, std::ostream& out);
void write_devices_csv(const Blueprint& bp, std::ostream& out);

}  // namespace hpn
