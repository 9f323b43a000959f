// Disjoint UDP source ports per destination, as the verify step measures them
// (per-hop telemetry shows which uplinks each source port takes; keep one
// port per disjoint path, FIELD.md section 4). hpnctl profile --paths FILE
// copies a host's entries into its profile. The file:
//
//   {"format": "hpnctl-paths", "version": 1,
//    "hosts": {"host-p0-s00-h000": [
//      {"bond": "bond1", "destination": "host-p0-s01-h000",
//       "udp_source_ports": [49152, 49153]}]}}
//
// Other keys of an entry are ignored, so the verify step can add the evidence
// behind its ports. See hpnctl-profile(1).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"

namespace hpn {

struct MeasuredPorts {
  std::string bond;         // the source host's bond (= rail)
  std::string destination;  // a host of the blueprint
  std::vector<int> udp_source_ports;  // ascending, distinct
};

struct PathsFile {
  std::string source;  // the file name as given
  std::map<std::string, std::vector<MeasuredPorts>> hosts;  // entries sorted by bond, destination
};

inline constexpr const char* kPathsFormat = "hpnctl-paths";
inline constexpr int kPathsVersion = 1;

// Errors are one line: `FILE: hosts.H[i].udp_source_ports[j]: message`.
Result<PathsFile> parse_paths(std::string_view text, const std::string& source);
Result<PathsFile> load_paths_file(const std::string& path);

}  // namespace hpn
