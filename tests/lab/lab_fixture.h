// Shared by the lab tests: the lab-sized pod's blueprint, its
// cabling sheet as a wiring file, and look-ups by name.
#pragma once

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "blueprint/csv.h"
#include "planner/plan_fixture.h"
#include "planner/plan_output.h"

namespace hpn::test {

// examples/lab-pod.yaml, planned once per test binary.
inline const Blueprint& lab_pod() {
  static const Blueprint bp = plan_of_file("examples/lab-pod.yaml").blueprint;
  return bp;
}

inline std::string cabling_csv(const Blueprint& bp) {
  std::ostringstream out;
  write_cabling_csv(bp, out);
  return out.str();
}

inline int device_index(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

// The IPv6 bond address of a host's back-end NIC.
inline std::string bond_address(const Blueprint& bp, const std::string& host, int nic) {
  const int d = device_index(bp, host);
  for (const auto& i : bp.interfaces) {
    if (i.device == d && i.purpose == InterfacePurpose::host && i.nic == nic) return i.ipv6;
  }
  FAIL("no bond " << nic << " on " << host);
  return "";
}

inline uint16_t port_id(const Blueprint& bp, const std::string& device, const std::string& port) {
  const Panel& panel = bp.panels[bp.devices[device_index(bp, device)].panel];
  const int at = panel.find(port);
  REQUIRE(at >= 0);
  return panel.ports[at].port_id;
}

// The cabling sheet with the far (z) ends of the two rows at `device`'s
// ports `p` and `q` exchanged: two cables swapped at the patch panel.
inline std::string swap_z_ends(const std::string& csv, const std::string& device, const std::string& p,
                               const std::string& q) {
  std::istringstream in(csv);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    REQUIRE(parse_csv_line(line, f));
    rows.push_back(f);
  }
  // cabling.csv: cable_id,kind,a_device,a_port,z_device,z_port,...
  std::vector<std::string>* rp = nullptr;
  std::vector<std::string>* rq = nullptr;
  for (auto& r : rows) {
    if (r.size() > 5 && r[2] == device && r[3] == p) rp = &r;
    if (r.size() > 5 && r[2] == device && r[3] == q) rq = &r;
  }
  REQUIRE(rp != nullptr);
  REQUIRE(rq != nullptr);
  std::swap((*rp)[4], (*rq)[4]);
  std::swap((*rp)[5], (*rq)[5]);
  std::ostringstream out;
  {
    CsvWriter w(out);  // writes out when it goes
    for (const auto& r : rows) {
      for (const auto& f : r) w.field(f);
      w.end_row();
    }
  }
  return out.str();
}

}  // namespace hpn::test
