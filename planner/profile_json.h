// The JSON form of a host profile: the whole model, with its schema in
// schemas/host-profile.schema.json (draft 2020-12). Keys keep one order, so
// the same blueprint gives the same bytes.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/profile.h"

namespace hpn {

inline constexpr const char* kProfileFormat = "hpnctl-host-profile";
inline constexpr int kProfileVersion = 1;

nlohmann::ordered_json profile_json(const HostProfile& profile);
nlohmann::ordered_json class_json(const ClassProfile& c);

}  // namespace hpn
