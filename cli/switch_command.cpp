#include "cli/switch_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "blueprint/input_file.h"
#include "cli/exit.h"
#include "cli/progress.h"
#include "switch/host_routes.h"
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

}  // namespace

void add_switch_commands(CLI::App& app, int& exit_code) {
  auto* sw = app.add_subcommand("switch", "Run on a switch: the ToR host-route agent");
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
}

}  // namespace hpn::cli
