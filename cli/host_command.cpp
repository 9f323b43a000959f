#include "cli/host_command.h"

#include "cli/apply_guard.h"
#include "cli/completion.h"
#include "cli/exit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "host/host_announce.h"
#include "host/host_apply.h"
#include "host/host_netlink.h"
#include "host/host_profile.h"
#include "host/host_state.h"
#include "system/netns.h"

namespace hpn::cli {

namespace {

using nlohmann::ordered_json;
using namespace hpn::host;

struct HostArgs {
  std::string profile;
  std::string netns;
  std::string format = "text";
  bool dry_run = false;
  bool no_bond = false;
  bool force = false;
  bool replace_default_route = false;
  int step_delay_ms = 0;
  std::string saved_dir = "/var/lib/hpnctl";
  int count = 1;
};

// What --force removes, saved before it is removed: a JSON file under
// `dir` named for the host and the time. The path, or an error.
Result<std::string> save_removals(const std::string& dir, const std::string& host, const ChangePlan& plan) {
  ordered_json j;
  j["host"] = host;
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  j["time"] = stamp;
  j["conflicts"] = ordered_json::array();
  for (const auto& c : plan.conflicts) j["conflicts"].push_back(c.text);
  j["removed"] = ordered_json::array();
  for (const auto& c : plan.changes) {
    if (c.kind == ChangeKind::remove_address || c.kind == ChangeKind::remove_route || c.kind == ChangeKind::release ||
        c.kind == ChangeKind::bond_options || (c.op == '~' && c.kind == ChangeKind::set_route)) {
      j["removed"].push_back(change_json(c));
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (std::filesystem::path(dir) / fmt::format("host-apply-{}-{}.json", host, stamp)).string();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << '\n';
    if (!out.flush()) return Error{fmt::format("cannot write {}: {}", tmp, std::strerror(errno))};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Error{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  return path;
}

// What the profile's host is checked against: the namespace's name with
// --netns (`ip netns add` gives a namespace no hostname of its own), else
// this host's name.
std::string identity(const HostArgs& a) {
  if (!a.netns.empty()) return a.netns;
  char name[HOST_NAME_MAX + 1] = "";
  gethostname(name, sizeof name);
  name[HOST_NAME_MAX] = '\0';
  return name;
}

// The checks made before anything is read or touched; an exit code, or -1 to go on.
int check_args(const HostArgs& a, const std::string& command, bool needs_root) {
  if (a.format != "text" && a.format != "json") return fail(kInputError, "--format must be text or json");
  if (!a.netns.empty() &&
      (a.netns.find('/') != std::string::npos || a.netns == "." || a.netns == ".." || a.netns.size() > 255)) {
    return fail(kInputError, fmt::format("--netns '{}' is not a namespace name", a.netns));
  }
  if (needs_root && geteuid() != 0) {
    return fail(kEnvironmentError,
                fmt::format("host {} changes this host's network (netlink{}) and needs root; nothing was done. "
                            "Run it with sudo{}",
                            command, command == "apply" ? ", /proc/sys" : ", raw packets",
                            command == "apply" ? ", or look first with --dry-run" : ""));
  }
  if (!a.netns.empty() && !std::filesystem::exists(std::string(lab::kNetnsRunDir) + "/" + a.netns)) {
    return fail(kInputError, fmt::format("no network namespace '{}' (see ip netns list)", a.netns));
  }
  return -1;
}

struct Loaded {
  HostNetwork profile;
  HostState state;
  std::vector<std::string> warnings;  // identity problems overridden by --force
};

// Reads the profile and the state, and refuses a profile of another host
// unless --force. An exit code, or -1 with `out` filled.
int load(const HostArgs& a, const ApplyOptions& options, Loaded& out) {
  auto profile = read_apply_profile(a.profile);
  if (!profile) return fail_located(kInputError, profile.error().message);
  out.profile = std::move(profile.value());
  const auto keys = sysctl_keys(out.profile, options);
  auto read = in_namespace(a.netns, [&]() -> Status {
    auto state = read_host_state(keys);
    if (!state) return state.error();
    out.state = std::move(state.value());
    return {};
  });
  if (!read) return fail(kEnvironmentError, fmt::format("reading the network state: {}", read.error().message));
  auto problems = identity_problems(out.profile, out.state, identity(a), !a.netns.empty());
  if (!problems.empty() && !a.force) {
    std::string message = fmt::format("{} is not this host's profile; nothing was done:\n", a.profile);
    for (const auto& p : problems) message += "  " + p + "\n";
    message += "  (--force applies it anyway)";
    return fail(kInputError, message);
  }
  out.warnings = std::move(problems);
  for (const auto& w : out.warnings) std::cerr << "hpnctl: warning (--force): " << shown(w) << '\n';
  return -1;
}

std::string where(const HostArgs& a, const Loaded& l) {
  return a.netns.empty() ? l.profile.host : fmt::format("{} (namespace {})", l.profile.host, a.netns);
}

int run_apply(const HostArgs& a) {
  if (int rc = check_args(a, "apply", !(a.dry_run && a.netns.empty())); rc >= 0) return rc;
  ApplyOptions options;
  options.no_bond = a.no_bond;
  Loaded l;
  if (int rc = load(a, options, l); rc >= 0) return rc;
  auto plan = plan_changes(l.profile, l.state, options);
  if (!plan) return fail(kInputError, plan.error().message);
  const auto& changes = plan->changes;

  // What the host has that the profile would take away: refused unless
  // overridden, and then saved before anything is removed.
  std::vector<std::string> refused;
  for (const auto& c : plan->conflicts) {
    if (c.default_route ? !a.replace_default_route : !a.force) {
      refused.push_back(c.text + (c.default_route ? " (--replace-default-route replaces it)" : ""));
    }
  }
  if (!refused.empty()) {
    std::string message = fmt::format("{}: {} would change what it does not own here; nothing was done:\n", a.profile,
                                      where(a, l));
    for (const auto& r : refused) message += "  " + r + "\n";
    message += "  (--force removes what stands in the way, saving it first, and rollback restores it)";
    return fail(kInputError, message);
  }
  std::string saved;
  if (!plan->conflicts.empty() && !a.dry_run) {
    auto path = save_removals(a.saved_dir, l.profile.host, plan.value());
    if (!path) return fail(kEnvironmentError, fmt::format("{}; nothing was done", path.error().message));
    saved = path.value();
    std::cerr << fmt::format("hpnctl: saved what this apply removes or replaces to {}\n", saved);
  }

  ApplyOutcome outcome;
  if (!a.dry_run && !changes.empty()) {
    ApplySignalGuard guard;
    auto ran = in_namespace(a.netns, [&]() -> Status {
      NetlinkHostOps ops;
      bool first = true;
      outcome = apply_plan(plan.value(), ops, [&] {
        // A signal cuts the pause short (nanosleep returns on it).
        if (a.step_delay_ms > 0 && !first && apply_signal() == 0) {
          timespec pause{a.step_delay_ms / 1000, static_cast<long>(a.step_delay_ms % 1000) * 1000000L};
          nanosleep(&pause, nullptr);
        }
        first = false;
        return apply_signal() != 0;
      });
      return {};
    });
    if (!ran) return fail(kEnvironmentError, ran.error().message);
    if (outcome.interrupted) outcome.error = fmt::format("interrupted by {}", sigabbrev_np(apply_signal()));
  }
  const bool failed = !outcome.ok();
  const std::string result = changes.empty() ? "unchanged" : a.dry_run ? "dry-run" : failed ? "rolled-back" : "applied";

  if (a.format == "json") {
    ordered_json j;
    j["host"] = l.profile.host;
    j["netns"] = a.netns.empty() ? ordered_json(nullptr) : ordered_json(a.netns);
    j["dry_run"] = a.dry_run;
    j["no_bond"] = a.no_bond;
    j["forced"] = a.force;
    j["warnings"] = l.warnings;
    j["conflicts"] = ordered_json::array();
    for (const auto& c : plan->conflicts) j["conflicts"].push_back(c.text);
    j["saved"] = saved.empty() ? ordered_json(nullptr) : ordered_json(saved);
    j["result"] = result;
    j["changes"] = ordered_json::array();
    for (const auto& c : changes) j["changes"].push_back(change_json(c));
    j["applied"] = failed ? 0 : outcome.applied;
    if (failed) {
      j["failed_step"] = {{"step", *outcome.failed_step + 1}, {"text", changes[*outcome.failed_step].text()},
                          {"error", outcome.error}};
      j["rolled_back"] = ordered_json::array();
      for (size_t i : outcome.undone) j["rolled_back"].push_back(changes[i].text());
      j["undo_errors"] = outcome.undo_errors;
    } else {
      j["failed_step"] = nullptr;
    }
    std::cout << j.dump(2) << '\n';
  } else {
    if (changes.empty()) {
      std::cout << where(a, l) << ": nothing to change\n";
      return kOk;
    }
    std::cout << fmt::format("{}{}: {} change{}{}\n", where(a, l), a.no_bond ? ", --no-bond" : "", changes.size(),
                             changes.size() == 1 ? "" : "s", a.dry_run ? " (dry run: nothing is changed)" : "");
    render_plan(plan.value(), std::cout);
    if (!a.dry_run && !failed) std::cout << fmt::format("applied {} change{}\n", outcome.applied, outcome.applied == 1 ? "" : "s");
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
      message += "\n  rollback incomplete, the host is partly changed:";
      for (const auto& e : outcome.undo_errors) message += "\n  " + e;
    }
    return fail(kEnvironmentError, message);
  }
  return kOk;
}

int run_announce(const HostArgs& a) {
  if (a.count < 1 || a.count > 100) return fail(kInputError, "--count must be between 1 and 100");
  if (int rc = check_args(a, "announce", true); rc >= 0) return rc;
  Loaded l;
  if (int rc = load(a, ApplyOptions{}, l); rc >= 0) return rc;
  auto announcements = plan_announcements(l.profile, l.state);
  if (!announcements) return fail(kInputError, fmt::format("{}: {}", a.profile, announcements.error().message));
  auto sent = in_namespace(a.netns, [&]() -> Status {
    PcapFrameSender sender;
    return send_announcements(announcements.value(), a.count, sender);
  });
  if (!sent) return fail(kEnvironmentError, sent.error().message);
  if (a.format == "json") {
    ordered_json j;
    j["host"] = l.profile.host;
    j["netns"] = a.netns.empty() ? ordered_json(nullptr) : ordered_json(a.netns);
    j["rounds"] = a.count;
    j["warnings"] = l.warnings;
    j["sent"] = ordered_json::array();
    for (const auto& s : *announcements) {
      j["sent"].push_back({{"port", s.port}, {"bond", s.bond}, {"kind", s.kind == AnnounceKind::garp ? "garp" : "na"},
                           {"address", s.address}, {"mac", hpn::to_string(s.mac)}});
    }
    std::cout << j.dump(2) << '\n';
    return kOk;
  }
  std::cout << fmt::format("{}: {} announcement{} x {} round{}\n", where(a, l), announcements->size(),
                           announcements->size() == 1 ? "" : "s", a.count, a.count == 1 ? "" : "s");
  for (const auto& s : *announcements) {
    std::cout << fmt::format("  {} {} from {} on {} ({})\n", s.kind == AnnounceKind::garp ? "gratuitous ARP" : "unsolicited NA",
                             s.address, hpn::to_string(s.mac), s.port, s.bond);
  }
  return kOk;
}

}  // namespace

void add_host_commands(CLI::App& app, int& exit_code) {
  auto* host = app.add_subcommand("host", "Apply a host profile through netlink; announce the host to its ToRs");
  host->require_subcommand(1);
  const char* footer = "Exit status: 0 ok or nothing to change, 2 bad input, another host's profile or a conflict\n"
                       "(nothing done), 3 not root, a kernel step failed or a signal came (rolled back).\n"
                       "See hpnctl-host(1).";

  auto apply = std::make_shared<HostArgs>();
  auto* cmd = host->add_subcommand("apply", "Make this host's network what its profile says (root)");
  cmd->add_option("profile", apply->profile, "Host profile (JSON, from hpnctl profile HOST)")->required();
  cmd->add_option("--netns", apply->netns, "Apply inside this named network namespace");
  cmd->add_flag("--dry-run", apply->dry_run, "Print the changes as a diff; change nothing");
  cmd->add_flag("--no-bond", apply->no_bond,
                "No bonds (a kernel without bonding): the bond's MAC, MTU, sysctls and addresses on every member");
  cmd->add_flag("--force", apply->force,
                "Apply a profile whose host name or MACs are not this host's, and remove what stands in its way "
                "(saved first; rollback restores it)");
  cmd->add_flag("--replace-default-route", apply->replace_default_route,
                "Replace the host's default route where the profile puts one");
  cmd->add_option("--saved-dir", apply->saved_dir, "Where --force saves what it removes")->capture_default_str();
  cmd->add_option("--step-delay", apply->step_delay_ms,
                  "Milliseconds to pause between steps (watch a change go in, rehearse an interruption)")
      ->check(CLI::Range(0, 10000));
  with_values(cmd->add_option("--format", apply->format, "text or json"), {"text", "json"})->capture_default_str();
  cmd->footer(footer);
  cmd->callback([apply, &exit_code] { exit_code = run_apply(*apply); });

  auto announce = std::make_shared<HostArgs>();
  auto* ann = host->add_subcommand("announce", "Gratuitous ARP and unsolicited NA for each bond, out of every member port (root)");
  ann->add_option("profile", announce->profile, "Host profile (JSON, from hpnctl profile HOST)")->required();
  ann->add_option("--netns", announce->netns, "Send from inside this named network namespace");
  ann->add_option("--count", announce->count, "Rounds to send, one second apart (1 to 100)")->capture_default_str();
  ann->add_flag("--force", announce->force, "Announce a profile whose host name or MACs are not this host's");
  with_values(ann->add_option("--format", announce->format, "text or json"), {"text", "json"})->capture_default_str();
  ann->footer(footer);
  ann->callback([announce, &exit_code] { exit_code = run_announce(*announce); });
}

}  // namespace hpn::cli
