#include "probe/plan_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "blueprint/atomic_file.h"
#include "blueprint/input_file.h"
#include "blueprint/names.h"
#include "blueprint/json_shape.h"
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

// Each setting as `hpnctl probe plan` takes it, in the range its option
// allows: a summary edited by hand is held to what the command line is.
Result<PlanSettings> settings_from_json(const nlohmann::json& j) {
  PlanSettings s;
  std::string error;
  auto at = [&](const nlohmann::json& obj, const char* key) -> const nlohmann::json* {
    const auto it = obj.find(key);
    if (it != obj.end()) return &*it;
    if (error.empty()) error = fmt::format("its settings: missing '{}'", key);
    return nullptr;
  };
  auto integer = [&](const nlohmann::json& obj, const char* key, std::int64_t lo, std::int64_t hi) -> std::int64_t {
    const nlohmann::json* v = at(obj, key);
    if (v && v->is_number_integer() && v->get<std::int64_t>() >= lo && v->get<std::int64_t>() <= hi) {
      return v->get<std::int64_t>();
    }
    if (v && error.empty()) error = fmt::format("its settings: '{}' must be an integer from {} to {}", key, lo, hi);
    return lo;
  };
  auto percent = [&](const char* key, double hi) {
    const nlohmann::json* v = at(j, key);
    if (v && v->is_number() && v->get<double>() >= 0 && v->get<double>() <= hi) return v->get<double>();
    if (v && error.empty()) error = fmt::format("its settings: '{}' must be a percentage from 0 to {}", key, hi);
    return 0.0;
  };
  if (const auto* scope = at(j, "scope")) {
    if (scope->is_string()) s.scope = scope->get<std::string>();
    else if (error.empty()) error = "its settings: 'scope' must be a string";
  }
  s.probes_per_pair = static_cast<int>(integer(j, "probes_per_pair", 1, 64));
  s.max_probes_per_pair = static_cast<int>(integer(j, "max_probes_per_pair", 1, 4096));
  s.max_rounds = static_cast<int>(integer(j, "max_rounds", 1, 64));
  if (const auto* switches = at(j, "switch_probes")) {
    if (switches->is_boolean()) s.switch_probes = switches->get<bool>();
    else if (error.empty()) error = "its settings: 'switch_probes' must be true or false";
  }
  s.lossy_budget = integer(j, "lossy_budget", 0, 100'000'000);
  s.assume_loss = percent("assume_loss", 99);
  s.lossy_warn = percent("lossy_warn", 100);
  s.lossy_critical = percent("lossy_critical", 100);
  s.lossy_max_background = percent("lossy_max_background", 100);
  s.lossy_detect = percent("lossy_detect", 100);
  if (const auto* senders = at(j, "senders")) {
    if (!senders->is_object()) {
      if (error.empty()) error = "its settings: 'senders' must be an object";
    } else {
      s.senders.timeout_ms = static_cast<int>(integer(*senders, "timeout_ms", 1, 600000));
      s.senders.retries = static_cast<int>(integer(*senders, "retries", 0, kMaxSenderRetries));
      s.senders.rate = static_cast<int>(integer(*senders, "rate", 1, 1000000));
      s.senders.switch_probe_rate = static_cast<int>(integer(*senders, "switch_probe_rate", 1, 1000000));
    }
  }
  if (!error.empty()) return Error{error};
  return s;
}

Result<std::vector<int>> scope_hosts(const Blueprint& bp, const std::string& text) {
  auto scope = parse_scope(text);
  if (!scope) return scope.error();
  return hosts_in_scope(bp, scope.value());
}

Result<PlanSummary> load_summary(const std::string& dir) {
  const std::string path = (fs::path(dir) / kSummary).string();
  auto text = read_input_file(path, "a probe plan's summary", kMaxSummaryBytes);
  if (!text) return text.error();
  return parse_plan_summary(text.value(), path);
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

Result<PlanSummary> parse_plan_summary(std::string_view text, const std::string& path) {
  if (text.size() > kMaxSummaryBytes) {
    return Error{fmt::format("{}: too large for a probe plan's summary (more than {} bytes)", path, kMaxSummaryBytes)};
  }
  // The summary nests a few levels (its rounds' state the deepest); its
  // values are a few per entry of the plan.
  if (auto st = check_json_bounds(text, path, {32, std::size_t{8} << 20, "a probe plan's summary"}); !st) {
    return st.error();
  }
  PlanSummary l;
  l.summary = nlohmann::json::parse(text, nullptr, false);
  const auto text_at = [&](const char* key) -> std::string {
    const auto it = l.summary.find(key);
    return it != l.summary.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!l.summary.is_object() || text_at("written_by") != "hpnctl probe plan") {
    return Error{fmt::format("{}: not a probe plan's summary", path)};
  }
  const auto version = l.summary.find("version");
  if (version == l.summary.end() || !version->is_number_integer() || version->get<std::int64_t>() != kPlanVersion) {
    return Error{fmt::format("{}: version {}, this hpnctl reads version {}", path,
                             version == l.summary.end() ? "none" : version->dump(), kPlanVersion)};
  }
  // What the later rounds read from it, checked here once.
  const auto spec = l.summary.find("spec");
  if (spec != l.summary.end() && !spec->is_string()) return Error{fmt::format("{}: spec: expected a string", path)};
  const auto sent = l.summary.find("rounds_sent");
  if (sent != l.summary.end() &&
      (!sent->is_array() || !std::all_of(sent->begin(), sent->end(), [](const auto& r) { return r.is_string(); }))) {
    return Error{fmt::format("{}: rounds_sent: expected a list of round names", path)};
  }
  const auto state = l.summary.find("state");
  if (state != l.summary.end() && !state->is_object()) return Error{fmt::format("{}: state: expected an object", path)};
  const auto settings_json = l.summary.find("settings");
  if (settings_json == l.summary.end() || !settings_json->is_object()) {
    return Error{fmt::format("{}: settings: expected an object", path)};
  }
  auto settings = settings_from_json(*settings_json);
  if (!settings) return Error{fmt::format("{}: {}", path, settings.error().message)};
  l.settings = settings.value();
  return l;
}

RoundOptions round_options(const PlanSettings& s, const LossEstimator& estimate) {
  RoundOptions o;
  o.estimate = estimate;
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

hpn::Result<PlanStep> start_plan(const Blueprint& bp, const std::string& dir, const PlanSettings& settings,
                                 const LossEstimator& estimate) {
  auto hosts = scope_hosts(bp, settings.scope);
  if (!hosts) return hosts.error();
  if (hosts->empty()) return Error{fmt::format("--scope {}: no host in it", settings.scope)};
  // The first round is written whole or not at all.
  auto staged = StagedDirectory::begin(dir, {"the probe plan", "a probe plan", kSummary});
  if (!staged) return staged.error();
  ProbeRounds rounds(bp, hosts.value(), round_options(settings, estimate));
  auto round = rounds.next(bp, {});
  auto step = write_step(bp, staged->path().string(), settings, hosts.value(), rounds, round,
                         nlohmann::json::array(), true);
  if (!step) return step.error();
  if (auto st = staged->commit(); !st) return st.error();
  return step;
}

hpn::Result<PlanStep> next_plan_round(const Blueprint& bp, const std::string& dir,
                                 const std::vector<std::string>& observations, const LossEstimator& estimate) {
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
  auto rounds = ProbeRounds::from_json(bp, hosts.value(), round_options(settings, estimate),
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

}  // namespace hpn::probe
