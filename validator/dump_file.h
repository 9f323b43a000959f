// What the neighbour-table readers share (--lldp, --bgp): the DEVICE=FILE
// argument, the bounded read of a dump, JSON errors with line and column,
// and a device named by a dump, short or fully qualified.
#pragma once

#include <string>
#include <string_view>

#include "blueprint/fabric_index.h"
#include "blueprint/result.h"

namespace hpn::validator {

// `DEVICE=FILE`, or `FILE` whose name is DEVICE.json (the directory and a
// final ".json" stripped). A prefix with a '/' is part of a path, so a file
// whose name holds '=' is given as ./NAME. `option` names the flag in errors.
struct DumpSource {
  std::string device;
  bool device_from_file_name = false;
  std::string path;
};
Result<DumpSource> parse_dump_argument(std::string_view argument, std::string_view option);

// The file's bytes: a regular file of at most 64 MB (a 128-port switch's
// dump is a few hundred kB).
Result<std::string> read_dump_bytes(const std::string& path, std::string_view what);

// A located "not JSON" error from nlohmann's parse_error byte offset.
Error not_json(std::string_view bytes, std::string_view source, size_t byte, const std::string& what);

// The device a dump names: its name, or the host part of a fully
// qualified one ("tor-p0-s00-r1a.lab.example"); -1 if neither is planned.
int resolve_device(const FabricIndex& fabric, const std::string& name);

// The error for a dump whose device is not in the blueprint.
Error unknown_dump_device(const std::string& source, const std::string& device, bool from_file_name,
                          std::string_view option);

}  // namespace hpn::validator
