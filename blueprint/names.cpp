#include "blueprint/names.h"

#include <fmt/format.h>

#include <algorithm>

namespace hpn {

namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string name_problem(std::string_view name) {
  if (name.empty()) return "a name cannot be empty";
  if (name.size() > kMaxNameBytes) return fmt::format("names are at most {} bytes long", kMaxNameBytes);
  for (char c : name) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return "names may hold letters, digits, '-', '_' and '.' only";
  }
  if (!alnum(name.front())) return "names start with a letter or a digit";
  return {};
}

std::string ifname_problem(std::string_view name) {
  if (std::string problem = name_problem(name); !problem.empty()) return problem;
  // include/uapi/linux/if.h IFNAMSIZ 16, with its terminating NUL.
  if (name.size() > 15) return "an interface name is at most 15 bytes long (IFNAMSIZ)";
  // systemd's ifname_valid_full(): a name of digits alone reads as an ifindex.
  if (std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return "an interface name is not digits alone";
  }
  return {};
}

Result<std::filesystem::path> path_under(const std::filesystem::path& dir, std::string_view relative,
                                         std::string_view what) {
  std::filesystem::path path = dir;
  for (std::size_t at = 0;;) {
    const std::size_t slash = relative.find('/', at);
    const std::string_view part = relative.substr(at, slash == std::string_view::npos ? slash : slash - at);
    if (std::string problem = name_problem(part); !problem.empty()) {
      return Error{fmt::format("{} '{}': cannot be a file name under {}: {}", what, relative, dir.string(), problem)};
    }
    path /= std::string(part);
    if (slash == std::string_view::npos) return path;
    at = slash + 1;
  }
}

}  // namespace hpn
