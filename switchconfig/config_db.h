// SONiC's config_db.json for a switch (tables as the SONiC Configuration
// Database Manual documents them; schemas/sonic-config-db.schema.json
// checks them). Host-facing ports are untagged members of Vlan1000, whose
// interface holds the gateway: SONiC's form of a routed access port, and
// the switch ASIC still stamps telemetry with the physical port. With
// docker_routing_config_mode "split", bgpd runs the frr.conf hpnctl writes
// beside it (unnumbered sessions); BGP_NEIGHBOR records each planned
// session by its planned /127, the classic form SONiC's tools read.
// hpnctl's own tables start with HPN_: the telemetry IDs and core rules.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "switchconfig/switch_config.h"

namespace hpn::switchconfig {

// The file's text, ending in a newline.
std::string config_db(const SwitchConfig& config);

// The whole model as JSON (hpnctl config --format json): every field of
// SwitchConfig, for scripts and for tests.
nlohmann::ordered_json config_json(const SwitchConfig& config);

}  // namespace hpn::switchconfig
