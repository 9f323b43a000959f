// The one rule for a name that comes from a spec, a plan or a map (a device,
// rack, panel, port or cable name, an interface or RDMA device of a NIC map)
// and that hpnctl puts into a file name, a configuration file, a udev rule,
// an inventory or a command line:
//
//   1 to 64 bytes (HOST_NAME_MAX: a switch's name is its hostname);
//   letters, digits, '-', '_' and '.' only: no '/', no whitespace or control
//   byte, nothing a shell, udev (glob, %/$ substitution, quotes), YAML or
//   systemd (specifiers) gives a meaning;
//   starting with a letter or a digit: never '.' or '..', never hidden
//   (our staging directories are ".NAME.tmp-PID"), never an option ('-x').
//
// What the examples and the planner's default patterns give fits it
// (host-p0-s00-h000, tor-p0-s00-r1a, etp12b, nic1p1, C0H00001, H0-R00-01,
// mlx5_bond_0, enp59s0f0np0). The spec checker refuses a naming pattern
// that can give anything else (planner/naming.h); every writer that puts a
// name under a directory goes through path_under().
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "blueprint/result.h"

namespace hpn {

inline constexpr std::size_t kMaxNameBytes = 64;

// Empty when `name` is safe; otherwise why not, as the end of a sentence
// ("names start with a letter or a digit").
std::string name_problem(std::string_view name);
inline bool is_safe_name(std::string_view name) { return name_problem(name).empty(); }

// A Linux interface name hpnctl writes into .link files, udev rules and
// networkd/netplan files: a safe name that the kernel (dev_valid_name:
// under IFNAMSIZ 16 bytes, no '/', ':' or space) and udev (ifname_valid:
// not all digits, no '%') both take. Empty when it is one; otherwise why not.
std::string ifname_problem(std::string_view name);

// `dir/relative`, where every '/'-separated part of `relative` is a safe
// name: the only way a writer puts a name from input under an output or
// staging directory, so that none can leave it ('..', '/x') or hide in it.
// `what` says whose name it is in the error ("switch '..'", "host").
Result<std::filesystem::path> path_under(const std::filesystem::path& dir, std::string_view relative,
                                         std::string_view what);

}  // namespace hpn
