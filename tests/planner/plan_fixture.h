// A planned blueprint and look-ups over it, for tests of the expansion.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "test_util.h"

namespace hpn::test {

inline Plan plan_of(const std::string& yaml_or_empty) {
  auto spec = yaml_or_empty.empty() ? default_spec() : load_spec(yaml_or_empty, "test.yaml");
  REQUIRE(spec.ok());
  auto plan = make_plan(std::move(spec.value()), "test");
  if (!plan) FAIL(plan.error().message);
  return std::move(plan.value());
}

inline Plan plan_of_file(const std::string& example) {
  return plan_of(read_file(source_path(example)));
}

// The cable ends at each device, by device index.
struct Ends {
  struct End {
    const Cable* cable;
    std::string port;
    int far;
    std::string far_port;
  };
  std::vector<std::vector<End>> at;
  explicit Ends(const Blueprint& bp) : at(bp.devices.size()) {
    for (const auto& c : bp.cables) {
      at[c.a_device].push_back({&c, c.a_port, c.z_device, c.z_port});
      at[c.z_device].push_back({&c, c.z_port, c.a_device, c.a_port});
    }
  }
};

inline int cage_of(const std::string& port) {  // "etp17b" -> 17
  size_t digits = port.find_first_of("0123456789");
  return std::stoi(port.substr(digits));
}

}  // namespace hpn::test
