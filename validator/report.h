// Rendering a verify Report: a table for people, JSON and CSV for scripts
// (schemas/verify-report.schema.json). One model, three forms.
#pragma once

#include <ostream>

#include "blueprint/render.h"
#include "validator/diff.h"

namespace hpn::validator {

void render_report(const Report& report, const FabricIndex& fabric, OutputFormat format,
                   std::ostream& out);

}  // namespace hpn::validator
