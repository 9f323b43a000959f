#include "lab/lab_fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "blueprint/atomic_file.h"

namespace hpn::lab {

namespace {

std::string ipv4_text(std::uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 0xFF, (a >> 8) & 0xFF, a & 0xFF);
}

// "10.1.2.0/24" -> {address, length}; false when it is not IPv4.
bool parse_ipv4_prefix(const std::string& text, std::uint32_t& address, int& length) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  int len = 32;
  char slash = 0;
  const int n = std::sscanf(text.c_str(), "%u.%u.%u.%u%c%d", &a, &b, &c, &d, &slash, &len);
  if (n != 4 && !(n == 6 && slash == '/')) return false;
  if (a > 255 || b > 255 || c > 255 || d > 255 || len < 0 || len > 32) return false;
  address = (a << 24) | (b << 16) | (c << 8) | d;
  length = len;
  return true;
}

std::uint32_t mask(int length) { return length == 0 ? 0 : ~std::uint32_t{0} << (32 - length); }

}  // namespace

std::string management_ifname(const std::string& id) { return "hpnm-" + id; }

Result<ManagementNetwork> plan_management(const LabState& state) {
  ManagementNetwork m;
  m.netns = state.prefix + "mgmt";
  m.controller_ifname = management_ifname(state.id);
  m.controller_address = ipv4_text(kManagementBase + 1);
  m.ssh_dir = state.routing_dir + "/ssh";
  // Devices from 198.18.1.0: the first /24 is the machine's side.
  const std::uint32_t first = kManagementBase + 256;
  const std::uint32_t last = kManagementBase + ~mask(kManagementPrefixLen) - 1;
  if (first + state.devices.size() > last) {
    return Error{fmt::format("the management range {}/{} has no room for {} devices",
                             ipv4_text(kManagementBase), kManagementPrefixLen, state.devices.size())};
  }
  for (size_t i = 0; i < state.devices.size(); ++i) {
    m.addresses.push_back(ipv4_text(first + static_cast<std::uint32_t>(i)));
  }
  return m;
}

Status check_management_range(const std::vector<RouteState>& routes) {
  for (const auto& r : routes) {
    std::uint32_t address = 0;
    int length = 0;
    if (r.family != 4 || !parse_ipv4_prefix(r.prefix, address, length) || length == 0) continue;
    const int common = std::min(length, kManagementPrefixLen);
    if ((address & mask(common)) != (kManagementBase & mask(common))) continue;
    return Error{fmt::format(
        "the lab's management range {}/{} is in use on this machine: route {}{} (table {}); another lab "
        "with --ssh is up, or the machine uses the range",
        ipv4_text(kManagementBase), kManagementPrefixLen, r.prefix,
        r.nexthop_ifnames.empty() ? "" : " dev " + r.nexthop_ifnames.front(), r.table)};
  }
  return {};
}

std::string sshd_config(const std::string& ssh_dir) {
  return fmt::format(
      "# sshd of a lab device (hpnctl lab up --ssh); each sshd gets its\n"
      "# ListenAddress and PidFile on the command line.\n"
      "HostKey {0}/{1}\n"
      "AuthorizedKeysFile {0}/{2}.pub\n"
      "PermitRootLogin prohibit-password\n"
      "PasswordAuthentication no\n"
      "KbdInteractiveAuthentication no\n"
      "UsePAM no\n"
      "StrictModes no\n"
      "X11Forwarding no\n"
      "PrintMotd no\n"
      "UseDNS no\n"
      "LogLevel ERROR\n"
      "# The machine's root's shell startup files are the operator's, not a\n"
      "# device's: bash sources ~/.bashrc for a command sshd runs unless it is\n"
      "# a nested shell, and a pyenv set up there made each of Ansible's\n"
      "# commands half a second slower.\n"
      "SetEnv SHLVL=1\n"
      "# Ansible opens several sessions per host at once.\n"
      "MaxStartups 64:30:128\n"
      "MaxSessions 32\n"
      "Subsystem sftp internal-sftp\n",
      ssh_dir, kLabHostKey, kLabClientKey);
}

std::string sshd_pid_file(const std::string& ssh_dir, const std::string& device) {
  return fmt::format("{}/sshd-{}.pid", ssh_dir, device);
}

namespace {

// What a probe agent needs to name a lab device's interfaces (--ports-from).
nlohmann::ordered_json port_names_json(const LabState& state) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : state.devices) {
    nlohmann::ordered_json ports = nlohmann::ordered_json::array();
    for (const auto& p : d.ports) ports.push_back({{"port", p.port}, {"ifname", p.ifname}});
    devices.push_back({{"name", d.name}, {"ports", ports}});
  }
  return {{"devices", devices}};
}

}  // namespace

Status bring_up_management(LabState& state, NetworkOps& ops, const std::function<Status()>& record) {
  auto planned = plan_management(state);
  if (!planned) return planned.error();
  const ManagementNetwork& m = planned.value();
  auto machine = ops.routes("");
  if (!machine) return machine.error();
  if (auto free = check_management_range(machine.value()); !free) return free;

  state.mgmt_netns = m.netns;
  state.mgmt_controller = m.controller_address;
  state.ssh_dir = m.ssh_dir;
  state.namespaces.push_back(m.netns);
  for (size_t i = 0; i < state.devices.size(); ++i) state.devices[i].mgmt_address = m.addresses[i];
  if (auto ok = record(); !ok) return ok;

  if (auto ok = ops.create_namespace(m.netns); !ok) return ok;
  NamespaceConfig hub;
  hub.bridges.push_back(kManagementBridge);
  hub.links_up.push_back(kManagementBridge);
  // The machine's end first: it is the bridge's port "c".
  if (auto ok = ops.add_veth({"", m.controller_ifname, Mac{0x02, 0xfe, 0, 0, 0, 1}}, {m.netns, "c", Mac{0x02, 0xfe, 0, 0, 1, 1}});
      !ok) {
    return ok;
  }
  hub.bridge_ports.push_back({"c", kManagementBridge});
  hub.links_up.push_back("c");
  for (size_t i = 0; i < state.devices.size(); ++i) {
    const auto n = static_cast<std::uint8_t>(i >> 8), k = static_cast<std::uint8_t>(i & 0xFF);
    const std::string port = fmt::format("d{}", i);
    if (auto ok = ops.add_veth({state.devices[i].netns, kManagementIfname, Mac{0x02, 0xfe, 1, 0, n, k}},
                               {m.netns, port, Mac{0x02, 0xfe, 2, 0, n, k}});
        !ok) {
      return ok;
    }
    hub.bridge_ports.push_back({port, kManagementBridge});
    hub.links_up.push_back(port);
  }
  if (auto ok = ops.configure(m.netns, hub); !ok) return ok;
  NamespaceConfig machine_end;
  machine_end.sysctls.push_back({fmt::format("net/ipv6/conf/{}/disable_ipv6", m.controller_ifname), "1"});
  machine_end.addresses.push_back({m.controller_ifname, m.controller_address, kManagementPrefixLen});
  machine_end.links_up.push_back(m.controller_ifname);
  if (auto ok = ops.configure("", machine_end); !ok) return ok;
  for (size_t i = 0; i < state.devices.size(); ++i) {
    NamespaceConfig device;
    // IPv4 only: nothing of the fabric's IPv6 (the probe listeners answer
    // on every interface with IPv6) may reach the management network.
    device.sysctls.push_back({fmt::format("net/ipv6/conf/{}/disable_ipv6", kManagementIfname), "1"});
    device.addresses.push_back({kManagementIfname, m.addresses[i], kManagementPrefixLen});
    device.links_up.push_back(kManagementIfname);
    if (auto ok = ops.configure(state.devices[i].netns, device); !ok) return ok;
  }

  auto host_key = ops.make_ssh_keys(m.ssh_dir, "hpnctl-lab-" + state.id);
  if (!host_key) return host_key.error();
  std::string known;
  for (const auto& a : m.addresses) known += a + " " + host_key.value() + "\n";
  if (auto ok = write_file_atomic(m.ssh_dir + "/" + kLabKnownHosts, known); !ok) return ok;
  const std::string config = m.ssh_dir + "/sshd_config";
  if (auto ok = write_file_atomic(config, sshd_config(m.ssh_dir)); !ok) return ok;
  if (auto ok = write_file_atomic(m.ssh_dir + "/" + kLabPortNames, port_names_json(state).dump() + "\n"); !ok) return ok;
  for (size_t i = 0; i < state.devices.size(); ++i) {
    const auto& d = state.devices[i];
    const std::string pid_file = sshd_pid_file(m.ssh_dir, d.name);
    auto started = ops.start_sshd(d.netns,
                                  {"-f", config, "-o", "ListenAddress=" + m.addresses[i], "-o", "PidFile=" + pid_file},
                                  pid_file);
    if (!started) return Error{fmt::format("sshd for {}: {}", d.name, started.error().message)};
  }
  return {};
}

Result<Inventory> lab_inventory(const Blueprint& bp, const LabState& state, const std::string& hpnctl) {
  if (state.ssh_dir.empty()) {
    return Error{fmt::format("lab {} has no management network: bring it up with 'hpnctl lab up --ssh'", state.id)};
  }
  auto planned = build_inventory(bp);
  if (!planned) return planned.error();
  Inventory& inv = planned.value();
  std::map<std::string, const StateDevice*> in_lab;
  for (const auto& d : state.devices) in_lab[d.name] = &d;
  // Only the lab's devices, renumbered.
  std::vector<int> kept(inv.hosts.size(), -1);
  std::vector<InventoryHost> hosts;
  for (size_t i = 0; i < inv.hosts.size(); ++i) {
    auto it = in_lab.find(inv.hosts[i].name);
    if (it == in_lab.end() || it->second->mgmt_address.empty()) continue;
    const StateDevice& d = *it->second;
    InventoryHost h = std::move(inv.hosts[i]);
    h.ansible_host = d.mgmt_address;
    h.vars.push_back({"hpn_netns", d.netns});
    if (h.role == Role::host) {
      nlohmann::ordered_json apply = {"--netns", d.netns};
      if (!state.host_bonds) apply.push_back("--no-bond");
      h.vars.push_back({"hpnctl_profile_path", fmt::format("{}/hosts/{}/profile.json", state.routing_dir, h.name)});
      h.vars.push_back({"hpnctl_apply_args", apply});
      h.vars.push_back({"hpnctl_announce_args", nlohmann::ordered_json{"--netns", d.netns}});
      // The probe agents of verify.yml: the lab's interface names, its IOAM namespace.
      h.vars.push_back({"hpnctl_probe_args",
                        nlohmann::ordered_json{"--device-name", d.name, "--ports-from",
                                               state.ssh_dir + "/" + kLabPortNames, "--ioam-namespace",
                                               std::to_string(state.ioam_namespace)}});
    } else if (std::find(state.routers.begin(), state.routers.end(), h.name) != state.routers.end()) {
      h.vars.push_back({"hpn_frr_pathspace", d.netns});
      h.vars.push_back({"hpn_frr_conf", fmt::format("{}/{}/frr.conf", state.routing_dir, h.name)});
      // switches.yml's set: where lab up put it (and applied it from), in
      // the switch's namespace, with no package to install (the lab runs
      // the built hpnctl) and no systemd of the switch's own to enable
      // units in (lab up starts the agent as its unit would).
      h.vars.push_back({"hpnctl_switch_dir", fmt::format("{}/{}", state.routing_dir, h.name)});
      h.vars.push_back({"hpnctl_switch_apply_args", nlohmann::ordered_json{"--netns", d.netns}});
      h.vars.push_back({"hpnctl_switch_units", nlohmann::ordered_json::array()});
      h.vars.push_back({"hpnctl_install_package", false});
      // FRR's daemons file and unit: lab up starts the daemons as
      // frr.service would, and the lab's switches have neither.
      h.vars.push_back({"hpnctl_frr_daemons_file", ""});
      h.vars.push_back({"hpnctl_frr_service", ""});
    }
    kept[i] = static_cast<int>(hosts.size());
    hosts.push_back(std::move(h));
  }
  std::vector<InventoryGroup> groups;
  for (auto& g : inv.groups) {
    InventoryGroup k{g.name, {}};
    for (int m : g.members) {
      if (kept[m] >= 0) k.members.push_back(kept[m]);
    }
    if (!k.members.empty()) groups.push_back(std::move(k));
  }
  inv.hosts = std::move(hosts);
  inv.groups = std::move(groups);
  inv.written_by = fmt::format("hpnctl lab inventory, lab {}", state.id);
  inv.address_note = fmt::format("the device's {} address on the lab's management network", kManagementIfname);
  inv.vars = {
      {"ansible_user", "root"},
      {"ansible_ssh_private_key_file", state.ssh_dir + "/" + kLabClientKey},
      {"ansible_ssh_common_args", fmt::format("-o UserKnownHostsFile={}/{} -o StrictHostKeyChecking=yes "
                                              "-o IdentitiesOnly=yes",
                                              state.ssh_dir, kLabKnownHosts)},
      {"ansible_python_interpreter", "/usr/bin/python3"},
      // Modules piped into one ssh session each, not copied first: a third
      // of the time on the lab (root needs no tty for sudo here).
      {"ansible_pipelining", true},
      {"hpnctl_binary", hpnctl},
      {"hpn_lab", state.id},
  };
  return inv;
}

}  // namespace hpn::lab
