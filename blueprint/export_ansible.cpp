#include "blueprint/export_ansible.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "blueprint/atomic_file.h"
#include "blueprint/staged_dir.h"

namespace hpn {

namespace {

constexpr const char* kInventoryFile = "hosts.yml";
constexpr const char* kInventoryMarker = ".hpnctl-inventory.json";
const OutputKind kInventoryKind{"the inventory", "an hpnctl inventory", kInventoryMarker};

// A name or path as a YAML scalar: bare when it cannot be read as anything
// but a plain string, else double-quoted (a JSON string is a YAML one).
std::string yaml_scalar(const std::string& name) {
  static const char* const kWords[] = {"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~"};
  bool plain = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != '/') plain = false;
  }
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : kWords) {
    if (lower == word) plain = false;
  }
  return plain ? name : nlohmann::json(name).dump();
}

}  // namespace

std::string ansible_group_name(std::string_view prefix, std::string_view value) {
  std::string name = fmt::format("{}_{}", prefix, value);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return name;
}

Result<Inventory> build_inventory(const Blueprint& bp) {
  Inventory inv;
  inv.spec_name = bp.spec_name;
  inv.tool_version = bp.tool_version;
  // A host's front-end bond (NIC 0) and a switch's loopback, by device.
  std::vector<std::string> address(bp.devices.size());
  for (const Interface& i : bp.interfaces) {
    const Device& d = bp.devices[i.device];
    bool front_end = d.role == Role::host && i.purpose == InterfacePurpose::host && i.nic == 0;
    bool loopback = d.role != Role::host && i.purpose == InterfacePurpose::loopback;
    if ((front_end || loopback) && !i.ipv4.empty()) address[i.device] = i.ipv4;
  }

  constexpr Role kRoles[] = {Role::host, Role::tor, Role::agg, Role::core, Role::frontend};
  std::map<Role, std::vector<int>> by_role;
  std::map<int, std::vector<int>> by_pod, by_plane, by_rail;
  std::map<std::pair<int, int>, std::vector<int>> by_segment;
  std::vector<std::vector<int>> by_rack(bp.racks.size());
  for (size_t i = 0; i < bp.devices.size(); ++i) {
    const Device& d = bp.devices[i];
    InventoryHost h;
    h.name = d.name;
    h.role = d.role;
    h.ansible_host = address[i];
    if (d.role == Role::host) h.profile = fmt::format("profiles/{}/profile.json", d.name);
    inv.hosts.push_back(std::move(h));
    const int n = static_cast<int>(i);
    by_role[d.role].push_back(n);
    if (d.pod != kNone) by_pod[d.pod].push_back(n);
    if (d.pod != kNone && d.segment != kNone) by_segment[{d.pod, d.segment}].push_back(n);
    if (d.plane != kNone) by_plane[d.plane].push_back(n);
    if (d.rail != kNone) by_rail[d.rail].push_back(n);
    if (d.rack != kNone) by_rack[d.rack].push_back(n);
  }

  auto add = [&inv](std::string name, std::vector<int> members) {
    if (!members.empty()) inv.groups.push_back({std::move(name), std::move(members)});
  };
  for (Role role : kRoles) add(ansible_group_name("role", to_string(role)), by_role[role]);
  for (auto& [pod, members] : by_pod) add(fmt::format("pod_{}", pod), std::move(members));
  for (auto& [key, members] : by_segment) add(fmt::format("segment_{}_{}", key.first, key.second), std::move(members));
  for (auto& [plane, members] : by_plane) add(fmt::format("plane_{}", plane), std::move(members));
  for (auto& [rail, members] : by_rail) add(fmt::format("rail_{}", rail), std::move(members));
  std::unordered_map<std::string, size_t> rack_of_group;
  for (size_t r = 0; r < bp.racks.size(); ++r) {
    if (by_rack[r].empty()) continue;
    std::string group = ansible_group_name("rack", bp.racks[r].name);
    auto [it, fresh] = rack_of_group.emplace(group, r);
    if (!fresh) {
      return Error{fmt::format("racks '{}' and '{}' would both be Ansible group '{}'; name racks apart "
                               "by letters, digits and '_'", bp.racks[it->second].name, bp.racks[r].name, group)};
    }
    add(std::move(group), std::move(by_rack[r]));
  }
  return inv;
}

void write_inventory_yaml(const Inventory& inv, std::ostream& out) {
  out << fmt::format("# Ansible inventory of the plan '{}', written by hpnctl {} ({}).\n", inv.spec_name,
                     inv.tool_version, inv.written_by);
  out << "# ansible_host: " << inv.address_note << ".\n"
         "# hpn_profile: the host's profile as `hpnctl profile --all -o profiles` writes it.\n"
         "# Groups: role_*, pod_P, segment_P_S, plane_N, rail_R, rack_*; see hpnctl-export(1).\n"
         "all:\n";
  if (!inv.vars.empty()) {
    out << "  vars:\n";
    for (const auto& [key, value] : inv.vars) out << "    " << key << ": " << value.dump() << "\n";
  }
  out << "  children:\n";
  // Variables once per device, in its role group; the other groups name it only.
  std::vector<bool> described(inv.hosts.size(), false);
  for (const InventoryGroup& g : inv.groups) {
    out << "    " << g.name << ":\n      hosts:\n";
    for (int m : g.members) {
      const InventoryHost& h = inv.hosts[m];
      out << "        " << yaml_scalar(h.name) << ":\n";
      if (described[m]) continue;
      described[m] = true;
      if (!h.ansible_host.empty()) out << "          ansible_host: " << h.ansible_host << "\n";
      if (!h.profile.empty()) out << "          hpn_profile: " << yaml_scalar(h.profile) << "\n";
      for (const auto& [key, value] : h.vars) out << "          " << key << ": " << value.dump() << "\n";
    }
  }
}

Status check_inventory_target(const std::string& dir) { return StagedDirectory::check_target(dir, kInventoryKind); }

Status write_inventory(const Inventory& inv, const std::string& dir) {
  auto staged = StagedDirectory::begin(dir, kInventoryKind);
  if (!staged) return staged.error();
  const std::filesystem::path& tmp = staged->path();
  auto written = write_file_atomic((tmp / kInventoryFile).string(),
                                   [&](std::ostream& out) { write_inventory_yaml(inv, out); });
  if (!written) return written;

  nlohmann::ordered_json index;
  index["format"] = kInventoryFormat;
  index["spec_name"] = inv.spec_name;
  index["tool_version"] = inv.tool_version;
  index["inventory"] = kInventoryFile;
  size_t hosts = std::count_if(inv.hosts.begin(), inv.hosts.end(),
                               [](const InventoryHost& h) { return h.role == Role::host; });
  index["hosts"] = hosts;
  index["switches"] = inv.hosts.size() - hosts;
  index["groups"] = inv.groups.size();
  if (auto st = write_file_atomic((tmp / kInventoryMarker).string(), index.dump(2) + "\n"); !st) return st;
  return staged->commit();
}

}  // namespace hpn
