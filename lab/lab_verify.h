// Probing a running lab: listeners and probe agents started in every host
// namespace (the very `hpnctl probe` commands a real host runs), the probe
// plan's rounds sent until coverage is complete, the observations gathered.
// `hpnctl verify --lab` runs the diff on what comes back.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/model.h"
#include "blueprint/result.h"
#include "lab/lab_state.h"
#include "probe/observation.h"
#include "probe/probe_plan.h"

namespace hpn::lab {

// A new private directory for one run's files (mkdtemp(3): a name no one
// could have made first, mode 0700, this user's): TMPDIR/hpnctl-PURPOSE-XXXXXX.
// Never one that exists already, and never handed to another user: the
// agents, which drop to `nobody`, get their output files as open
// descriptors instead (lab_verify.cpp). The caller removes it.
Result<std::string> make_work_dir(const std::string& purpose);

struct LabProbeOptions {
  std::string hpnctl;          // the binary the agents run as (this one)
  std::string work_dir;        // from make_work_dir(): the port map, plans and observation files go here
  std::string scope;           // --scope text; empty: every host
  probe::PlanOptions plan;
  int max_rounds = 8;
  int timeout_ms = 400;
  int retries = 2;
  int rate = 5000;             // datagrams per second per sender
  // Switch probes (probe_plan.h switch_probes): each sender's pace, and so
  // each switch's, in ICMPv6 errors asked of it per second.
  int switch_probe_rate = 200;
  bool switch_probes = true;
};

using ProbeProgress = std::function<void(std::string_view)>;

// The observations of every round; the lab must be up. The senders send
// exactly the probe plan's probes (probe send --plan): its switch probes'
// rounds, then its rounds between hosts (probe/probe_rounds.h). Each
// observation records its entry: its line in `plan_jsonl`, when given,
// which gets every target sent, with all the source ports sent to it
// (ProbeRounds::entries_jsonl).
Result<probe::ObservationSet> probe_lab(const Blueprint& bp, const LabState& lab,
                                                  const std::string& status_json,
                                                  const LabProbeOptions& options,
                                                  const ProbeProgress& progress = {},
                                                  std::string* plan_jsonl = nullptr);

// `lab ping`: one probe from `src`'s port of NIC `nic` (its plane-1 port) to
// `dst`'s NIC `nic`, from UDP source port `sport`, as the receiver captured
// it: the forward observation, hops in path order.
Result<probe::ObservationRecord> lab_ping(const Blueprint& bp, const LabState& lab, const std::string& status_json,
                                    const std::string& hpnctl, const std::string& work_dir,
                                    const std::string& src, const std::string& dst, int nic, int sport);

}  // namespace hpn::lab
