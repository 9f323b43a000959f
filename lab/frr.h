// Debian's FRR (8.4) run inside the lab's switch namespaces, one daemon set
// per namespace with its own pathspace (FIELD.md §7): zebra, bgpd, and
// pbrd on cores, each started empty inside the namespace under the
// switch's host name (a UTS namespace of its own), then given the switch's
// frr.conf, exactly as `hpnctl config` writes it, by `vtysh -f`. No
// systemd: the lab starts, queries (vtysh -N) and stops the daemons itself.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "blueprint/result.h"

namespace hpn::lab {

inline constexpr const char* kFrrDaemonDir = "/usr/lib/frr";
inline constexpr const char* kVtysh = "/usr/bin/vtysh";
inline constexpr const char* kFrrStateDir = "/var/run/frr";  // sockets: kFrrStateDir/<pathspace>/
inline constexpr const char* kFrrPackage = "frr";

// One switch's daemons. `dir` holds frr.conf, the pid files and the log.
struct RoutingDaemons {
  std::string netns;   // also FRR's pathspace (-N)
  std::string device;
  std::string dir;
  bool pbrd = false;

  std::string config() const { return dir + "/frr.conf"; }
  std::vector<std::string> names() const;  // "zebra", "bgpd"[, "pbrd"]
};

// Are the FRR daemons and vtysh installed? The error names the package.
Status check_frr(bool pbrd);

// Writes `frr_conf` into d.dir (made readable to the frr user), makes the
// pathspace's socket directory, starts zebra, then bgpd (and pbrd), each
// daemonized inside the namespace with no configuration, and gives them
// frr.conf with `vtysh -f`. The daemons run it when this returns.
Status start_routing(const RoutingDaemons& d, const std::string& frr_conf);

// SIGTERM to every daemon of every set by its pid file, all at once, then
// SIGKILL to those still there after `grace` (bgpd and zebra take two
// seconds to say goodbye to peers that are about to vanish with their
// namespaces anyway); the pathspaces' socket directories are removed.
// Missing daemons are not errors.
Status stop_routing(const std::vector<RoutingDaemons>& sets,
                    std::chrono::milliseconds grace = std::chrono::milliseconds(300));

// Empty while every daemon of the set runs; else which one is gone, with
// the last lines of its log.
std::string routing_problem(const RoutingDaemons& d);

// What `vtysh -N PATHSPACE -d DAEMON -c COMMAND` prints, asked as vtysh
// asks it, on the daemon's own socket (kFrrStateDir/PATHSPACE/DAEMON.vty).
// For reading state (show commands), not for configuring: that goes
// through vtysh (vtysh_apply), as an operator's does. A vtysh process
// costs about 50 ms of CPU to start (it builds every daemon's command
// tree), the socket about a millisecond, and lab up asks each of 36
// switches until BGP has converged.
Result<std::string> ask_daemon(const std::string& pathspace, const std::string& daemon, const std::string& command,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

// Configuration lines given to the running daemons through vtysh, as
// `vtysh -f FILE` does (the file is written beside the daemons' own).
Status vtysh_apply(const RoutingDaemons& d, const std::string& name, const std::string& lines);

// A program run to completion inside a named namespace (entered with
// setns, as `ip netns exec` does): its exit code and what it printed.
struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal or the timeout
  std::string out, err;
};
// An empty `netns` runs it in this process's namespace.
Result<ProcessResult> run_in_namespace(const std::string& netns, const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout);

// The pid a daemon wrote to its pid file.
Result<pid_t> read_pid(const std::string& path);

// The process exists and has not exited. A daemon's parent is init, and
// an init that does not reap (a container's first process) leaves it a
// zombie, which still answers kill(pid, 0): a stop that waited for kill 0
// to fail waited its whole grace for every agent of the lab.
bool process_running(pid_t pid);

}  // namespace hpn::lab
