// Shared by the host apply/announce tests: the lab pod's first host profile,
// made by the real CLI (`hpnctl plan examples/lab-pod.yaml` + `hpnctl profile`).
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "test_util.h"

namespace hpn::test {

// host-p0-s00-h000 of the lab pod: bond1 (nic1p1, nic1p2) and bond2 (nic2p1, nic2p2).
inline const std::string& lab_profile_text() {
  static const std::string text = [] {
    TempDir dir;
    auto plan = run_hpnctl("plan '" + source_path("examples/lab-pod.yaml").string() + "' -o plan", dir.path());
    REQUIRE(plan.exit_code == 0);
    auto profile = run_hpnctl("profile --blueprint plan host-p0-s00-h000", dir.path());
    REQUIRE(profile.exit_code == 0);
    return profile.out;
  }();
  return text;
}

inline std::string edited_profile(const std::function<void(nlohmann::json&)>& edit) {
  auto j = nlohmann::json::parse(lab_profile_text());
  edit(j);
  return j.dump(2);
}

}  // namespace hpn::test
