// Planned blueprints and profile builders shared by the profile tests: the
// default pod (planned once per test binary) and a small fabric of three lab
// pods in two halls, which has every path class.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "planner/plan.h"
#include "hostconfig/profile.h"
#include "planner/spec_loader.h"
#include "test_util.h"

namespace hpn::test {

inline Plan plan_from(const std::string& yaml, const std::string& name) {
  auto spec = yaml.empty() ? default_spec() : load_spec(yaml, name);
  if (!spec) FAIL(spec.error().message);
  auto plan = make_plan(std::move(spec.value()), "test");
  if (!plan) FAIL(plan.error().message);
  return std::move(plan.value());
}

inline const Plan& default_pod() {
  static const Plan plan = plan_from("", "");
  return plan;
}

// The single-ToR baseline (examples/baseline-single-tor.yaml): both ports of
// a NIC on one ToR, the only design where 802.3ad has one LACP partner.
inline const Plan& single_tor_pod() {
  static const Plan plan = plan_from(read_file(source_path("examples/baseline-single-tor.yaml")), "single-tor.yaml");
  return plan;
}

// The lab pod three times: pods 0 and 1 in hall 0 (with the core), pod 2 in
// hall 1, 300 m away. Its core is sized for 4 pods (8 ports: 2 per pod).
inline std::string halls_spec() {
  std::string text = read_file(source_path("examples/lab-pod.yaml"));
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("name: lab", "name: lab-halls");
  replace("  pods_planned: 2", "  pods_planned: 4");
  replace("layout:\n", "layout:\n  pods_per_hall: 2\n");
  return text + "\nfabric:\n  pods: 3\n";
}

inline const Plan& halls_fabric() {
  static const Plan plan = plan_from(halls_spec(), "halls.yaml");
  return plan;
}

inline ProfileBuilder builder_for(const Blueprint& bp, ProfileOptions options = {}) {
  auto b = ProfileBuilder::create(bp, options);
  if (!b) FAIL(b.error().message);
  return std::move(b.value());
}

inline int device_index(const Blueprint& bp, const std::string& name) {
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    if (bp.devices[i].name == name) return static_cast<int>(i);
  }
  FAIL("no device " << name);
  return -1;
}

}  // namespace hpn::test
