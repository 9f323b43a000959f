// The design rules of an HPN fabric, checked before anything is expanded.
// Each violation is stated with its numbers, at the key that set it.
#pragma once

#include <string>
#include <vector>

#include "blueprint/result.h"
#include "planner/spec.h"
#include "planner/topology.h"

namespace hpn {

// At most this many hosts in one plan: about 2M GPUs, far past any building
// and well inside what one process expands in memory.
inline constexpr int64_t kMaxHosts = 262144;
// The host limit alone lets a short spec ask for a fabric of few hosts and
// millions of cables or core rules (a core sized for 1,000 pods has a rule
// per in-port and other pod). Every big table is bounded as well, before
// anything is allocated: above what kMaxHosts hosts of the default design
// need (128 pods: 6.7M cables) and a core sized for 64 such pods (3.9M
// core rules).
inline constexpr int64_t kMaxDevices = 1 << 20;
inline constexpr int64_t kMaxCables = 1 << 23;
inline constexpr int64_t kMaxCoreRules = 1 << 22;

// All violations, rendered as located diagnostics one after another.
// `topology` is derive_topology(spec): make_plan derives it once for the
// check, the expansion and the summary.
Status check_design(const Spec& spec, const Topology& topology);
// The same for a spec checked alone (tests, the spec's fuzzer).
inline Status check_design(const Spec& spec) { return check_design(spec, derive_topology(spec)); }

// Why a bond of two ports on two independent ToRs cannot run 802.3ad, as
// one sentence: the design rule of check_design, and what `hpnctl profile
// --bond-mode 802.3ad` is refused with on a dual-ToR blueprint.
std::string lacp_dual_tor_error();

// Renders `message` at the first of `keys` the spec file set itself (a design
// error is usually the user's change meeting a default), else unlocated.
std::string design_error(const Spec& spec, const std::vector<std::string>& keys,
                         const std::string& message);

}  // namespace hpn
