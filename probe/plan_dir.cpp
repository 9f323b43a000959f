#include "probe/plan_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "blueprint/atomic_file.h"
#include "blueprint/input_file.h"
#include "blueprint/names.h"
#include "blueprint/staged_dir.h"

namespace hpn::probe {

namespace {

namespace fs = std::filesystem;

constexpr int kPlanVersion = 1;
constexpr const char* kSummary = "summary.json";
constexpr const char* kEntries = "plan.jsonl";
// Bounds on what a plan directory's files may hold: the default pod's
// plan.jsonl is some tens of megabytes.
constexpr std::size_t kMaxSummaryBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxEntriesBytes = std::size_t{1} << 30;

nlohmann::ordered_json settings_json(const PlanSettings& s) {
  return {{"scope", s.scope},
          {"probes_per_pair", s.probes_per_pair},
          {"max_probes_per_pair", s.max_probes_per_pair},
          {"max_rounds", s.max_rounds},
          {"switch_probes", s.switch_probes},
          {"lossy_budget", s.lossy_budget},
          {"assume_loss", s.assume_loss},
          {"lossy_warn", s.lossy_warn},
          {"lossy_critical", s.lossy_critical},
          {"lossy_max_background", s.lossy_max_background},
          {"lossy_detect", s.lossy_detect},
          {"senders", {{"timeout_ms", s.senders.timeout_ms},
                       {"retries", s.senders.retries},
                       {"rate", s.senders.rate},
                       {"switch_probe_rate", s.senders.switch_probe_rate}}}};
}

Result<PlanSettings> settings_from_json(const nlohmann::json& j) {
  PlanSettings s;
  try {
    s.scope = j.at("scope").get<std::string>();
    s.probes_per_pair = j.at("probes_per_pair").get<int>();
    s.max_probes_per_pair = j.at("max_probes_per_pair").get<int>();
    s.max_rounds = j.at("max_rounds").get<int>();
    s.switch_probes = j.at("switch_probes").get<bool>();
    s.lossy_budget = j.at("lossy_budget").get<std::int64_t>();
    s.assume_loss = j.at("assume_loss").get<double>();
    s.lossy_warn = j.at("lossy_warn").get<double>();
    s.lossy_critical = j.at("lossy_critical").get<double>();
    s.lossy_max_background = j.at("lossy_max_background").get<double>();
    s.lossy_detect = j.at("lossy_detect").get<double>();
    const auto& senders = j.at("senders");
    s.senders.timeout_ms = senders.at("timeout_ms").get<int>();
    s.senders.retries = senders.at("retries").get<int>();
    s.senders.rate = senders.at("rate").get<int>();
    s.senders.switch_probe_rate = senders.at("switch_probe_rate").get<int>();
  } catch (const nlohmann::json::exception& x) {
    return Error{fmt::format("its settings: {}", x.what())};
  }
  return s;
}

Result<std::vector<int>> scope_hosts(const Blueprint& bp, const std::string& text) {
  auto scope = parse_scope(text);
  if (!scope) return scope.error();
  return hosts_in_scope(bp, scope.value());
}

struct Loaded {
  nlohmann::json summary;
  PlanSettings settings;
};

Result<Loaded> load_summary(const std::string& dir) {
  const std::string path = (fs::path(dir) / kSummary).string();
  auto text = read_input_file(path, "a probe plan's summary", kMaxSummaryBytes);
  if (!text) return text.error();
  Loaded l;
  l.summary = nlohmann::json::parse(text.value(), nullptr, false);
  if (!l.summary.is_object() || l.summary.value("written_by", "") != "hpnctl probe plan") {
    return Error{fmt::format("{}: not a probe plan's summary", path)};
  }
  if (l.summary.value("version", 0) != kPlanVersion) {
    return Error{fmt::format("{}: version {}, this hpnctl reads version {}", path, l.summary.value("version", 0),
                             kPlanVersion)};
  }
  auto settings = settings_from_json(l.summary.value("settings", nlohmann::json::object()));
  if (!settings) return Error{fmt::format("{}: {}", path, settings.error().message)};
  l.settings = settings.value();
  return l;
}

// Writes `round`'s files, then plan.jsonl, then summary.json.
Result<PlanStep> write_step(const Blueprint& bp, const std::string& dir, const PlanSettings& settings,
                            const std::vector<int>& hosts, const ProbeRounds& rounds,
                            const std::optional<Round>& round, nlohmann::json rounds_sent, bool started) {
  nlohmann::ordered_json this_round = nullptr;
  if (round) {
    const std::string relative = "rounds/" + round->name;
    // A round an earlier invocation wrote before failing is replaced.
    auto staged = StagedDirectory::begin((fs::path(dir) / relative).string(),
                                         {"the round's plan files", "a probe plan's round", ".round"});
    if (!staged) return staged.error();
    if (auto st = write_file_atomic((staged->path() / ".round").string(), round->name + "\n"); !st) return st.error();
    nlohmann::ordered_json senders = nlohmann::ordered_json::array();
    std::set<std::string> hosts;
    for (const auto& s : round->senders) {
      const std::string& host = bp.devices[s.host].name;
      // The host's and the port's names become a directory and a file name.
      const std::string file = host + "/" + (s.port.empty() ? "all" : s.port) + ".plan.jsonl";
      auto path = path_under(staged->path(), file, "sender");
      if (!path) return path.error();
      std::error_code ec;
      fs::create_directories(path->parent_path(), ec);
      if (ec) return Error{fmt::format("{}: {}", path->parent_path().string(), ec.message())};
      if (auto st = write_file_atomic(path->string(), s.plan_text); !st) return st.error();
      senders.push_back({{"host", host}, {"port", s.port.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.port)},
                         {"plan", relative + "/" + file}, {"probes", s.probes}});
      hosts.insert(host);
    }
    if (auto st = staged->commit(); !st) return st.error();
    const bool switches = round->kind == RoundKind::switches;
    this_round = {{"name", round->name},
                  {"kind", to_string(round->kind)},
                  {"number", round->number},
                  {"probes", round->probes},
                  {"rate", switches ? settings.senders.switch_probe_rate : settings.senders.rate},
                  {"dir", relative},
                  {"hosts", hosts},
                  {"senders", senders}};
    rounds_sent.push_back(round->name);
  }
  if (auto st = write_file_atomic((fs::path(dir) / kEntries).string(), rounds.entries_jsonl(bp)); !st) return st.error();
  std::vector<std::string> listeners, switches;
  for (int h : rounds.destinations(bp)) listeners.push_back(bp.devices[h].name);
  for (int s : switches_in_scope(bp, hosts)) switches.push_back(bp.devices[s].name);
  PlanStep step;
  step.done = rounds.done();
  step.started = started;
  step.summary = {{"version", kPlanVersion},
                  {"written_by", "hpnctl probe plan"},
                  {"spec", bp.spec_name},
                  {"settings", settings_json(settings)},
                  {"state", rounds.state_json()},
                  {"done", rounds.done()},
                  {"rounds_sent", rounds_sent},
                  {"round", this_round},
                  {"listeners", listeners},
                  {"switches", switches}};
  if (auto st = write_file_atomic((fs::path(dir) / kSummary).string(), step.summary.dump(2) + "\n"); !st) {
    return st.error();
  }
  return step;
}

}  // namespace

RoundOptions round_options(const PlanSettings& s) {
  RoundOptions o;
  o.plan.probes_per_pair = s.probes_per_pair;
  o.plan.max_probes_per_pair = s.max_probes_per_pair;
  o.plan.silence.max_loss = s.assume_loss / 100;
  o.plan.silence.attempts = s.senders.retries + 1;
  o.plan.loss.warn = s.lossy_warn / 100;
  o.plan.loss.critical = s.lossy_critical / 100;
  o.plan.loss.max_background = s.lossy_max_background / 100;
  o.plan.loss_budget = s.lossy_budget;
  o.plan.loss_detect = s.lossy_detect / 100;
  o.plan.loss.detect = o.plan.loss_detect;
  o.max_rounds = s.max_rounds;
  o.switch_probes = s.switch_probes;
  return o;
}

bool is_plan_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / kSummary, ec);
}

hpn::Result<PlanStep> start_plan(const Blueprint& bp, const std::string& dir, const PlanSettings& settings) {
  auto hosts = scope_hosts(bp, settings.scope);
  if (!hosts) return hosts.error();
  if (hosts->empty()) return Error{fmt::format("--scope {}: no host in it", settings.scope)};
  // The first round is written whole or not at all.
  auto staged = StagedDirectory::begin(dir, {"the probe plan", "a probe plan", kSummary});
  if (!staged) return staged.error();
  ProbeRounds rounds(bp, hosts.value(), round_options(settings));
  auto round = rounds.next(bp, {});
  auto step = write_step(bp, staged->path().string(), settings, hosts.value(), rounds, round,
                         nlohmann::json::array(), true);
  if (!step) return step.error();
  if (auto st = staged->commit(); !st) return st.error();
  return step;
}

hpn::Result<PlanStep> next_plan_round(const Blueprint& bp, const std::string& dir,
                                 const std::vector<std::string>& observations) {
  auto loaded = load_summary(dir);
  if (!loaded) return loaded.error();
  const PlanSettings& settings = loaded->settings;
  if (loaded->summary.value("spec", "") != bp.spec_name) {
    return Error{fmt::format("{}: a plan of spec '{}', not of this blueprint's '{}'", dir,
                             loaded->summary.value("spec", ""), bp.spec_name)};
  }
  auto hosts = scope_hosts(bp, settings.scope);
  if (!hosts) return hosts.error();
  const std::string entries_path = (fs::path(dir) / kEntries).string();
  auto entries = read_input_file(entries_path, "a probe plan's entries", kMaxEntriesBytes);
  if (!entries) return entries.error();
  auto rounds = ProbeRounds::from_json(bp, hosts.value(), round_options(settings),
                                       loaded->summary.value("state", nlohmann::json::object()), entries.value(),
                                       entries_path);
  if (!rounds) return Error{fmt::format("{}: {}", dir, rounds.error().message)};
  const nlohmann::json rounds_sent = loaded->summary.value("rounds_sent", nlohmann::json::array());
  if (rounds->done()) {
    PlanStep step;
    step.done = true;
    step.summary = loaded->summary;
    return step;
  }
  if (observations.empty()) {
    return Error{fmt::format("{} is at round {}: give the observations its senders wrote to plan the next one", dir,
                             rounds_sent.empty() ? std::string("-") : rounds_sent.back().get<std::string>())};
  }
  auto seen = read_observation_inputs(observations);
  if (!seen) return seen.error();
  auto round = rounds->next(bp, seen.value());
  return write_step(bp, dir, settings, hosts.value(), rounds.value(), round, rounds_sent, false);
}

hpn::Result<PlanSettings> read_plan_settings(const std::string& dir) {
  auto loaded = load_summary(dir);
  if (!loaded) return loaded.error();
  return loaded->settings;
}

hpn::Result<std::vector<Observation>> read_observation_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    // An empty file in a directory is an agent that saw nothing (a
    // listener no probe reached): no error, and no evidence either.
    std::vector<std::string> here;
    bool any = false;
    for (const auto& e : fs::directory_iterator(input, ec)) {
      if (e.path().extension() != ".jsonl" || !e.is_regular_file(ec)) continue;
      any = true;
      if (e.file_size(ec) > 0) here.push_back(e.path().string());
    }
    if (ec) return Error{fmt::format("{}: {}", input, ec.message())};
    if (!any) return Error{fmt::format("{}: no observation file (*.jsonl) in it", input)};
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  std::vector<Observation> all;
  for (const auto& file : files) {
    auto obs = read_observation_file(file, kMaxObservations - std::min(all.size(), kMaxObservations));
    if (!obs) return obs.error();
    all.insert(all.end(), std::make_move_iterator(obs->begin()), std::make_move_iterator(obs->end()));
  }
  if (all.empty()) {
    return Error{fmt::format("{}: no observation records (the files are empty)", fmt::join(inputs, ", "))};
  }
  return all;
}

}  // namespace hpn::probe
