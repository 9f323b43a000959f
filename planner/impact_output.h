// Rendering an ImpactReport (planner/impact.h): a table for a person, JSON
// (schemas/impact.schema.json) for a script. One model, two forms.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "blueprint/model.h"
#include "planner/impact.h"

namespace hpn {

// "6.25%": the share `lost` is of `total`, to two decimals.
std::string percent(int64_t lost, int64_t total);

void render_impact_table(const Blueprint& bp, const ImpactReport& report, std::ostream& out);
nlohmann::ordered_json impact_json(const Blueprint& bp, const ImpactReport& report);

}  // namespace hpn
