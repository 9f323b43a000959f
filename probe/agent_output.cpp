#include "probe/agent_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace hpn::probe {

hpn::Status write_observation_file(const std::string& path, const std::vector<Observation>& observations) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path temp = target;
  temp += fmt::format(".tmp-{}", getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{fmt::format("{}: cannot write: {}", temp.string(), std::strerror(errno))};
    for (const auto& o : observations) out << to_json_line(o) << '\n';
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      std::error_code ec;
      fs::remove(temp, ec);
      return Error{fmt::format("{}: write failed: {}", temp.string(), why)};
    }
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove(temp, ec);
    return Error{fmt::format("{}: cannot replace: {}", path, why)};
  }
  return {};
}

}  // namespace hpn::probe
