// Which part of a blueprint an export covers (`hpnctl export --switch/--pod/
// --segment`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

struct ExportScope {
  int device = kNone;          // --switch: cables with an end on this device
  std::optional<int> pod;      // cables with an end on a device of this pod
  std::optional<int> segment;  // ... of this segment (of every pod, or of `pod`)
};

// Checks the scope against the plan: the pod and segment must exist in it,
// the device must be a switch. Messages name the flag and what the plan has.
Status check_scope(const Blueprint& bp, const ExportScope& scope);

// Does the device belong to the scope's pod and segment (the device filter
// of the scope, without --switch)?
bool device_in_scope(const Device& d, const ExportScope& scope);

// The cables of the scope, in plan order (the order of blueprint.db).
std::vector<int> select_cables(const Blueprint& bp, const ExportScope& scope);

// The pods and the (pod, segment) pairs of a plan, ascending.
std::vector<int> pods_of(const Blueprint& bp);
std::vector<std::pair<int, int>> segments_of(const Blueprint& bp);

}  // namespace hpn
