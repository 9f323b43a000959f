// A probe plan's summary.json (probe/plan_dir.h), which a fleet's tooling
// carries between rounds and a person may edit: read back, its settings
// turned into the rounds' options, and its rounds' state resumed against
// the lab pod's blueprint and the plan.jsonl of a real start (both made
// once, at start-up). Every error names the file; nothing throws.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "planner/plan.h"
#include "planner/spec_loader.h"
#include "probe/plan_dir.h"
#include "probe/probe_plan.h"
#include "validator/loss_estimate.h"
#include "fuzz_util.h"

namespace {

namespace fs = std::filesystem;

std::optional<hpn::Plan> lab_plan;
std::string entries;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto spec = hpn::load_spec(read_all(HPN_SOURCE_DIR "/examples/lab-pod.yaml"), "lab-pod.yaml");
  if (!spec) std::abort();
  auto plan = hpn::make_plan(std::move(spec.value()), "fuzz");
  if (!plan) std::abort();
  lab_plan.emplace(std::move(plan.value()));
  const fs::path dir = fs::temp_directory_path() / ("fuzz_probe_summary-" + std::to_string(getpid()));
  fs::remove_all(dir);
  if (!hpn::probe::start_plan(lab_plan->blueprint, dir.string(), {}, hpn::validator::loss_state)) std::abort();
  entries = read_all(dir / "plan.jsonl");
  fs::remove_all(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& bp = lab_plan->blueprint;
  auto summary = hpn::probe::parse_plan_summary(hpn::fuzz::text_of(data, size), "summary.json");
  if (!summary) {
    HPN_FUZZ_CHECK(summary.error().message.starts_with("summary.json"));
    return 0;
  }
  auto scope = hpn::probe::parse_scope(summary->settings.scope);
  if (!scope) return 0;
  auto hosts = hpn::probe::hosts_in_scope(bp, scope.value());
  if (!hosts) return 0;
  auto rounds = hpn::probe::ProbeRounds::from_json(bp, hosts.value(), hpn::probe::round_options(summary->settings, hpn::validator::loss_state),
                                                   summary->summary.value("state", nlohmann::json::object()), entries,
                                                   "plan.jsonl");
  if (!rounds) return 0;
  // A state it accepts is one it writes back the same.
  auto again = hpn::probe::ProbeRounds::from_json(bp, hosts.value(), hpn::probe::round_options(summary->settings, hpn::validator::loss_state),
                                                  rounds->state_json(), rounds->entries_jsonl(bp), "plan.jsonl");
  HPN_FUZZ_CHECK(again.ok());
  return 0;
}
