// Names from the spec's patterns (fmt syntax with named fields, e.g.
// "tor-p{pod}-s{segment:02}-r{rail}{side}"). See hpn-pod.yaml(5) for the fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

// The fields the pattern of `key` ("host", "tor", ...) may use.
const std::vector<std::string>& pattern_fields(std::string_view key);

// Unknown fields, bad format specs and characters no device name may carry.
Status check_pattern(std::string_view key, const std::string& pattern);

std::string host_name(const std::string& p, int pod, int segment, int host, int hall);
std::string tor_name(const std::string& p, int pod, int segment, int rail, std::string_view side, int plane);
std::string agg_name(const std::string& p, int pod, int plane, int index);
std::string core_name(const std::string& p, int plane, int index);
std::string frontend_name(const std::string& p, int pod, int segment, int leaf, std::string_view side);
std::string host_port_name(const std::string& p, int nic, int port);
std::string switch_port_name(const std::string& p, int cage, std::string_view sub);
std::string cable_name(const std::string& p, int pod, std::string_view kind, int seq);
std::string rack_name(const std::string& p, int hall, int row, int position);

// The letter of a cable kind in cable IDs and panel names: H, A, C, F.
const char* cable_kind_code(CableKind kind);

// "a", "b", ... for the n-th (0-based) side of a pair or sub-port of a cage.
std::string letter(int n);

}  // namespace hpn
