// What the neighbour-table readers share (--lldp, --bgp): the DEVICE=FILE
// argument, the bounded read of a dump, JSON errors with line and column,
// and a device named by a dump, short or fully qualified.
#pragma once

#include <cstddef>
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

// The bounds a dump is held to, picked from real ones with room to spare:
// a 128-port switch's `lldpcli -f json0 show neighbors details` is a few
// hundred kB, about 60 values and 12 levels per neighbour (tests/data/lldp);
// FRR's `show bgp neighbors json` is a few kB and a few hundred values per
// session, 6 levels deep. A dump within them is at most about 150 MB of DOM
// (bench/input_bounds.sh measures it).
inline constexpr std::size_t kMaxDumpBytes = std::size_t{16} << 20;
inline constexpr std::size_t kMaxDumpDepth = 32;
inline constexpr std::size_t kMaxDumpValues = 1'000'000;

// The file's bytes: a regular file or a pipe, at most kMaxDumpBytes.
Result<std::string> read_dump_bytes(const std::string& path, std::string_view what);

// The size and shape bounds above, before a DOM is built (`what`: "an LLDP
// dump"); the error is located.
Status check_dump_shape(std::string_view bytes, std::string_view source, std::string_view what);

// A located "not JSON" error from nlohmann's parse_error byte offset.
Error not_json(std::string_view bytes, std::string_view source, size_t byte, const std::string& what);

// The device a dump names: its name, or the host part of a fully
// qualified one ("tor-p0-s00-r1a.lab.example"); -1 if neither is planned.
int resolve_device(const FabricIndex& fabric, const std::string& name);

// The error for a dump whose device is not in the blueprint.
Error unknown_dump_device(const std::string& source, const std::string& device, bool from_file_name,
                          std::string_view option);

}  // namespace hpn::validator
