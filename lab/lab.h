// `hpnctl lab up | down | status` below the command line: a fabric of Linux
// routers in network namespaces, built from a blueprint and its actual
// wiring, torn down from its record on disk.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "lab/lab_state.h"
#include "lab/lab_status.h"
#include "lab/network_ops.h"
#include "lab/wiring.h"

namespace hpn::lab {

struct LabUpRequest {
  const Blueprint* blueprint = nullptr;
  std::string blueprint_path;  // recorded, for status
  Wiring wiring;               // planned_wiring() when the user gave none
  std::string state_path = kDefaultLabState;
  std::string id;              // empty: a fresh random one
  // FRR's files (frr.conf, pid files, logs) go to ROUTING_ROOT/frr-ID/:
  // a directory the frr user can enter whatever the state path is.
  std::string routing_root = "/run/hpnctl";
  // How long BGP may take to converge before lab up gives up.
  std::chrono::milliseconds converge_timeout{60000};
  // The hosts' profiles are applied with real bonds (the kernel must have
  // bonding), not as `host apply --no-bond`.
  bool host_bonds = false;
  // Also the management network, with sshd in every device (lab_fleet.h).
  bool ssh = false;
  // The hpnctl each ToR's agent runs as (`hpnctl switch agent`, as its
  // unit runs it); empty: this process's own executable. A test that
  // brings a lab up from its own binary names the built hpnctl.
  std::string agent_binary;
};

// Called at each phase with a short description ("creating 36 namespaces").
using LabProgress = std::function<void(std::string_view)>;

// Brings the lab up: the record first, then namespaces, veth pairs and each
// namespace's configuration; then FRR in every switch namespace with the
// frr.conf `hpnctl config` writes, the ToRs' host-route agent, the hosts'
// announcements; then it waits for BGP to converge (every session the
// wiring allows Established, every ToR routing to the hosts cabled to it,
// the switches' routes steady), loads the cores' port rules and sets the
// faults that strike a converged fabric, and with `ssh` brings up the
// management network (lab_fleet.h). The record is updated at each
// phase. Refuses when a lab is already recorded at state_path. On failure
// it removes what it made and returns what went wrong, naming the sessions
// that did not come up.
Result<LabState> lab_up(const LabUpRequest& request, NetworkOps& ops, const LabProgress& progress = {});

struct LabDownReport {
  bool had_lab = false;
  std::string id;
  int namespaces_removed = 0;
};

// Stops the lab's daemons and every process left in its namespaces (sshd
// and its sessions among them), removes every namespace of the recorded
// lab (those listed and any other with its prefix, so an interrupted `lab
// up` leaves nothing), then the record. No record: nothing to do, had_lab false.
Result<LabDownReport> lab_down(const std::string& state_path, NetworkOps& ops);

// The recorded lab with each port's live state; nullopt when none.
Result<std::optional<LabStatus>> lab_status(const std::string& state_path, NetworkOps& ops);

}  // namespace hpn::lab
