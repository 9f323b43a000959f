#include "cli/verify_lab.h"

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "lab/lab.h"
#include "lab/lab_verify.h"
#include "lab/netlink_ops.h"
#include "cli/exit.h"
#include "blueprint/atomic_file.h"
#include "probe/agent_output.h"

#include <nlohmann/json.hpp>

namespace hpn::cli {

namespace fs = std::filesystem;

Result<LabEvidence> observe_lab(const Blueprint& bp, const std::string& blueprint_dir,
                                const std::optional<std::string>& wiring_file, const std::string& scope,
                                const std::optional<std::string>& keep, int loss_percent,
                                const probe::SilenceRule& silence, const probe::LossOptions& loss, std::int64_t loss_budget,
                                const Verbosity& verbosity, int& failure_code) {
  // What the user gave is checked first (exit 2); past it, what fails is
  // the machine's or the lab's (exit 3).
  failure_code = kInputError;
  lab::LabUpRequest request;
  request.blueprint = &bp;
  request.blueprint_path = fs::absolute(blueprint_dir).lexically_normal().string();
  if (wiring_file) {
    auto wiring = lab::read_wiring_file(*wiring_file, bp);
    if (!wiring) return wiring.error();
    request.wiring = std::move(wiring.value());
    request.wiring.source = fs::absolute(*wiring_file).lexically_normal().string();
  } else {
    request.wiring = lab::planned_wiring(bp);
  }
  request.wiring.loss_percent = loss_percent;
  // Input errors come back located (the wiring file's) or prefixed, as printed.
  if (auto size = lab::check_lab_size(bp, request.wiring); !size) return Error{"hpnctl: " + size.error().message};
  auto record = lab::lab_state_path();
  if (!record) return Error{"hpnctl: " + record.error().message};
  request.state_path = record.value();
  failure_code = kEnvironmentError;
  if (geteuid() != 0) return Error{"verify --lab needs root (it builds a lab of network namespaces)"};

  Progress shown(verbosity);
  auto progress = [&](std::string_view what) { shown.status(fmt::format("verify --lab: {}...", what)); };
  lab::NetlinkOps ops;
  auto state = lab::lab_up(request, ops, progress);
  if (!state) {
    shown.finish();
    return Error{"lab up: " + state.error().message};
  }
  // Whatever happens from here, the lab goes down again; a teardown that
  // fails is an error of its own (exit 3), after the report.
  struct Down {
    lab::NetlinkOps& ops;
    std::string record;
    std::string* error;
    bool done = false;
    void now() {
      if (done) return;
      done = true;
      if (auto down = lab::lab_down(record, ops); !down && error) *error = down.error().message;
    }
    ~Down() { now(); }
  };
  std::string teardown_error;
  Down down{ops, request.state_path, &teardown_error};

  auto status = lab::lab_status(request.state_path, ops);
  if (!status || !status->has_value()) return Error{"lab status: the lab record is gone"};
  char self[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return Error{"cannot find this program's path (/proc/self/exe)"};

  auto made = lab::make_work_dir("verify");
  if (!made) return made.error();
  const std::string work = made.value();
  lab::LabProbeOptions options;
  options.hpnctl = std::string(self, static_cast<size_t>(n));
  options.work_dir = work;
  options.scope = scope;
  options.plan.silence = silence;
  options.plan.silence.attempts = lab_probe_attempts();
  options.plan.loss = loss;
  options.plan.loss_budget = loss_budget;
  options.plan.loss_detect = loss.detect;
  std::string plan_jsonl;
  auto seen = lab::probe_lab(bp, state.value(), lab::status_json(**status).dump(), options, progress, &plan_jsonl);
  shown.finish();
  std::error_code ec;
  if (!std::getenv("HPN_KEEP_WORK")) fs::remove_all(work, ec);
  if (!seen) return seen.error();
  if (keep) {
    if (auto st = probe::write_observation_set_file(*keep, seen.value()); !st) return st.error();
    // Beside it, the plan the senders were given: the entry each observation names.
    if (auto st = write_file_atomic(*keep + ".plan", plan_jsonl); !st) return st.error();
  }
  LabEvidence evidence{std::move(seen.value()), {}, {}};
  for (const auto& d : (*status)->devices) {
    if (d.sessions.empty()) continue;
    validator::BgpDump dump{d.recorded.name, false, "the lab's " + d.recorded.name, {}};
    for (const auto& st : d.sessions) dump.sessions.push_back(st.bgp);
    evidence.bgp.push_back(std::move(dump));
  }
  down.now();
  evidence.teardown_error = teardown_error;
  return evidence;
}

int lab_probe_attempts() { return lab::LabProbeOptions{}.retries + 1; }

}  // namespace hpn::cli
