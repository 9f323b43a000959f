// Rendering what `hpnctl devices` and `hpnctl cable` read from a blueprint:
// one row model, three forms (table, JSON, CSV).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "blueprint/store.h"

namespace hpn {

enum class OutputFormat { table, json, csv };
bool parse_format(const std::string& text, OutputFormat& out);

void render_devices(const std::vector<DeviceRow>& rows, OutputFormat format, std::ostream& out);

// Cables seen from `device`: the near end is the device's, the far end the other.
void render_cables(const std::string& device, const std::vector<CableRow>& rows,
                   OutputFormat format, std::ostream& out);

}  // namespace hpn
