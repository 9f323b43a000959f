// `hpnctl config --all -o DIR`: every switch's configuration, written all or
// nothing the way plans are (blueprint/staged_dir.h): DIR/<switch>/frr.conf,
// DIR/<switch>/config_db.json, DIR/<switch>/sysctl.conf, DIR/<switch>/ioam.conf
// (its IOAM namespace, linux_sysctl.h), DIR/<switch>/interfaces (ifupdown2's
// format, interfaces_file.h, which `hpnctl switch apply` reads back), on a
// switch that learns hosts DIR/<switch>/switch-agent.json (agent_config.h), and
// DIR/hpnctl-config.json naming the plan and the switches. A directory
// without that file is never replaced.
#pragma once

#include <functional>
#include <string>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

inline constexpr const char* kConfigSetMarker = "hpnctl-config.json";

// Refuses what write_config_set() would refuse, before any work.
Status check_config_target(const std::string& dir);

struct ConfigSetReport {
  int switches = 0;
  int files = 0;
  std::int64_t bytes = 0;
};

// `progress` is called with each switch written (from worker threads,
// serialized).
Result<ConfigSetReport> write_config_set(const Blueprint& bp, const ConfigBuilder& builder,
                                         const std::string& dir,
                                         const std::function<void(int done, int total)>& progress = {});

}  // namespace hpn::switchconfig
