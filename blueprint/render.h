// Rendering what `hpnctl devices`, `hpnctl cables` and `hpnctl cable` read from a blueprint:
// one row model, three forms (table, JSON, CSV).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "blueprint/pull_list.h"
#include "blueprint/store.h"

namespace hpn {

enum class OutputFormat { table, json, csv };
bool parse_format(const std::string& text, OutputFormat& out);

void render_devices(const std::vector<DeviceRow>& rows, OutputFormat format, std::ostream& out);

// Cables seen from `device`: the near end is the device's, the far end the other.
void render_cables(const std::string& device, const std::vector<CableRow>& rows,
                   OutputFormat format, std::ostream& out);

// A pull list (`hpnctl cables`): per cable the near end (rack, device, unit,
// port), the far end (rack, unit, device, port), the cable and its near
// end's label, and the stocked cord (media, speed, stock length) beside the
// estimated run.
void render_pull_list(const std::vector<PullEntry>& entries, OutputFormat format, std::ostream& out);

}  // namespace hpn
