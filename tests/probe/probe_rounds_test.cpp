// The rounds of a verify, in memory (verify --lab) and between invocations
// of `probe plan` (a fleet's): on the lab pod with the forwarding model
// standing in for the fabric, a plan saved and resumed after every round
// sends exactly the probes an unbroken run sends, numbered the same; a
// plan directory that is not whole, or not this plan's, is refused.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "../validator/lab_fixture.h"
#include "probe/plan_dir.h"
#include "probe/probe_rounds.h"
#include "validator/loss_estimate.h"

using namespace hpn;
using hpn::probe::ProbeDirection;
using hpn::test::LabFixture;
using hpn::test::TempDir;

namespace {

// What a round's senders record: each probe tried three times as the
// agents try it, its entry written in, as `probe send --plan` writes it.
probe::ObservationSet send(fabricmodel::FabricModel& model, const LabFixture& lab, const probe::Round& round) {
  probe::ObservationSet out;
  static uint64_t id = 0;
  for (const auto& [entry, t] : round.targets) {
    const int port = lab.fabric->port_by_name(t.src_host, t.src_port);
    for (int sport : t.source_ports) {
      std::vector<probe::ObservationRecord> obs;
      if (round.kind == probe::RoundKind::switches) {
        obs.push_back(model.agent_switch_probe(t.src_host, port, t.dst_host, t.dst_address, sport, ++id, 3));
      } else if (t.train > 0) {
        obs = model.agent_train(t.src_host, port, t.dst_host, t.dst_nic, sport, ++id, t.train, 3).sender;
      } else {
        obs = model.agent_probe(t.src_host, port, t.dst_host, t.dst_nic, sport, ++id, 3).sender;
      }
      for (auto& o : obs) o.entry = static_cast<std::int64_t>(entry);
      out.add_all(obs);
    }
  }
  return out;
}

// A round as the senders get it: its name and every sender's plan file.
std::vector<std::string> files_of(const LabFixture& lab, const probe::Round& r) {
  std::vector<std::string> files{r.name};
  for (const auto& s : r.senders) files.push_back(lab.bp().devices[s.host].name + "/" + s.port + "\n" + s.plan_text);
  return files;
}

std::vector<int> hosts_of(const LabFixture& lab, const std::string& scope) {
  auto parsed = probe::parse_scope(scope);
  REQUIRE(parsed);
  auto hosts = probe::hosts_in_scope(lab.bp(), parsed.value());
  REQUIRE(hosts);
  return hosts.value();
}

// A wiring whose coverage takes more than one round: an uplink gone, so
// its ToR's pairs ask for more until the rounds run out.
// Rounds planned as verify plans them: the loss rounds by the validator's estimate.
probe::RoundOptions estimated() {
  probe::RoundOptions o;
  o.estimate = validator::loss_state;
  return o;
}

void make_rounds_needed(LabFixture& lab) {
  lab.plug_z(lab.cable_from("tor-p0-s01-r2a", "etp6"), {});
}

}  // namespace

TEST_CASE("probe/rounds: switch rounds first, a sender per port, then host rounds and loss rounds, a sender per host") {
  LabFixture lab;
  make_rounds_needed(lab);
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::ProbeRounds rounds(lab.bp(), hosts_of(lab, "pod=0"), estimated());
  probe::ObservationSet seen;
  std::vector<std::string> names;
  bool hosts_began = false, losses_began = false;
  while (auto r = rounds.next(lab.bp(), seen)) {
    names.push_back(r->name);
    if (r->kind == probe::RoundKind::switches) {
      CHECK_FALSE(hosts_began);
      for (const auto& s : r->senders) CHECK_FALSE(s.port.empty());
    } else {
      if (r->kind == probe::RoundKind::hosts) CHECK_FALSE(losses_began);
      hosts_began = true;
      losses_began = losses_began || r->kind == probe::RoundKind::losses;
      for (const auto& s : r->senders) CHECK(s.port.empty());
    }
    // A loss round is trains, and trains only.
    for (const auto& [entry, t] : r->targets) CHECK((t.train > 0) == (r->kind == probe::RoundKind::losses));
    int probes = 0;
    for (const auto& s : r->senders) probes += s.probes;
    CHECK(probes == r->probes);
    const auto more = send(model, lab, *r);
    seen.add_all(more);
    REQUIRE(names.size() < 20);
  }
  REQUIRE(names.size() >= 3);
  CHECK(names.front() == "switches1");
  CHECK(std::find(names.begin(), names.end(), "round1") != names.end());
  // The uplink gone is past doubt short of the bound (8 host rounds); the
  // loss rounds follow, and end when every direction is decided (no
  // background here: the first trains decide them all).
  CHECK(std::find(names.begin(), names.end(), "round8") == names.end());
  CHECK(names.back() == "loss1");
  CHECK(rounds.done());
  // Every entry's probes, and no other, were recorded.
  std::size_t probes = 0;
  for (const auto& e : rounds.entries()) probes += e.target.source_ports.size();
  std::set<std::pair<std::int64_t, int>> recorded;
  for (const auto& o : seen) {
    if (o.direction != ProbeDirection::reverse) recorded.insert({o.entry, o.src_udp_port});
  }
  CHECK(recorded.size() == probes);
}

TEST_CASE("probe/rounds: a plan saved and resumed after every round sends what an unbroken run sends") {
  LabFixture lab;
  make_rounds_needed(lab);
  const auto hosts = hosts_of(lab, "pod=0,segment=1");
  probe::RoundOptions options = estimated();
  options.plan.loss_budget = 20000;

  fabricmodel::FabricModel straight_model(*lab.fabric, lab.wiring);
  straight_model.set_loss(0.03, 7);
  probe::ProbeRounds straight(lab.bp(), hosts, options);
  probe::ObservationSet straight_seen;
  std::vector<std::vector<std::string>> straight_rounds;
  while (auto r = straight.next(lab.bp(), straight_seen)) {
    straight_rounds.push_back(files_of(lab, *r));
    const auto more = send(straight_model, lab, *r);
    straight_seen.add_all(more);
  }

  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  model.set_loss(0.03, 7);
  probe::ObservationSet seen;
  std::vector<std::vector<std::string>> resumed_rounds;
  nlohmann::json state;
  std::string entries;
  {
    probe::ProbeRounds first(lab.bp(), hosts, options);
    auto r = first.next(lab.bp(), seen);
    REQUIRE(r);
    resumed_rounds.push_back(files_of(lab, *r));
    const auto more = send(model, lab, *r);
    seen.add_all(more);
    state = first.state_json();
    entries = first.entries_jsonl(lab.bp());
  }
  for (;;) {
    auto rounds = probe::ProbeRounds::from_json(lab.bp(), hosts, options, state, entries, "plan.jsonl");
    REQUIRE(rounds);
    auto r = rounds->next(lab.bp(), seen);
    state = rounds->state_json();
    entries = rounds->entries_jsonl(lab.bp());
    if (!r) break;
    resumed_rounds.push_back(files_of(lab, *r));
    const auto more = send(model, lab, *r);
    seen.add_all(more);
    REQUIRE(resumed_rounds.size() < 20);
  }
  CHECK(straight_rounds.size() > 3);
  for (std::size_t i = 0; i < std::min(straight_rounds.size(), resumed_rounds.size()); ++i) {
    INFO("round " << straight_rounds[i][0] << " / " << resumed_rounds[i][0]);
    CHECK(resumed_rounds[i] == straight_rounds[i]);
  }
  CHECK(resumed_rounds.size() == straight_rounds.size());
  CHECK(entries == straight.entries_jsonl(lab.bp()));
  CHECK(state["phase"] == "done");
}

TEST_CASE("probe/rounds: the loss rounds are planned by the estimate they are given, and need one") {
  LabFixture lab;
  const auto hosts = hosts_of(lab, "pod=0,segment=1");
  probe::RoundOptions bare;
  CHECK_THROWS_AS(probe::ProbeRounds(lab.bp(), hosts, bare), std::invalid_argument);
  bare.plan.loss_detect = 0;  // no loss rounds: nothing to estimate
  CHECK_NOTHROW(probe::ProbeRounds(lab.bp(), hosts, bare));

  // The first loss round's datagrams, with an estimate that says the
  // background is `background`, and what the estimate was asked.
  auto first_loss_round = [&](double background) {
    probe::RoundOptions o;
    o.switch_probes = false;
    o.max_rounds = 1;
    std::vector<double> detect_asked;
    o.estimate = [&](const Blueprint& bp, const probe::ObservationSet&, const probe::LossOptions& loss) {
      CHECK(&bp == &lab.bp());
      detect_asked.push_back(loss.detect);
      probe::LossState state;
      state.background = background;
      return state;
    };
    probe::ProbeRounds rounds(lab.bp(), hosts, o);
    std::int64_t datagrams = 0;
    while (auto r = rounds.next(lab.bp(), {})) {
      if (r->kind == probe::RoundKind::losses && r->number == 1) datagrams = r->train_datagrams;
    }
    // Once for the first loss round; once more for the next, which finds
    // nothing undecided in this estimate, so there is none.
    CHECK(detect_asked.size() == 2);
    return datagrams;
  };
  const std::int64_t clean = first_loss_round(0), noisy = first_loss_round(0.01);
  CHECK(clean > 0);
  // Background loss needs more attempts to name the same loss.
  CHECK(noisy > 2 * clean);
}

TEST_CASE("probe/rounds: a saved plan of other hosts, other options or cut short is refused") {
  LabFixture lab;
  const auto hosts = hosts_of(lab, "pod=0,segment=1");
  probe::ProbeRounds rounds(lab.bp(), hosts, estimated());
  REQUIRE(rounds.next(lab.bp(), {}));
  const auto state = rounds.state_json();
  const std::string entries = rounds.entries_jsonl(lab.bp());
  REQUIRE(probe::ProbeRounds::from_json(lab.bp(), hosts, estimated(), state, entries, "plan.jsonl"));

  // Another scope's hosts: the entries are not in its plan.
  auto other = probe::ProbeRounds::from_json(lab.bp(), hosts_of(lab, "pod=0,segment=0"), estimated(), state, entries, "plan.jsonl");
  REQUIRE_FALSE(other);
  CHECK_THAT(other.error().message, Catch::Contains("another scope or with other options"));
  // Other options: three probes per pair planned, two here.
  probe::RoundOptions two = estimated();
  two.plan.probes_per_pair = 2;
  CHECK_FALSE(probe::ProbeRounds::from_json(lab.bp(), hosts, two, state, entries, "plan.jsonl"));
  // Cut off after its first line: the state's counts disagree.
  auto cut = probe::ProbeRounds::from_json(lab.bp(), hosts, estimated(), state, entries.substr(0, entries.find('\n') + 1),
                                           "plan.jsonl");
  REQUIRE_FALSE(cut);
  CHECK_THAT(cut.error().message, Catch::Contains("half-written"));
  // A line that is no entry is located.
  auto bad = probe::ProbeRounds::from_json(lab.bp(), hosts, estimated(), state, entries + "{\"entry\": 99}\n", "plan.jsonl");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::StartsWith("plan.jsonl:"));
}

TEST_CASE("probe/plan dir: rounds as files to the end, the senders' files read back between them") {
  LabFixture lab;
  make_rounds_needed(lab);
  TempDir tmp;
  const std::string dir = (tmp / "plan").string();
  probe::PlanSettings settings;
  settings.scope = "pod=0,segment=1";
  auto step = probe::start_plan(lab.bp(), dir, settings, validator::loss_state);
  REQUIRE(step);
  CHECK(step->started);
  CHECK(probe::is_plan_dir(dir));
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  std::vector<std::string> names;
  uint64_t id = 0;
  std::filesystem::create_directories(tmp / "obs");
  while (!step->done) {
    const auto& round = step->summary["round"];
    names.push_back(round["name"]);
    // The senders of the round, from its files alone.
    std::string observations;
    for (const auto& s : round["senders"]) {
      const std::string text = hpn::test::read_file(std::filesystem::path(dir) / s["plan"].get<std::string>());
      REQUIRE_FALSE(text.empty());
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        const auto j = nlohmann::json::parse(line);
        const std::string host = s["host"];
        const int h = lab.fabric->device_by_name(host);
        const int port = lab.fabric->port_by_name(h, j["from"].get<std::string>());
        const std::string to = j["to"];
        const int dst = lab.fabric->device_by_name(to.substr(0, to.find('=')));
        REQUIRE(dst >= 0);
        for (int sport : j["source_ports"]) {
          std::vector<probe::ObservationRecord> obs;
          if (round["kind"] == "switch") {
            const std::string address = to.substr(to.find('=') + 1, to.find('@') - to.find('=') - 1);
            obs.push_back(model.agent_switch_probe(h, port, dst, address, sport, ++id, 3));
          } else {
            int nic = -1;
            for (const auto& i : lab.bp().interfaces) {
              if (i.device == dst && i.purpose == InterfacePurpose::host && to.find("=" + i.ipv6) != std::string::npos) nic = i.nic;
            }
            REQUIRE(nic >= 0);
            obs = j.contains("train") ? model.agent_train(h, port, dst, nic, sport, ++id, j["train"], 3).sender
                                      : model.agent_probe(h, port, dst, nic, sport, ++id, 3).sender;
          }
          for (auto& o : obs) {
            o.entry = j["entry"];
            observations += probe::to_json_line(o) + "\n";
          }
        }
      }
    }
    hpn::test::write_file(tmp / "obs" / (names.back() + ".jsonl"), observations);
    step = probe::next_plan_round(lab.bp(), dir, {(tmp / "obs").string()}, validator::loss_state);
    REQUIRE(step);
    REQUIRE(names.size() < 20);
  }
  CHECK(names.front() == "switches1");
  CHECK(std::find(names.begin(), names.end(), "round1") != names.end());
  CHECK(std::find(names.begin(), names.end(), "round8") == names.end());
  CHECK(names.back() == "loss1");
  CHECK(step->summary["rounds_sent"].size() == names.size());
  CHECK(step->summary["round"].is_null());
  // Listeners: every host the plan sends to, outside the scope too.
  const auto listeners = step->summary["listeners"].get<std::vector<std::string>>();
  CHECK(std::find(listeners.begin(), listeners.end(), "host-p0-s00-h000") != listeners.end());
  // Done is done: asked again, it stays so and writes nothing new.
  const std::string entries = hpn::test::read_file(std::filesystem::path(dir) / "plan.jsonl");
  auto again = probe::next_plan_round(lab.bp(), dir, {(tmp / "obs").string()}, validator::loss_state);
  REQUIRE(again);
  CHECK(again->done);
  CHECK(hpn::test::read_file(std::filesystem::path(dir) / "plan.jsonl") == entries);
  // The settings come back for verify --probe-plan.
  auto read = probe::read_plan_settings(dir);
  REQUIRE(read);
  CHECK(read->scope == "pod=0,segment=1");
  CHECK(read->senders.retries == 2);
}

TEST_CASE("probe/plan dir: a directory that is not a plan, or a plan without the senders' files, is refused") {
  LabFixture lab;
  TempDir tmp;
  hpn::test::write_file(tmp / "notes.txt", "mine\n");
  auto not_empty = probe::start_plan(lab.bp(), tmp.path().string(), {}, validator::loss_state);
  REQUIRE_FALSE(not_empty);
  CHECK(hpn::test::read_file(tmp / "notes.txt") == "mine\n");

  const std::string dir = (tmp / "plan").string();
  probe::PlanSettings bad_scope;
  bad_scope.scope = "rack=NO-SUCH";
  auto refused = probe::start_plan(lab.bp(), dir, bad_scope, validator::loss_state);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("NO-SUCH"));
  CHECK_FALSE(std::filesystem::exists(dir));  // nothing half-written

  REQUIRE(probe::start_plan(lab.bp(), dir, {}, validator::loss_state));
  auto without = probe::next_plan_round(lab.bp(), dir, {}, validator::loss_state);
  REQUIRE_FALSE(without);
  CHECK_THAT(without.error().message, Catch::Contains("give the observations"));
  // plan.jsonl cut short: refused, never resumed.
  const auto entries = std::filesystem::path(dir) / "plan.jsonl";
  const std::string text = hpn::test::read_file(entries);
  hpn::test::write_file(entries, text.substr(0, text.size() / 2));
  hpn::test::write_file(tmp / "seen.jsonl", "");
  auto cut = probe::next_plan_round(lab.bp(), dir, {(tmp / "seen.jsonl").string()}, validator::loss_state);
  REQUIRE_FALSE(cut);
  CHECK_THAT(cut.error().message, Catch::Contains("plan.jsonl:"));
}
