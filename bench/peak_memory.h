// Peak resident memory of this process, per stage: Linux resets VmHWM to the
// current RSS when 5 is written to /proc/self/clear_refs.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace hpn::bench {

inline void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

inline long peak_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6) / 1024;
  }
  return -1;
}

}  // namespace hpn::bench
