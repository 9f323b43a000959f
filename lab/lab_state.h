// The lab's record on disk (JSON): written before anything is created and
// updated as `lab up` goes, so `lab down` can remove everything even after
// a crash or a killed `lab up`, and `lab status` can name every device and
// port without the blueprint. It lives under /run, a tmpfs, which like the
// namespaces themselves does not survive a reboot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "lab/lab_topology.h"

namespace hpn::lab {

inline constexpr const char* kDefaultLabState = "/run/hpnctl/lab.json";
// The environment variable naming another record: labs recorded at
// different paths are separate labs that may be up at once (their
// namespaces' ids differ), e.g. a rehearsal beside a test run.
inline constexpr const char* kLabStateVariable = "HPNCTL_LAB_STATE";

// The record every `lab` command and `verify --lab` use: $HPNCTL_LAB_STATE
// when set, else kDefaultLabState. An error when the variable is set but
// not an absolute path to a .json file (a relative one would name a
// different lab in every directory).
Result<std::string> lab_state_path();
inline constexpr const char* kLabStateFormat = "hpnctl-lab";
inline constexpr int kLabStateVersion = 3;  // 2: the routing daemons; 3: the management network

struct StatePort {
  std::string port;  // blueprint port name
  std::uint16_t port_id = 0;
  std::string ifname, mac, link_local;
  std::string peer_device, peer_port;  // the far end as actually wired
  std::string cable;                   // cable ID from the wiring, may be empty
  std::string fault;                   // Fault::to_string(), empty for none
};

struct StateDevice {
  std::string name, role, netns;
  std::uint32_t node_id = 0;
  std::vector<StatePort> ports;  // cabled ports only, in panel order
  std::string mgmt_address;      // lab up --ssh: its mgmt0 address (lab_fleet.h); empty without
};

struct LabState {
  std::string id, prefix;
  std::string blueprint;  // the plan directory it was built from
  std::string wiring;     // the wiring file, empty when wired as planned
  int pid = 0;            // of the `lab up` that made it
  // creating -> linking -> configuring -> up. Anything but "up" is a lab
  // whose `lab up` failed, was killed or is still running.
  std::string phase = "creating";
  std::uint16_t ioam_namespace = kLabIoamNamespace;
  std::vector<std::string> namespaces;  // every one the lab makes, listed before the first is made
  std::vector<StateDevice> devices;
  // The routing (FRR in each switch namespace, the ToR host-route agent),
  // recorded before any daemon starts so `lab down` stops them all.
  std::string routing_dir;               // per-switch FRR files: ROUTING_DIR/<device>/
  std::vector<std::string> routers;      // devices whose namespaces run FRR
  std::vector<std::string> pbr_routers;  // the cores among them, running pbrd too
  std::vector<int> agent_pids;           // each ToR's host-route agent (hpnctl switch agent)
  bool host_bonds = false;               // hosts applied with real bonds (lab up --host-bonds)
  // lab up --ssh (lab_fleet.h): the management namespace, the machine's
  // address on it, and the directory of the keys, sshd_config and known_hosts.
  std::string mgmt_netns, mgmt_controller;
  std::string ssh_dir;                   // empty: no management network
};

// The record of a lab about to be made from `topology` (pid left 0).
LabState describe_lab(const Blueprint& bp, const LabTopology& topology, const std::string& blueprint_path,
                      const std::string& wiring_source);

nlohmann::json to_json(const LabState& state);
Result<LabState> state_from_json(const nlohmann::json& json);

class LabStateFile {
 public:
  explicit LabStateFile(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  // The recorded lab, or nullopt when there is none.
  Result<std::optional<LabState>> load() const;
  // Creates the record atomically (O_EXCL): false, and nothing written,
  // when a lab is already recorded. This is what makes a second `lab up`
  // refuse even when two start at once.
  Result<bool> create(const LabState& state) const;
  // Replaces the record (written beside it, then renamed over it).
  Status update(const LabState& state) const;
  Status remove() const;

 private:
  std::string path_;
};

}  // namespace hpn::lab
