// The JSON form of a host profile: the whole model, its keys and types as
// blueprint/host_profile_format.h describes them, its schema in
// schemas/host-profile.schema.json (draft 2020-12). Keys keep one order, so
// the same blueprint gives the same bytes.
#pragma once

#include <nlohmann/json.hpp>

#include "hostconfig/profile.h"

namespace hpn {

nlohmann::ordered_json profile_json(const HostProfile& profile);
nlohmann::ordered_json class_json(const ClassProfile& c);

}  // namespace hpn
