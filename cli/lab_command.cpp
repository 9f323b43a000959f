#include "cli/lab_command.h"

#include "cli/completion.h"
#include "cli/exit.h"
#include "cli/progress.h"

#include <algorithm>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "blueprint/store.h"
#include "lab/lab.h"
#include "lab/lab_fleet.h"
#include "lab/lab_verify.h"
#include "blueprint/atomic_file.h"
#include "blueprint/export_ansible.h"
#include "lab/netlink_ops.h"
#include "blueprint/fabric_index.h"
#include "blueprint/text_table.h"
#include <limits.h>
#include <nlohmann/json.hpp>

namespace hpn::cli {

namespace {

bool need_root(const char* command) {
  if (geteuid() == 0) return true;
  fail(kEnvironmentError,
       fmt::format("lab {} needs root (network namespaces, veth pairs and sysctls); run it with sudo", command));
  return false;
}

// The lab record this command works on ($HPNCTL_LAB_STATE, hpnctl-lab(1));
// nullopt, the error printed, when the variable is malformed.
std::optional<std::string> state_path() {
  auto path = lab::lab_state_path();
  if (!path) {
    fail(kInputError, path.error().message);
    return std::nullopt;
  }
  return path.value();
}

struct UpOptions {
  std::string blueprint = "hpn-plan";
  std::optional<std::string> wiring;
  int loss = 0;  // percent, every cable both ways
  bool host_bonds = false;
  bool ssh = false;
};

int run_up(const UpOptions& o, const Verbosity& v) {
  auto store = BlueprintStore::open(o.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  lab::LabUpRequest request;
  request.blueprint = &bp.value();
  // Recorded absolute, so `lab status` from anywhere names the right plan.
  request.blueprint_path = std::filesystem::absolute(o.blueprint).lexically_normal().string();
  if (o.wiring) {
    auto wiring = lab::read_wiring_file(*o.wiring, *bp);
    // Wiring errors are already `wiring.csv:12: ...` lines.
    if (!wiring) return fail_located(kInputError, wiring.error().message);
    request.wiring = std::move(wiring.value());
    request.wiring.source = std::filesystem::absolute(*o.wiring).lexically_normal().string();
  } else {
    request.wiring = lab::planned_wiring(*bp);
  }
  request.wiring.loss_percent = o.loss;
  request.host_bonds = o.host_bonds;
  request.ssh = o.ssh;
  const auto record = state_path();
  if (!record) return kInputError;
  request.state_path = *record;
  if (auto size = lab::check_lab_size(*bp, request.wiring); !size) return fail(kInputError, size.error().message);
  if (!need_root("up")) return kEnvironmentError;
  lab::NetlinkOps ops;
  Progress progress(v);
  auto state = lab::lab_up(request, ops, [&](std::string_view what) { progress.status(fmt::format("lab up: {}...", what)); });
  progress.finish();
  if (!state) return fail(kEnvironmentError, "lab up: " + state.error().message);
  if (v.quiet) return kOk;
  size_t ports = 0;
  for (const auto& d : state->devices) ports += d.ports.size();
  std::cout << fmt::format(
      "lab {} is up: {} namespaces ({}*), {} cables, wired {}{}\n"
      "'hpnctl lab status' lists devices and ports, 'hpnctl lab down' removes the lab\n",
      state->id, state->namespaces.size(), state->prefix, ports / 2,
      o.wiring ? "by " + *o.wiring : "as planned",
      o.loss > 0 ? fmt::format(", {}% random loss on every cable both ways", o.loss) : "");
  if (o.ssh) {
    std::cout << fmt::format(
        "management network {} (this machine: {} on {}), sshd in {} devices; 'hpnctl lab inventory -o FILE' "
        "writes their Ansible inventory\n",
        state->mgmt_netns, state->mgmt_controller, lab::management_ifname(state->id), state->devices.size());
  }
  return kOk;
}

int run_down() {
  const auto record = state_path();
  if (!record) return kInputError;
  if (!need_root("down")) return kEnvironmentError;
  lab::NetlinkOps ops;
  auto report = lab::lab_down(*record, ops);
  if (!report) return fail(kEnvironmentError, "lab down: " + report.error().message);
  if (!report->had_lab) {
    std::cerr << "hpnctl: no lab is up\n";
    return kOk;
  }
  std::cout << fmt::format("lab {} is down: {} namespaces removed\n", report->id, report->namespaces_removed);
  return kOk;
}

int run_status(const std::string& format) {
  // table, as devices and cable say it; "text", the older name, stays an alias.
  if (format != "table" && format != "text" && format != "json") return fail(kInputError, "--format must be table or json");
  const auto record = state_path();
  if (!record) return kInputError;
  if (!need_root("status")) return kEnvironmentError;
  lab::NetlinkOps ops;
  auto status = lab::lab_status(*record, ops);
  if (!status) return fail(kEnvironmentError, "lab status: " + status.error().message);
  if (!status->has_value()) {
    return fail(kEnvironmentError, fmt::format("no lab is up (no record at {})", *record));
  }
  if (format == "json") {
    std::cout << lab::status_json(**status).dump(2) << '\n';
  } else {
    lab::render_status(**status, std::cout);
  }
  return kOk;
}

// `lab inventory`: the running lab as Ansible's inventory (lab_fleet.h).
int run_inventory(const std::string& output) {
  const auto record = state_path();
  if (!record) return kInputError;
  auto loaded = lab::LabStateFile(*record).load();
  if (!loaded) return fail(kEnvironmentError, "lab inventory: " + loaded.error().message);
  if (!loaded->has_value()) {
    return fail(kEnvironmentError, fmt::format("no lab is up (no record at {})", *record));
  }
  const lab::LabState& state = **loaded;
  if (state.phase != "up") {
    return fail(kEnvironmentError, fmt::format("lab {} is not up (phase '{}')", state.id, state.phase));
  }
  auto store = BlueprintStore::open(state.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  char self[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return fail(kEnvironmentError, "cannot find this program's path");
  auto inventory = lab::lab_inventory(*bp, state, std::string(self, static_cast<size_t>(n)));
  if (!inventory) return fail(kEnvironmentError, "lab inventory: " + inventory.error().message);
  if (output == "-") {
    write_inventory_yaml(*inventory, std::cout);
    return kOk;
  }
  if (auto st = write_file_atomic(output, [&](std::ostream& out) { write_inventory_yaml(*inventory, out); }); !st) {
    return fail(kEnvironmentError, "lab inventory: " + st.error().message);
  }
  return kOk;
}

struct PingOptions {
  std::string src, dst;
  int sport = 49152;
  int nic = 1;
  std::string format = "table";
};

// `lab ping`: one probe, its hops translated back to the blueprint's names.
int run_ping(const PingOptions& o) {
  if (o.format != "table" && o.format != "text" && o.format != "json") {
    return fail(kInputError, "--format must be table or json");
  }
  const auto record = state_path();
  if (!record) return kInputError;
  if (!need_root("ping")) return kEnvironmentError;
  lab::NetlinkOps ops;
  auto status = lab::lab_status(*record, ops);
  if (!status) return fail(kEnvironmentError, "lab ping: " + status.error().message);
  if (!status->has_value()) return fail(kEnvironmentError, "no lab is up; run 'hpnctl lab up' first");
  const lab::LabState& state = (**status).state;
  auto store = BlueprintStore::open(state.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  // What the user named is checked here (exit 2); what fails past this
  // point is the lab's (exit 3).
  FabricIndex names(*bp);
  for (const auto* host : {&o.src, &o.dst}) {
    const int d = names.device_by_name(*host);
    if (d < 0 || bp->devices[d].role != Role::host) {
      return fail(kInputError, fmt::format("lab ping: no host '{}' in the lab's plan ({})", *host, state.blueprint));
    }
    const auto& ports = bp->panels[bp->devices[d].panel].ports;
    if (std::none_of(ports.begin(), ports.end(), [&](const auto& p) { return p.nic == o.nic; })) {
      return fail(kInputError, fmt::format("lab ping: {} has no back-end NIC {}", *host, o.nic));
    }
  }
  char self[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return fail(kEnvironmentError, "cannot find this program's path");
  auto made = lab::make_work_dir("ping");
  if (!made) return fail(kEnvironmentError, "lab ping: " + made.error().message);
  const std::string work = made.value();
  auto seen = lab::lab_ping(*bp, state, lab::status_json(**status).dump(), std::string(self, static_cast<size_t>(n)),
                            work, o.src, o.dst, o.nic, o.sport);
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (!seen) return fail(kEnvironmentError, "lab ping: " + seen.error().message);
  FabricIndex index(*bp);
  auto port_name = [&](int device, int id) -> std::string {
    int p = index.port_by_id(device, id);
    return p < 0 ? "?" : index.port({device, p}).name;
  };
  nlohmann::ordered_json hops = nlohmann::ordered_json::array();
  TextTable table({"hop", "device", "node_id", "in_port", "out_port", "in_id", "out_id"});
  int k = 0;
  for (const auto& h : seen->hops) {
    int d = index.device_by_node_id(h.node_id);
    std::string device = d < 0 ? "?" : bp->devices[d].name;
    std::string in = d < 0 ? "?" : port_name(d, h.ingress_if), out = d < 0 ? "?" : port_name(d, h.egress_if);
    hops.push_back({{"device", device}, {"node_id", h.node_id}, {"in_port", in}, {"out_port", out},
                    {"ingress_if", h.ingress_if}, {"egress_if", h.egress_if}, {"hop_limit", h.hop_limit}});
    table.add({std::to_string(++k), device, std::to_string(h.node_id), in, out, std::to_string(h.ingress_if),
               std::to_string(h.egress_if)});
  }
  if (o.format == "json") {
    nlohmann::ordered_json j{{"src", {{"device", seen->src_device}, {"port", seen->src_port}, {"udp_port", o.sport}}},
                             {"dst", {{"device", seen->dst_device}, {"address", seen->dst_address}, {"port", seen->rx_port}}},
                             {"hops", hops}};
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << fmt::format("{}:{} -> {} {} (udp source port {}), arrived on {}\n", seen->src_device,
                             seen->src_port, seen->dst_device, seen->dst_address, o.sport, seen->rx_port);
    table.render(std::cout);
  }
  return kOk;
}

}  // namespace

void add_lab_commands(CLI::App& app, int& exit_code) {
  auto* lab = app.add_subcommand("lab", "A fabric of Linux routers in network namespaces (see hpnctl-lab(1))");
  lab->require_subcommand(1);

  auto up = std::make_shared<UpOptions>();
  auto* up_cmd = lab->add_subcommand("up", "Build the lab from a plan and its actual wiring");
  up_cmd->add_option("--blueprint", up->blueprint, "Plan directory")->capture_default_str();
  up_cmd->add_option("--wiring", up->wiring, "Wiring file (cabling.csv columns, optional fault column)");
  up_cmd->add_option("--loss", up->loss, "Random loss (percent) on every cable, both directions")
      ->check(CLI::Range(0, lab::kMaxBackgroundLoss))->capture_default_str();
  up_cmd->add_flag("--host-bonds", up->host_bonds,
                   "Apply the hosts' profiles with real bonds (the kernel needs bonding), not as host apply --no-bond");
  up_cmd->add_flag("--ssh", up->ssh,
                   "Also a management network (198.18.0.0/16) with sshd in every device, for Ansible "
                   "('hpnctl lab inventory')");
  up_cmd->callback([up, up_cmd, &exit_code] { exit_code = run_up(*up, verbosity_of(*up_cmd)); });

  auto* down_cmd = lab->add_subcommand("down", "Remove everything the lab made");
  down_cmd->callback([&exit_code] { exit_code = run_down(); });

  auto format = std::make_shared<std::string>("table");
  auto* status_cmd = lab->add_subcommand("status", "Devices, namespaces and ports of the lab");
  with_values(status_cmd->add_option("--format", *format, "table or json"), {"table", "json"})->capture_default_str();
  status_cmd->callback([format, &exit_code] { exit_code = run_status(*format); });

  auto ping = std::make_shared<PingOptions>();
  auto* ping_cmd = lab->add_subcommand("ping", "Send one IOAM probe between two hosts and show its hops");
  ping_cmd->add_option("src", ping->src, "Sending host")->required();
  ping_cmd->add_option("dst", ping->dst, "Receiving host")->required();
  ping_cmd->add_option("--sport", ping->sport, "UDP source port (picks the ECMP path)")->capture_default_str()
      ->check(CLI::Range(1, 65535));
  ping_cmd->add_option("--nic", ping->nic, "Back-end NIC (rail) to send from and to")->capture_default_str()
      ->check(CLI::Range(1, 15));
  with_values(ping_cmd->add_option("--format", ping->format, "table or json"), {"table", "json"})->capture_default_str();
  ping_cmd->callback([ping, &exit_code] { exit_code = run_ping(*ping); });

  auto inventory = std::make_shared<std::string>();
  auto* inventory_cmd =
      lab->add_subcommand("inventory", "Write the Ansible inventory of a lab brought up with --ssh");
  inventory_cmd->add_option("-o,--output", *inventory, "Inventory file (YAML); - for standard output")->required();
  inventory_cmd->callback([inventory, &exit_code] { exit_code = run_inventory(*inventory); });
}

}  // namespace hpn::cli
