// `hpnctl host apply`: from a host profile and the host's current state, the
// list of changes that brings the state to the profile (a pure function),
// then those changes applied one by one through HostOps, undone in reverse
// order when one fails.
//
// Order of the steps (each only where the state differs from the profile):
//  -1. member ports a NIC map finds under another name (profile --nic-map):
//      taken down and renamed to their planned names
//   0. with --force (or --replace-default-route), what stands in the way:
//      routes, then addresses, of the member ports that the profile does
//      not give them; a member's other master; a default route
//   1. sysctls that name no bond or member (fib_multipath_hash_policy ...)
//   2. per bond: create it (mode, hash policy, ARP or MII monitor, MAC, MTU),
//      take each member down and enslave it
//   3. MAC and MTU of links that exist already (with --no-bond: the members)
//   4. the per-interface sysctls of the bonds (with --no-bond: of the members)
//   5. addresses          6. links up       7. policy rules (from ADDR table T)
//   8. routes, with every next hop          9. pinned (permanent) neighbours
// Nothing is ever removed that the profile does not name, unless --force
// says so for a conflict (below), and then every removal is a step that
// rollback undoes.
//
// Conflicts (refused, exit 2, unless overridden): a member port carrying an
// address (not link-local) or a route (not the kernel's own) that the
// profile does not give it, since taking it down or enslaving it would
// lose them; a member enslaved to another master; an existing bond whose
// mode, hash policy or monitor differ from the profile's; a route of the
// profile whose table, prefix and metric are another protocol's route
// there (--force for all of these); a default route in a table where the
// profile puts one (--replace-default-route).
//
// --no-bond (a kernel without bonding): no bond is created; every member
// port takes the bond's MAC and MTU and its per-interface sysctls (as an
// enslaved port would), ignore_routes_with_linkdown (a bond stops hashing
// onto a member without carrier; the routes must, without one), and carries the bond's IPv4 and IPv6 addresses
// without their on-link prefix route (IFA_F_NOPREFIXROUTE, as the lab's
// hosts do): the two gateways sit in one prefix behind two ports, so every
// destination, the bond's own subnet included, is reached by the table
// routes, each next hop leaving by the member whose gateway it is (onlink).
// A gateway's pinned neighbour entry goes on its member.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "blueprint/result.h"
#include "system/apply_steps.h"
#include "host/host_profile.h"
#include "host/host_state.h"

namespace hpn::host {

enum class ChangeKind {
  sysctl, create_bond, bond_options, link_down, release, enslave, set_mac, set_mtu, add_address, remove_address,
  link_up, add_rule, set_route, remove_route, set_neighbour, rename
};
// "sysctl", "bond", "bond-options", "down", "release", "master", "mac", "mtu", "name",
// "addr", "unaddr", "up", "rule", "route", "unroute", "neigh"
const char* to_string(ChangeKind kind);

// One step. Carries what it needs both to be made and to be undone.
struct Change {
  ChangeKind kind = ChangeKind::sysctl;
  char op = '+';            // '+' something new, '~' something changed
  std::string target;       // the interface, or the sysctl key
  std::string value;        // sysctl value, MAC, MTU, master
  std::string old_value;    // what it was; empty: nothing (a sysctl the kernel did not have yet)
  const Bond* bond = nullptr;  // create_bond, bond_options
  BondState old_bond;       // bond_options: what the bond had
  IpPrefix prefix;          // address, rule source, route destination
  bool no_prefix_route = false;  // add_address (--no-bond), remove_address: IFA_F_NOPREFIXROUTE
  int table = 0, priority = 0;
  int metric = 0;           // set_route, remove_route: the kernel's metric
  std::vector<NextHopState> nexthops, old_nexthops;  // set_route; old empty: a new route. remove_route: old
  int protocol = 0;         // set_route: the protocol of the route it replaces; remove_route: the route's
  std::string mac, old_mac; // set_neighbour

  std::string text() const;  // the diff line: "+ addr 10.0.0.16/27 dev bond1"
};

struct ApplyOptions {
  bool no_bond = false;
};

// Something on the host the profile would override; one sentence each.
struct Conflict {
  std::string text;
  bool default_route = false;  // overridden by --replace-default-route, not --force
};

struct ChangePlan {
  std::vector<Change> changes;      // with the removals that override the conflicts
  std::vector<Conflict> conflicts;  // none: the plan touches only what the profile names
};

// The changes, in the order above, and the conflicts they override (the
// caller refuses the plan unless told to override them). Errors (exit 2): a
// member port missing, a link with a bond's name that is not a bond, a next
// hop --no-bond cannot place on a member. The plan points into `profile`,
// which must outlive it.
Result<ChangePlan> plan_changes(const HostNetwork& profile, const HostState& state, const ApplyOptions& options);

// The sysctl keys plan_changes() compares, for read_host_state().
std::vector<std::string> sysctl_keys(const HostNetwork& profile, const ApplyOptions& options);

// Does this profile belong here? `identity` is gethostname() or, with
// --netns, the namespace's name (which may carry a prefix: the lab names a
// host's namespace "<lab prefix>-<host>"). Problems, one sentence each:
// another host's name; a member port that does not exist; a link already
// carrying an hpnctl MAC (02:4e:<node ID>:<NIC>) of another node ID.
std::vector<std::string> identity_problems(const HostNetwork& profile, const HostState& state,
                                           const std::string& identity, bool netns);

// The side effects, one step at a time: NetlinkHostOps (host_netlink.h) for
// real, a fake in tests.
class HostOps {
 public:
  virtual ~HostOps() = default;
  virtual Status apply(const Change& change) = 0;
  virtual Status undo(const Change& change) = 0;
};

// What an apply did: system/apply_steps.h, shared with the other apply.
using hpn::ApplyOutcome;

// Applies the plan in order; at the first failure, or when `stop` (asked
// before each step) returns true, undoes every step made so far, newest
// first, and goes on undoing past an undo that fails.
ApplyOutcome apply_plan(const ChangePlan& plan, HostOps& ops, const std::function<bool()>& stop = {});

// The diff, one line per change; "nothing to change" for an empty plan.
void render_plan(const ChangePlan& plan, std::ostream& out);
nlohmann::ordered_json change_json(const Change& change);

}  // namespace hpn::host
