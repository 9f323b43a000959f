// The reader of a host profile (`hpnctl profile HOST`, schemas/host-profile.schema.json)
// on the host: its network part, into the one type the planner builds and
// `host apply` and `host announce` act on (blueprint/host_network.h). The
// path classes and the NCCL environment are not network state and are only
// checked for type.
//
// The keys and their types are those of blueprint/host_profile_format.h,
// which the writer (hostconfig/profile_json.cpp) and the schema follow too.
// A profile comes from outside (copied to the host, maybe edited by hand), so
// the reader trusts nothing: a syntax error is `FILE:LINE:COL: message` with
// the line and a caret, a value that is wrong is `FILE: /json/pointer: message`,
// every value is range-checked, and no input makes it crash or allocate
// without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "blueprint/host_network.h"
#include "blueprint/result.h"

namespace hpn::host {

// Profiles are a few kilobytes; anything past this is not one.
inline constexpr std::size_t kMaxProfileBytes = 4 << 20;

// Reads and checks a profile; `source` names it in messages (and is the
// result's `source`).
Result<HostNetwork> parse_apply_profile(std::string_view text, const std::string& source);
Result<HostNetwork> read_apply_profile(const std::string& path);

}  // namespace hpn::host
