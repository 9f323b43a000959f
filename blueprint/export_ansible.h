// An Ansible inventory of a plan, in the YAML form of Ansible's `yaml`
// inventory plugin, so that playbooks reach the fleet by the plan's names
// and `--limit rack_H0_R02_05` picks the devices of one rack:
//
//   DIR/hosts.yml                 all: children: GROUP: hosts: NAME: vars
//   DIR/.hpnctl-inventory.json    what the directory is (Ansible skips
//                                 hidden files in an inventory directory)
//
// Every device is an inventory host, in these groups:
//   role_host, role_tor, role_agg, role_core, role_frontend   by role
//   pod_P              devices of pod P (core switches belong to no pod)
//   segment_P_S        hosts, ToRs and front-end leaves of segment S of pod P
//   plane_N            ToRs, aggregation and core switches of plane N
//   rail_R             the ToRs of rail R (every host is on every rail)
//   rack_H0_R02_05     the devices in rack H0-R02-05 (characters other
//                      than letters, digits and '_' become '_')
// and with these variables, each given once, in its role group:
//   ansible_host   a host's front-end address (bond0 on NIC 0, IPv4), a
//                  switch's Loopback0 IPv4: the plan gives switches no
//                  out-of-band management address, and the loopback is the
//                  address routing reaches them at. None when the plan has
//                  neither (a spec without a front-end NIC).
//   hpn_profile    hosts only: profiles/HOST/profile.json, the file
//                  `hpnctl profile --all -o profiles` writes for the host,
//                  relative to the directory ansible-playbook runs in
//                  (deploy/ansible/'s hpnctl_profile role reads it there).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "blueprint/model.h"
#include "blueprint/result.h"

namespace hpn {

inline constexpr const char* kInventoryFormat = "hpnctl-ansible-inventory";

// A variable beyond those of the plan (the lab's inventory, lab_fleet.h):
// its value written as JSON, which YAML reads as the same value.
using InventoryVar = std::pair<std::string, nlohmann::ordered_json>;

struct InventoryHost {
  std::string name;
  Role role = Role::host;
  std::string ansible_host;  // empty: the plan has no address for it
  std::string profile;       // empty on switches
  std::vector<InventoryVar> vars;
};

struct InventoryGroup {
  std::string name;
  std::vector<int> members;  // indexes into Inventory::hosts, plan order
};

struct Inventory {
  std::string spec_name, tool_version;
  std::vector<InventoryHost> hosts;    // plan order
  std::vector<InventoryGroup> groups;  // role, pod, segment, plane, rail, rack; each ascending
  std::vector<InventoryVar> vars;      // all: vars:
  std::string written_by = "hpnctl export ansible";
  std::string address_note = "a host's front-end address (bond0), a switch's Loopback0";
};

// "rack" + "H0-R02-05" -> "rack_H0_R02_05": an Ansible group name, letters,
// digits and '_' only (Ansible warns about any other character).
std::string ansible_group_name(std::string_view prefix, std::string_view value);

// Fails when two racks would become one group (their names differ only in
// characters a group name cannot hold).
Result<Inventory> build_inventory(const Blueprint& bp);

void write_inventory_yaml(const Inventory& inventory, std::ostream& out);

// Can an inventory be written at `dir`? Refuses '.', a file, and an
// existing non-empty directory that is not an inventory hpnctl wrote.
Status check_inventory_target(const std::string& dir);

// Writes DIR all or nothing (blueprint/staged_dir.h).
Status write_inventory(const Inventory& inventory, const std::string& dir);

}  // namespace hpn
