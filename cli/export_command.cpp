#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/atomic_file.h"
#include "blueprint/export_ansible.h"
#include "blueprint/export_diagram.h"
#include "blueprint/export_graphviz.h"
#include "blueprint/export_links.h"
#include "blueprint/export_scope.h"
#include "blueprint/export_xlsx.h"
#include "blueprint/store.h"
#include "cli/completion.h"
#include "cli/exit.h"
#include "blueprint/diagnostics.h"

namespace hpn::cli {

namespace {

struct ExportArgs {
  std::string format;
  std::string format_option;  // --format, as every other command takes it
  std::string output;
  std::string blueprint = "hpn-plan";
  std::string device;
  std::optional<int> pod, segment;
};

using LinkWriter = void (*)(const Blueprint&, const std::vector<int>&, std::ostream&);

// The one-file cable lists, by format name.
struct LinkFormat {
  const char* name;
  LinkWriter write;
};
constexpr LinkFormat kLinkFormats[] = {
    {"ptm", write_ptm_topology},
    {"sonic", write_sonic_links},
    {"netbox", write_netbox_cables},
    {"batfish", write_batfish_layer1},
};

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> kNames{"ptm", "sonic", "netbox", "batfish", "xlsx", "dot", "svg", "ansible"};
  return kNames;
}

// The Ansible inventory is of the whole plan: Ansible's --limit picks the
// devices (pod_0, segment_0_3, rack_H0_R02_05), so the scope options do not apply.
int export_ansible(const ExportArgs& a) {
  if (a.output.empty()) return fail(kInputError, "ansible writes an inventory directory: give -o DIR");
  if (!a.device.empty() || a.pod || a.segment) {
    return fail(kInputError,
                "ansible writes the inventory of the whole plan: pick devices with Ansible's --limit "
                "(pod_0, segment_0_3, rack_H0_R02_05), not --pod, --segment or --switch");
  }
  if (auto st = check_inventory_target(a.output); !st) return fail(kInputError, st.error().message);
  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto loaded = store->load();
  if (!loaded) return fail(kInputError, loaded.error().message);
  auto inventory = build_inventory(loaded.value());
  if (!inventory) return fail(kInputError, fmt::format("{}: {}", store->path(), inventory.error().message));
  if (auto st = write_inventory(*inventory, a.output); !st) return fail(kEnvironmentError, st.error().message);
  size_t hosts = std::count_if(inventory->hosts.begin(), inventory->hosts.end(),
                               [](const InventoryHost& h) { return h.role == Role::host; });
  std::cout << fmt::format("wrote the inventory of {} hosts and {} switches in {} groups to {}/\n", hosts,
                           inventory->hosts.size() - hosts, inventory->groups.size(), a.output);
  return kOk;
}

int run(ExportArgs a) {
  // --format FORMAT, or the positional form kept from before.
  if (!a.format_option.empty() && !a.format.empty() && a.format_option != a.format) {
    return fail(kInputError, fmt::format("two formats, '{}' and --format {}: give one", a.format, a.format_option));
  }
  if (a.format.empty()) a.format = a.format_option;
  const auto& names = format_names();
  if (a.format.empty()) return fail(kInputError, fmt::format("give --format, one of {}", fmt::join(names, ", ")));
  if (std::find(names.begin(), names.end(), a.format) == names.end()) {
    std::string guess = closest_match(a.format, names);
    return fail(kInputError, fmt::format("unknown export format '{}'{}; one of {}", a.format,
                                         guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess),
                                         fmt::join(names, ", ")));
  }
  if (a.format == "ansible") return export_ansible(a);
  const bool diagrams = a.format == "dot" || a.format == "svg";
  if (diagrams && !a.device.empty()) {
    return fail(kInputError,
                "--switch applies to ptm, sonic, netbox, batfish and xlsx; diagrams take --pod and --segment");
  }
  if ((a.format == "xlsx" || a.format == "svg") && a.output.empty()) {
    return fail(kInputError, a.format == "xlsx" ? "xlsx is a binary file: give -o FILE"
                                                : "svg writes one file per diagram: give -o DIR");
  }
  if (a.pod && *a.pod < 0) return fail(kInputError, "--pod must be 0 or more");
  if (a.segment && *a.segment < 0) return fail(kInputError, "--segment must be 0 or more");
  if (a.format == "svg" && !graphviz_available()) {
    return fail(kEnvironmentError, "svg needs Graphviz's dot on PATH (Debian package graphviz)");
  }

  if (diagrams && !a.output.empty()) {
    if (auto st = check_diagram_target(a.output); !st) return fail(kInputError, st.error().message);
  }
  std::error_code ec;
  if (!diagrams && !a.output.empty() && std::filesystem::is_directory(a.output, ec)) {
    return fail(kInputError, fmt::format("{}: is a directory; {} writes one file", a.output, a.format));
  }

  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto loaded = store->load();
  if (!loaded) return fail(kInputError, loaded.error().message);
  const Blueprint& bp = loaded.value();

  ExportScope scope;
  scope.pod = a.pod;
  scope.segment = a.segment;
  if (!a.device.empty()) {
    std::vector<std::string> switches;
    for (size_t i = 0; i < bp.devices.size(); ++i) {
      if (bp.devices[i].name == a.device) scope.device = static_cast<int>(i);
      if (bp.devices[i].role != Role::host) switches.push_back(bp.devices[i].name);
    }
    if (scope.device == kNone) {
      std::string guess = closest_match(a.device, switches);
      return fail(kInputError, fmt::format("--switch {}: no such device in {}{}", a.device, store->path(),
                                           guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
    }
  }
  if (auto st = check_scope(bp, scope); !st) return fail(kInputError, st.error().message);

  if (diagrams) {
    std::vector<Diagram> list = build_diagrams(bp, scope);
    if (a.output.empty()) {
      // Several graphs in one stream: dot(1) reads them one after another.
      for (const auto& d : list) std::cout << d.dot;
      return kOk;
    }
    if (auto st = write_diagrams(bp, list, a.output, a.format == "svg"); !st) {
      return fail(kEnvironmentError, st.error().message);
    }
    std::cout << fmt::format("wrote {} diagrams ({}) to {}/\n", list.size(), a.format, a.output);
    return kOk;
  }

  std::vector<int> cables = select_cables(bp, scope);
  if (a.format == "xlsx") {
    auto sheets = cabling_sheets(bp, cables);
    if (auto st = write_cabling_workbook(bp, sheets, a.output); !st) return fail(kEnvironmentError, st.error().message);
    std::cout << fmt::format("wrote {} cables on {} sheets to {}\n", cables.size(), sheets.size(), a.output);
    return kOk;
  }
  LinkWriter write = nullptr;
  for (const auto& f : kLinkFormats) {
    if (a.format == f.name) write = f.write;
  }
  if (a.output.empty()) {
    write(bp, cables, std::cout);  // a write error is main's to report (exit 3)
    return kOk;
  }
  auto written = write_file_atomic(a.output, [&](std::ostream& out) { write(bp, cables, out); });
  if (!written) return fail(kEnvironmentError, written.error().message);
  std::cout << fmt::format("wrote {} cables ({}) to {}\n", cables.size(), a.format, a.output);
  return kOk;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write the plan for PTM, SONiC, NetBox, Batfish, a workbook, Graphviz or Ansible");
  with_values(cmd->add_option("--format", args->format_option, "ptm, sonic, netbox, batfish, xlsx, dot, svg or ansible"),
              {"ptm", "sonic", "netbox", "batfish", "xlsx", "dot", "svg", "ansible"});
  with_values(cmd->add_option("format", args->format, "The same as --format (the older form)"),
              {"ptm", "sonic", "netbox", "batfish", "xlsx", "dot", "svg", "ansible"});
  cmd->add_option("-o,--output", args->output,
                  "File to write (dot, svg, ansible: a directory, written all or nothing); default stdout");
  cmd->add_option("--blueprint", args->blueprint, "Plan directory")->capture_default_str();
  with_devices(cmd->add_option("--switch", args->device, "Only the cables of this switch (not for dot, svg)"), "SWITCH");
  cmd->add_option("--pod", args->pod, "Only pod N (0-based)");
  cmd->add_option("--segment", args->segment, "Only segment N (0-based) of each pod, or of --pod");
  cmd->footer(
      "Formats:\n"
      "  ptm      Cumulus PTM topology.dot\n"
      "  sonic    sonic-mgmt lab links CSV\n"
      "  netbox   NetBox cable bulk-import CSV\n"
      "  batfish  Batfish layer1_topology.json\n"
      "  xlsx     cabling workbook: a sheet per segment and the uplinks (-o FILE)\n"
      "  dot      Graphviz: segment-P-S-rail-R.dot per rail of a segment, pod-P.dot\n"
      "           per pod, each with a legend (-o DIR, or all on stdout)\n"
      "  svg      the same diagrams rendered by Graphviz (-o DIR)\n"
      "  ansible  Ansible inventory (-o DIR): every device by role, pod, segment,\n"
      "           plane, rail and rack, with ansible_host and hpn_profile\n"
      "See hpnctl-export(1).");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace hpn::cli
