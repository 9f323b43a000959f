#include "cli/switch_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <chrono>
#include <thread>
#include <vector>
#include <net/if.h>
#include <nlohmann/json.hpp>
#include <string>

#include "blueprint/input_file.h"
#include "cli/apply_guard.h"
#include "cli/exit.h"
#include "cli/completion.h"
#include "cli/progress.h"
#include "switch/host_routes.h"
#include "switch/switch_apply.h"
#include "switch/switch_netlink.h"
#include "switch/switch_set.h"
#include "system/netns.h"
#include "system/sd_notify.h"
#include "switchconfig/agent_config.h"

namespace hpn::cli {

namespace {

struct AgentArgs {
  std::string config = switchconfig::kAgentConfigPath;
};

// "routing 12 hosts (6 IPv4, 6 IPv6) on 8 ports; 1 configured port missing"
std::string status_line(const lab::HostRouteCount& c) {
  std::string line = fmt::format("routing {} hosts ({} IPv4, {} IPv6) on {} port{}", c.ipv4 + c.ipv6, c.ipv4, c.ipv6,
                                 c.ports, c.ports == 1 ? "" : "s");
  if (c.missing_ports > 0) {
    line += fmt::format("; {} configured port{} missing", c.missing_ports, c.missing_ports == 1 ? "" : "s");
  }
  return line;
}

// Log lines go to stderr, one per line: the journal stamps and tags them.
void log_line(const std::string& line) { std::cerr << shown(line) << '\n' << std::flush; }

int run_agent(const AgentArgs& a, const Verbosity& verbosity) {
  auto text = read_input_file(a.config, "an agent configuration", 1 << 20);
  if (!text) return fail(kInputError, text.error().message);
  auto config = switchconfig::read_agent_config(text.value(), a.config);
  if (!config) return fail(kInputError, config.error().message);
  const lab::HostRouteTarget target = lab::host_route_target(config.value());
  std::string prefixes;
  for (const auto& p : config->prefixes) prefixes += (prefixes.empty() ? "" : ", ") + p.text;
  log_line(fmt::format("switch agent for {}: {} host-facing ports, prefixes {}, table {} protocol {}",
                       config->switch_name, config->ports.size(), prefixes, config->table, config->protocol));
  lab::AgentHooks hooks;
  hooks.verbose = verbosity.verbose;
  hooks.log = log_line;
  hooks.status = [](const lab::HostRouteCount& count, bool ready) {
    const std::string line = status_line(count);
    log_line(line);
    // The unit is Type=notify: READY=1 once the routes it found are
    // settled, so frr.service (After= it) starts with them in place.
    auto sent = lab::notify_systemd(fmt::format("{}STATUS={}", ready ? "READY=1\n" : "", line));
    if (!sent) log_line(sent.error().message);
  };
  auto ran = lab::run_host_route_agent({target}, hooks);
  if (!ran) return fail(kEnvironmentError, ran.error().message);
  (void)lab::notify_systemd("STOPPING=1");
  log_line("stopped; the host routes stay in place");
  return kOk;
}

struct ApplyArgs {
  std::string dir;
  std::string netns;
  std::string format = "text";
  bool dry_run = false;
  int wait_ports = 0;  // seconds
};

// The set's ports this network namespace lacks (if_nametoindex: the ports
// of the calling thread's namespace).
std::vector<std::string> missing_ports(const sw::SwitchSet& set) {
  std::vector<std::string> missing;
  for (const auto& p : set.ports) {
    if (!p.loopback() && if_nametoindex(p.ifname.c_str()) == 0) missing.push_back(p.ifname);
  }
  return missing;
}

// At boot a switch's ports appear as its driver registers them, after
// udev has started: waits until every port of the set is there, at most
// `seconds`, or a signal. Ports still missing are then the identity
// check's to name (exit 2).
Status wait_for_ports(const sw::SwitchSet& set, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool said = false;
  for (;;) {
    const auto missing = missing_ports(set);
    if (missing.empty() || std::chrono::steady_clock::now() >= deadline || apply_signal() != 0) return {};
    if (!said) {
      std::cerr << fmt::format("hpnctl: waiting up to {} s for {} port{} of {} ({}{})\n", seconds, missing.size(),
                               missing.size() == 1 ? "" : "s", set.name, missing.front(),
                               missing.size() > 1 ? ", ..." : "")
                << std::flush;
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int run_apply(const ApplyArgs& a) {
  if (a.format != "text" && a.format != "json") return fail(kInputError, "--format must be text or json");
  if (!a.netns.empty() &&
      (a.netns.find('/') != std::string::npos || a.netns == "." || a.netns == ".." || a.netns.size() > 255)) {
    return fail(kInputError, fmt::format("--netns '{}' is not a namespace name", a.netns));
  }
  auto set = sw::read_switch_set(a.dir);
  if (!set) return fail_located(kInputError, set.error().message);
  auto protocol = sw::agent_protocol(a.dir);
  if (!protocol) return fail(kInputError, protocol.error().message);
  if (!(a.dry_run && a.netns.empty()) && geteuid() != 0) {
    return fail(kEnvironmentError, "switch apply changes this switch's network (netlink, /proc/sys) and needs root; "
                                   "nothing was done. Run it with sudo, or look first with --dry-run");
  }
  if (!a.netns.empty() && !std::filesystem::exists(std::string(lab::kNetnsRunDir) + "/" + a.netns)) {
    return fail(kInputError, fmt::format("no network namespace '{}' (see ip netns list)", a.netns));
  }
  if (a.wait_ports > 0) {
    ApplySignalGuard guard;
    auto waited = in_namespace(a.netns, [&] { return wait_for_ports(set.value(), a.wait_ports); });
    if (!waited) return fail(kEnvironmentError, waited.error().message);
    if (apply_signal() != 0) {
      return fail(kEnvironmentError, fmt::format("interrupted by {} while waiting for ports; nothing was done",
                                                 sigabbrev_np(apply_signal())));
    }
  }
  sw::SwitchState state;
  auto read = in_namespace(a.netns, [&]() -> Status {
    auto s = sw::read_switch_state(sw::sysctl_keys(set.value()));
    if (!s) return s.error();
    state = std::move(s.value());
    return {};
  });
  if (!read) return fail(kEnvironmentError, fmt::format("reading the network state: {}", read.error().message));

  std::string identity = a.netns;
  if (identity.empty()) {
    char name[HOST_NAME_MAX + 1] = "";
    gethostname(name, sizeof name);
    name[HOST_NAME_MAX] = '\0';
    identity = name;
  }
  const std::string where = a.netns.empty() ? set->name : fmt::format("{} (namespace {})", set->name, a.netns);
  if (auto problems = sw::identity_problems(set.value(), state, identity, !a.netns.empty()); !problems.empty()) {
    std::string message = fmt::format("{} is not this switch's set; nothing was done:\n", a.dir);
    for (const auto& p : problems) message += "  " + p + "\n";
    return fail(kInputError, message);
  }
  auto plan = sw::plan_changes(set.value(), state, protocol.value());
  if (!plan) return fail(kEnvironmentError, fmt::format("{}; nothing was done", plan.error().message));
  if (!plan->conflicts.empty()) {
    std::string message = fmt::format("{}: {} carries what the set does not own; nothing was done:\n", a.dir, where);
    for (const auto& c : plan->conflicts) message += "  " + c + "\n";
    message += "  (remove them by hand if they are stale: switch apply never removes what it did not make)";
    return fail(kInputError, message);
  }
  const auto& changes = plan->changes;

  sw::ApplyOutcome outcome;
  if (!a.dry_run && !changes.empty()) {
    ApplySignalGuard guard;
    auto ran = in_namespace(a.netns, [&]() -> Status {
      sw::NetlinkSwitchOps ops;
      outcome = sw::apply_plan(plan.value(), ops, [] { return apply_signal() != 0; });
      return {};
    });
    if (!ran) return fail(kEnvironmentError, ran.error().message);
    if (outcome.interrupted) outcome.error = fmt::format("interrupted by {}", sigabbrev_np(apply_signal()));
  }
  const bool failed = !outcome.ok();
  const std::string result = changes.empty() ? "unchanged" : a.dry_run ? "dry-run" : failed ? "rolled-back" : "applied";

  if (a.format == "json") {
    nlohmann::ordered_json j;
    j["switch"] = set->name;
    j["node_id"] = set->node_id;
    j["netns"] = a.netns.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.netns);
    j["dry_run"] = a.dry_run;
    j["result"] = result;
    j["changes"] = nlohmann::ordered_json::array();
    for (const auto& c : changes) j["changes"].push_back(sw::change_json(c));
    j["applied"] = failed ? 0 : outcome.applied;
    if (failed) {
      j["failed_step"] = {{"step", *outcome.failed_step + 1}, {"text", changes[*outcome.failed_step].text()},
                          {"error", outcome.error}};
      j["rolled_back"] = nlohmann::ordered_json::array();
      for (size_t i : outcome.undone) j["rolled_back"].push_back(changes[i].text());
      j["undo_errors"] = outcome.undo_errors;
    } else {
      j["failed_step"] = nullptr;
    }
    std::cout << j.dump(2) << '\n';
  } else if (changes.empty()) {
    std::cout << where << ": nothing to change (0 changes)\n";
  } else {
    std::cout << fmt::format("{}: {} change{}{}\n", where, changes.size(), changes.size() == 1 ? "" : "s",
                             a.dry_run ? " (dry run: nothing is changed)" : "");
    sw::render_plan(plan.value(), std::cout);
    if (!a.dry_run && !failed) {
      std::cout << fmt::format("applied {} change{}\n", outcome.applied, outcome.applied == 1 ? "" : "s");
    }
    if (failed) {
      std::cout << fmt::format("rolled back {} change{}, newest first:\n", outcome.undone.size(),
                               outcome.undone.size() == 1 ? "" : "s");
      for (size_t i : outcome.undone) std::cout << "  undo " << changes[i].text() << '\n';
    }
  }
  if (failed) {
    std::string message =
        outcome.interrupted
            ? fmt::format("{} before step {} of {}: {}", outcome.error, *outcome.failed_step + 1, changes.size(),
                          changes[*outcome.failed_step].text())
            : fmt::format("step {} of {} failed: {}\n  {}", *outcome.failed_step + 1, changes.size(),
                          changes[*outcome.failed_step].text(), outcome.error);
    if (outcome.undo_errors.empty()) {
      message += fmt::format("\n  the {} change{} made before it {} rolled back", outcome.undone.size(),
                             outcome.undone.size() == 1 ? "" : "s", outcome.undone.size() == 1 ? "was" : "were");
    } else {
      message += "\n  rollback incomplete, the switch is partly changed:";
      for (const auto& e : outcome.undo_errors) message += "\n  " + e;
    }
    return fail(kEnvironmentError, message);
  }
  return kOk;
}

}  // namespace

void add_switch_commands(CLI::App& app, int& exit_code) {
  auto* sw = app.add_subcommand("switch", "Run on a switch: apply its file set; the ToR host-route agent");
  sw->require_subcommand(1);

  auto args = std::make_shared<AgentArgs>();
  auto* agent = sw->add_subcommand(
      "agent", "Turn the hosts a ToR's host-facing ports hear (ARP/ND) into /32 and /128 routes for FRR (CAP_NET_ADMIN)");
  agent->add_option("--config", args->config,
                    "Agent configuration (JSON, switch-agent.json from hpnctl config --all)")
      ->capture_default_str();
  agent->footer("Runs until SIGTERM or SIGINT. A stop leaves the routes in place; a restart keeps\n"
                "each one still valid. Each route change is a line on stderr; systemd is told\n"
                "READY=1 and STATUS= (how many hosts it routes).\n"
                "Exit status: 0 stopped by a signal, 2 bad configuration, 3 no CAP_NET_ADMIN\n"
                "or netlink failed. See hpnctl-switch(1).");
  agent->callback([args, agent, &exit_code] { exit_code = run_agent(*args, verbosity_of(*agent)); });

  auto apply = std::make_shared<ApplyArgs>();
  auto* cmd = sw->add_subcommand(
      "apply", "Make this switch's interfaces and sysctls what its file set from config --all says (root)");
  cmd->add_option("dir", apply->dir, "The switch's directory of hpnctl config --all (interfaces, sysctl.conf, ioam.conf)")
      ->required();
  cmd->add_option("--netns", apply->netns, "Apply inside this named network namespace");
  cmd->add_flag("--dry-run", apply->dry_run, "Print the changes as a diff; change nothing");
  cmd->add_option("--wait-ports", apply->wait_ports,
                  "Wait up to this many seconds for the set's ports to appear (at boot)")
      ->check(CLI::Range(0, 3600));
  with_values(cmd->add_option("--format", apply->format, "text or json"), {"text", "json"})->capture_default_str();
  cmd->footer("Adds the IOAM namespace; sets sysctls, a host port's gateway MAC, MTUs,\n"
              "addresses and admin state; removes nothing. Refuses a set of another switch\n"
              "(the name on the interfaces file's first line, node ID, a port missing), a\n"
              "fabric port carrying an address or route the set does not own, and an IOAM\n"
              "namespace of the set's ID given data or a\n"
              "schema. The IOAM namespace needs a kernel with IPv6 IOAM (exit 3 without).\n"
              "A failed step or SIGINT/SIGTERM/SIGHUP rolls back every step made, newest first.\n"
              "Exit status: 0 applied or nothing to change, 2 bad set, another switch's set or\n"
              "a conflict (nothing done), 3 not root, a sysctl the kernel lacks, a kernel step\n"
              "failed or a signal came (rolled back). See hpnctl-switch(1).");
  cmd->callback([apply, &exit_code] { exit_code = run_apply(*apply); });
}

}  // namespace hpn::cli
