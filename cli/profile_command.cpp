#include "cli/profile_command.h"

#include "cli/completion.h"
#include "cli/exit.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blueprint/store.h"
#include "blueprint/diagnostics.h"
#include "hostconfig/nic_map.h"
#include "hostconfig/profile.h"
#include "hostconfig/profile_files.h"
#include "hostconfig/profile_json.h"
#include "hostconfig/profile_output.h"
#include "hostconfig/profile_paths.h"

namespace hpn::cli {

namespace {

struct ProfileArgs {
  std::string host;
  bool all = false;
  std::string output;
  std::string blueprint = "hpn-plan";
  std::string format = "json";
  std::string bond_mode;
  std::optional<int> mtu;
  std::string paths;
  std::vector<std::string> nic_map;
};

void print_files(const std::vector<ProfileFile>& files, std::ostream& out) {
  // Several files on one stream, headed the way head(1) heads them.
  for (size_t i = 0; i < files.size(); ++i) {
    std::string name = files[i].path.substr(files[i].path.find('/') + 1);
    out << (i ? "\n" : "") << "# ==> " << name << " <==\n" << files[i].content;
  }
}

int run(const ProfileArgs& a) {
  if (a.all == !a.host.empty()) return fail(kInputError, "name one HOST, or give --all -o DIR");
  if (a.all && a.output.empty()) return fail(kInputError, "--all writes every host's profile: give -o DIR");
  if (a.all && !a.nic_map.empty()) return fail(kInputError, "--nic-map maps one host's ports: name the HOST, not --all");
  if (a.format != "json" && a.format != "networkd" && a.format != "netplan" && a.format != "env") {
    return fail(kInputError, "--format must be json, networkd, netplan or env");
  }
  ProfileOptions options;
  if (!a.bond_mode.empty()) {
    BondMode mode;
    if (!parse_bond_mode(a.bond_mode, mode)) {
      return fail(kInputError, fmt::format("--bond-mode '{}': one of balance-xor, 802.3ad, active-backup", a.bond_mode));
    }
    options.mode = mode;
  }
  if (a.mtu && (*a.mtu < 1280 || *a.mtu > 9216)) return fail(kInputError, "--mtu must be between 1280 and 9216");
  options.mtu = a.mtu;
  if (a.all) {
    if (auto target = check_profile_target(a.output); !target) return fail(kInputError, target.error().message);
  } else if (!a.output.empty()) {
    if (auto target = check_host_profile_target(a.output); !target) return fail(kInputError, target.error().message);
  }
  std::optional<PathsFile> paths;
  if (!a.paths.empty()) {
    auto loaded = load_paths_file(a.paths);
    if (!loaded) return fail(kInputError, loaded.error().message);
    paths = std::move(loaded.value());
    options.paths = &*paths;
  }
  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  auto builder = ProfileBuilder::create(bp.value(), options);
  if (!builder) return fail(kInputError, builder.error().message);

  if (a.all) {
    auto written = write_profiles(builder.value(), a.output);
    if (!written) return fail(kEnvironmentError, written.error().message);
    std::cout << fmt::format("wrote {} host profiles ({} files) to {}/\n", written->hosts, written->files,
                             a.output);
    return kOk;
  }
  auto host = builder->find_host(a.host);
  if (!host) {
    for (const auto& d : bp->devices) {
      if (d.name == a.host) return fail(kInputError, fmt::format("{} is a {}, not a host", a.host, to_string(d.role)));
    }
    std::string guess = closest_match(a.host, builder->host_names());
    return fail(kInputError, fmt::format("no host '{}' in {}{}", a.host, store->path(),
                            guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
  }
  HostProfile profile = builder->build(*host);
  if (!a.nic_map.empty()) {
    auto map = load_nic_map(a.nic_map, planned_ports(profile));
    if (!map) return fail(kInputError, map.error().message);
    apply_nic_map(profile, map.value());
  }
  if (!a.output.empty()) {
    auto written = write_host_profile(profile, a.output);
    if (!written) return fail(kEnvironmentError, written.error().message);
    std::cout << fmt::format("wrote the profile of {} ({} files) to {}/\n", profile.host, written->files, a.output);
    if (link_files_are_templates(profile)) {
      std::cerr << fmt::format("hpnctl: note: no --nic-map: {0}/link/*.link.in and {0}/udev/*.rules.in are templates; "
                               "fill in their @placeholders@, or give the host's `ip -j -d link` with --nic-map\n",
                               a.output);
    }
    return kOk;
  }
  if (a.format == "json") {
    std::cout << profile_json(profile).dump(2) << '\n';
  } else if (a.format == "networkd") {
    print_files(networkd_files(profile), std::cout);
  } else if (a.format == "netplan") {
    std::cout << netplan_yaml(profile);
  } else {
    std::cout << nccl_env(profile);
  }
  return kOk;
}

}  // namespace

void add_profile_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProfileArgs>();
  auto* cmd = app.add_subcommand("profile", "Host profiles: bonds, routes, sysctls, NCCL/NCCLX settings");
  with_devices(cmd->add_option("host", args->host, "The host to profile (stdout)"), "HOST");
  cmd->add_flag("--all", args->all, "Every host of the blueprint, into -o DIR");
  cmd->add_option("-o,--output", args->output, "Directory for HOST's files, or --all's; all or nothing");
  cmd->add_option("--blueprint", args->blueprint, "Plan directory")->capture_default_str();
  with_values(cmd->add_option("--format", args->format, "One host: json, networkd, netplan or env"), {"json", "networkd", "netplan", "env"})->capture_default_str();
  cmd->add_option("--bond-mode", args->bond_mode,
                  "balance-xor, 802.3ad or active-backup; default: the spec's transport.bond_mode");
  cmd->add_option("--mtu", args->mtu, "Back-end bond MTU; default: the spec's transport.mtu");
  cmd->add_option("--nic-map", args->nic_map,
                  "HOST's `ip -j -d link`, `rdma -j link` or a YAML map: real ports -> nicNpM (repeatable)");
  cmd->add_option("--paths", args->paths, "Disjoint UDP source ports per destination (JSON, from verify)");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace hpn::cli
