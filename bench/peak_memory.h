// Peak resident memory of this process, per stage: Linux resets VmHWM to the
// current RSS when 5 is written to /proc/self/clear_refs.
#pragma once

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace hpn::bench {

// A field of /proc/self/status in MB, -1 if absent.
inline long status_mb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + field.size()) / 1024;
  }
  return -1;
}

inline void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

inline long peak_mb() { return status_mb("VmHWM:"); }

// The RSS now, once the heap has given back what earlier stages freed: what
// a stage adds is then peak_mb() less this, not hidden in pages malloc
// kept from before.
inline long live_mb() {
  malloc_trim(0);
  return status_mb("VmRSS:");
}

}  // namespace hpn::bench
