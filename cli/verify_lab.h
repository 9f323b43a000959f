// `hpnctl verify --lab`: the lab brought up from the plan (and a wiring
// file), probed from every host, taken down again; the observations come
// back for the diff.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "probe/observation.h"

namespace hpn::cli {

Result<std::vector<probe::Observation>> observe_lab(const Blueprint& bp, const std::string& blueprint_dir,
                                                    const std::optional<std::string>& wiring,
                                                    const std::string& scope,
                                                    const std::optional<std::string>& keep);

}  // namespace hpn::cli
