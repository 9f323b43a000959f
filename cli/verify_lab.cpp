#include "cli/verify_lab.h"

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "dataplane/lab.h"
#include "dataplane/lab_verify.h"
#include "dataplane/netlink_ops.h"
#include "probe/agent_output.h"

namespace hpn::cli {

namespace fs = std::filesystem;

Result<LabEvidence> observe_lab(const Blueprint& bp, const std::string& blueprint_dir,
                                                    const std::optional<std::string>& wiring_file,
                                                    const std::string& scope,
                                                    const std::optional<std::string>& keep,
                                                    int loss_percent, const probe::SilenceRule& silence) {
  if (geteuid() != 0) return Error{"verify --lab needs root (it builds a lab of network namespaces)"};
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
  if (auto size = lab::check_lab_size(bp, request.wiring); !size) return size.error();

  const bool tty = isatty(STDERR_FILENO);
  auto progress = [&](std::string_view what) {
    if (tty) std::cerr << "\r\033[Khpnctl: verify --lab: " << what << "..." << std::flush;
  };
  lab::NetlinkOps ops;
  auto state = lab::lab_up(request, ops, progress);
  if (!state) {
    if (tty) std::cerr << "\r\033[K";
    return Error{"lab up: " + state.error().message};
  }
  // Whatever happens from here, the lab goes down again.
  struct Down {
    lab::NetlinkOps& ops;
    ~Down() { (void)lab::lab_down(lab::kDefaultLabState, ops); }
  } down{ops};

  auto status = lab::lab_status(lab::kDefaultLabState, ops);
  if (!status || !status->has_value()) return Error{"lab status: the lab record is gone"};
  char self[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return Error{"cannot find this program's path (/proc/self/exe)"};

  std::string work = (fs::temp_directory_path() / fmt::format("hpnctl-verify-{}", getpid())).string();
  lab::LabProbeOptions options;
  options.hpnctl = std::string(self, static_cast<size_t>(n));
  options.work_dir = work;
  options.scope = scope;
  options.plan.silence = silence;
  options.plan.silence.attempts = lab_probe_attempts();
  auto seen = lab::probe_lab(bp, state.value(), lab::status_json(**status).dump(), options, progress);
  if (tty) std::cerr << "\r\033[K";
  std::error_code ec;
  fs::remove_all(work, ec);
  if (!seen) return seen.error();
  if (keep) {
    if (auto st = probe::write_observation_file(*keep, seen.value()); !st) return st.error();
  }
  LabEvidence evidence{std::move(seen.value()), {}};
  for (const auto& d : (*status)->devices) {
    if (d.sessions.empty()) continue;
    validator::BgpDump dump{d.recorded.name, false, "the lab's " + d.recorded.name, {}};
    for (const auto& st : d.sessions) dump.sessions.push_back(st.bgp);
    evidence.bgp.push_back(std::move(dump));
  }
  return evidence;
}

int lab_probe_attempts() { return lab::LabProbeOptions{}.retries + 1; }

}  // namespace hpn::cli
