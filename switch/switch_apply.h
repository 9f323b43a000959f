// `hpnctl switch apply DIR`: from a switch's file set (switch_set.h) and the
// machine's state, the changes that make the state what the set says (a
// pure function), then those changes made one by one through SwitchOps and
// undone newest first when one fails or a signal comes: the structure of
// host apply (host/host_apply.h), for a switch.
//
// Order of the steps (each only where the state differs from the set):
//   0. IOAM namespaces (ioam.conf; generic netlink, not a sysctl)
//   1. sysctls (forwarding, ECMP hash, IOAM IDs, neighbour behaviour): before
//      the addresses, so a host port's accept_dad=0 holds when its gateway
//      address comes
//   2. MAC (a host-facing port's gateway MAC)   3. MTU
//   4. addresses                                5. links up, or down
// Nothing is ever removed: an address (not link-local) or a route (not the
// kernel's, FRR's or the host-route agent's) on a fabric port that the set
// does not name is a conflict, and so is an IOAM namespace of the set's ID
// that someone gave data or a schema; a plan with one is refused whole.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "system/apply_steps.h"
#include "switch/switch_set.h"

namespace hpn::sw {

struct SwitchLink {
  std::string name;
  std::string mac;  // lower case; empty without one
  int mtu = 0;
  bool up = false;  // IFF_UP
};

struct SwitchAddress {
  std::string ifname;
  IfPrefix prefix;
  bool link_scope = false;  // fe80::/10 and the like: the kernel's own
};

struct SwitchRoute {
  IfPrefix to;
  int table = 254;
  int protocol = 0;                  // RTPROT_*
  std::vector<std::string> devices;  // of its next hops
};

// An IOAM namespace as the kernel dumps it (IOAM6_CMD_DUMP_NAMESPACES):
// data, wide data and schema only where someone set them.
struct SwitchIoamNamespace {
  std::uint16_t id = 0;
  std::optional<std::uint32_t> data;
  std::optional<std::uint64_t> data_wide;
  std::optional<std::uint32_t> schema;
};

struct SwitchState {
  std::vector<SwitchLink> links;
  std::vector<SwitchAddress> addresses;
  std::vector<SwitchRoute> routes;             // unicast, every table but local
  std::map<std::string, std::string> sysctls;  // dotted key -> value; absent: the kernel lacks it
  bool ioam = true;                            // the kernel has IPv6 IOAM (generic netlink family IOAM6)
  std::vector<SwitchIoamNamespace> ioam_namespaces;
  const SwitchLink* link(const std::string& name) const;
};

// Route protocols a switch's own software uses on its fabric ports, not a
// conflict: the kernel's (2), FRR's (zebra 11, BGP 186 and the daemons
// after it, Babel 42), and the host-route agent's (`agent_protocol`, from
// its switch-agent.json, 0 for none).
bool owned_protocol(int protocol, int agent_protocol);

enum class ChangeKind { add_ioam_namespace, sysctl, set_mac, set_mtu, add_address, link_up, link_down };
const char* to_string(ChangeKind kind);  // "ioam", "sysctl", "mac", "mtu", "addr", "up", "down"

struct Change {
  ChangeKind kind = ChangeKind::sysctl;
  char op = '~';
  std::string target;     // the interface, or the sysctl key
  std::string value;      // sysctl value, MAC, MTU, IOAM namespace ID
  std::string old_value;  // what it was
  IfPrefix prefix;        // add_address
  std::string text() const;  // "+ addr 10.0.0.1/32 dev etp1a"
};

struct ChangePlan {
  std::vector<Change> changes;
  std::vector<std::string> conflicts;  // one sentence each; any refuses the plan
};

// The sysctl keys plan_changes() compares, for read_switch_state().
std::vector<std::string> sysctl_keys(const SwitchSet& set);

// Errors (exit 3): a sysctl the set requires that this kernel lacks; an
// IOAM namespace on a kernel without IOAM.
Result<ChangePlan> plan_changes(const SwitchSet& set, const SwitchState& state, int agent_protocol);

// Is this set made for this machine? `identity` is gethostname() or, with
// --netns, the namespace's name (which may be "<prefix>-<switch>"). One
// sentence per problem: another switch's name; a port of the set missing
// here; the node's IOAM ID already another node's.
std::vector<std::string> identity_problems(const SwitchSet& set, const SwitchState& state, const std::string& identity,
                                           bool netns);

// The side effects, one step at a time: NetlinkSwitchOps for real
// (switch_netlink.h), a fake in tests.
class SwitchOps {
 public:
  virtual ~SwitchOps() = default;
  virtual Status apply(const Change& change) = 0;
  virtual Status undo(const Change& change) = 0;
};

// What an apply did: system/apply_steps.h, shared with the other apply.
using hpn::ApplyOutcome;

// Applies in order; at the first failure, or when `stop` (asked before each
// step) says so, undoes every step made, newest first, going on past an
// undo that fails.
ApplyOutcome apply_plan(const ChangePlan& plan, SwitchOps& ops, const std::function<bool()>& stop = {});

void render_plan(const ChangePlan& plan, std::ostream& out);
nlohmann::ordered_json change_json(const Change& change);

}  // namespace hpn::sw
