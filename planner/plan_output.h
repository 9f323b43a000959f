// Writing a plan's output directory, all or nothing.
#pragma once

#include <array>
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

// cabling.csv's header. Its readers key columns by name, so new columns go
// at the end: where each end is (rack and unit, as racks.csv and
// devices.csv name them), and the stocked cord to pull beside length_m's
// estimate (Cable::stock_length_m); then the structured cabling: the legs
// of the run (1 for a direct cord, 3 or 5 through panels, listed in
// legs.csv) and the panel port each end's cord plugs into.
inline constexpr std::array<const char*, 20> kCablingColumns = {
    "cable_id", "kind",  "a_device", "a_port", "z_device", "z_port", "speed_gbps", "state", "length_m",
    "media",    "label_a", "label_z", "a_rack", "a_ru",    "z_rack", "z_ru",       "stock_length_m",
    "legs",     "a_panel", "z_panel"};

// legs.csv's header: every leg of every patched run, from its a-end.
inline constexpr std::array<const char*, 12> kLegColumns = {
    "cable_id", "leg", "kind", "from", "to", "trunk_id", "lane", "length_m", "stock_length_m",
    "fibre", "connector", "polarity"};

// The CSV sheets, each as its own function so tests and other tools (the
// lab's wiring file reader) share one definition of the columns.
void write_cabling_csv(const Blueprint& bp, std::ostream& out);
void write_devices_csv(const Blueprint& bp, std::ostream& out);
void write_legs_csv(const Blueprint& bp, std::ostream& out);

}  // namespace hpn
