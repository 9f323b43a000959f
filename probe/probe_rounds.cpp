#include "probe/probe_rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "blueprint/fabric_index.h"
#include "probe/loss_trains.h"
#include "probe/payload.h"

namespace hpn::probe {

namespace {

// A target's identity: the plan numbers each once.
using TargetKey = std::tuple<int, std::string, int, int, int>;
TargetKey key_of(const ProbeTarget& t) { return {t.src_host, t.src_port, t.dst_host, t.dst_nic, t.hop_limit}; }

// Gives each target of `plan` the source ports its entry of `kind` was
// sent, so a plan rebuilt from scratch stands where the saved one stood.
// The entries of that kind the plan has no target for: none, unless they
// were planned for other hosts or with other options.
std::size_t overlay(std::vector<ProbeTarget>& plan, const std::vector<PlanEntry>& entries, RoundKind kind) {
  std::map<TargetKey, const ProbeTarget*> sent;
  for (const auto& e : entries) {
    if (e.kind == kind) sent[key_of(e.target)] = &e.target;
  }
  std::size_t matched = 0;
  for (auto& t : plan) {
    // Its first round's source ports lead the entry's: other options
    // (probes per pair, first port) would have planned others.
    auto it = sent.find(key_of(t));
    if (it == sent.end()) continue;
    const auto& ports = it->second->source_ports;
    if (ports.size() < t.source_ports.size() || !std::equal(t.source_ports.begin(), t.source_ports.end(), ports.begin())) {
      continue;
    }
    t.source_ports = ports;
    ++matched;
  }
  return sent.size() - matched;
}

}  // namespace

const char* to_string(RoundKind kind) {
  switch (kind) {
    case RoundKind::switches: return "switch";
    case RoundKind::hosts: return "host";
    case RoundKind::losses: return "loss";
  }
  return "?";
}

ProbeRounds::ProbeRounds(const Blueprint& bp, const std::vector<int>& hosts, const RoundOptions& options)
    : options_(options), hosts_(hosts) {
  if (options.plan.loss_detect > 0 && !options.estimate) {
    throw std::invalid_argument("probe rounds: loss rounds asked for with no loss estimate to plan them by");
  }
  host_plan_ = initial_plan(bp, hosts, options.plan);
  if (options.switch_probes) switch_plan_ = switch_probes(bp, hosts, options.plan);
  phase_ = options.switch_probes ? Phase::switches : Phase::hosts;
}

std::optional<Round> ProbeRounds::next(const Blueprint& bp, const ObservationSet& seen,
                                       const CanSend& can_send) {
  if (phase_ == Phase::done) return std::nullopt;
  std::vector<ProbeTarget> round;
  // The first loss round is sized by the wiring rounds' background; each
  // later one by the estimate at the loss the rounds must find.
  auto loss_round = [&](bool first) {
    LossOptions loss = options_.plan.loss;
    if (!first) loss.detect = options_.plan.loss_detect;
    const LossState so_far = options_.estimate(bp, seen, loss);
    return first ? first_loss_round(bp, hosts_, seen, so_far, options_.plan)
                 : next_loss_round(bp, hosts_, seen, so_far, options_.plan);
  };
  if (phase_ == Phase::losses) {
    round = loss_round(number_ == 0);
  } else {
    std::vector<ProbeTarget>& plan = phase_ == Phase::switches ? switch_plan_ : host_plan_;
    if (number_ == 0) {
      round = plan;
    } else {
      // Ask for more where coverage falls short; the plan keeps every port sent.
      round = merge_round(plan, phase_ == Phase::switches ? next_switch_round(bp, plan, seen, options_.plan)
                                                          : next_round(bp, plan, seen, options_.plan));
    }
  }
  while (number_ >= options_.max_rounds || round.empty()) {
    if (phase_ == Phase::losses || (phase_ == Phase::hosts && options_.plan.loss_detect <= 0)) {
      phase_ = Phase::done;
      return std::nullopt;
    }
    number_ = 0;
    if (phase_ == Phase::hosts) {
      phase_ = Phase::losses;
      round = loss_round(true);
    } else {
      phase_ = Phase::hosts;
      round = host_plan_;
    }
  }
  ++number_;
  return assign(bp, round, can_send);
}

Round ProbeRounds::assign(const Blueprint& bp, const std::vector<ProbeTarget>& round, const CanSend& can_send) {
  Round r;
  r.kind = phase_ == Phase::switches ? RoundKind::switches
           : phase_ == Phase::hosts   ? RoundKind::hosts
                                      : RoundKind::losses;
  r.number = number_;
  static const char* const names[] = {"switches", "round", "loss"};
  r.name = fmt::format("{}{}", names[static_cast<int>(r.kind)], number_);
  std::map<TargetKey, std::size_t> entry_of;
  for (std::size_t e = 0; e < entries_.size(); ++e) entry_of[key_of(entries_[e].target)] = e;
  // A switch round has a sender per port, a host round one per host.
  std::map<std::pair<int, std::string>, RoundSender> senders;
  for (const auto& t : round) {
    // A port that cannot send (no interface) sends nothing; the probes
    // toward it still tell on its cable.
    if (t.source_ports.empty() || (can_send && !can_send(t.src_host, t.src_port))) continue;
    // A train is an entry of its own: its length is the entry's.
    auto [it, fresh] = r.kind == RoundKind::losses ? std::pair{entry_of.end(), true}
                                                   : entry_of.try_emplace(key_of(t), entries_.size());
    const std::size_t entry = fresh ? entries_.size() : it->second;
    if (fresh) {
      entries_.push_back({r.kind, t});
      entries_.back().target.source_ports.clear();
    }
    auto& all = entries_[entry].target.source_ports;
    all.insert(all.end(), t.source_ports.begin(), t.source_ports.end());
    r.targets.push_back({entry, t});
    const std::string& to = bp.devices[t.dst_host].name;
    nlohmann::json line = {{"entry", entry}, {"from", t.src_port},
                           {"to", t.hop_limit > 0 ? fmt::format("{}={}@{}", to, t.dst_address, t.hop_limit)
                                                  : fmt::format("{}={}", to, t.dst_address)},
                           {"source_ports", t.source_ports}};
    if (t.train > 0) line["train"] = t.train;
    RoundSender& s = senders[{t.src_host, r.kind == RoundKind::switches ? t.src_port : std::string()}];
    s.plan_text += line.dump() + "\n";
    s.probes += static_cast<int>(t.source_ports.size());
    r.probes += static_cast<int>(t.source_ports.size());
    const std::int64_t datagrams = static_cast<std::int64_t>(t.train) * static_cast<std::int64_t>(t.source_ports.size());
    s.train_datagrams += datagrams;
    r.train_datagrams += datagrams;
  }
  for (auto& [where, s] : senders) {
    s.host = where.first;
    s.port = where.second;
    r.senders.push_back(std::move(s));
  }
  return r;
}

std::vector<int> ProbeRounds::destinations(const Blueprint& bp) const {
  std::set<int> hosts;
  for (const auto& t : host_plan_) {
    if (bp.devices[t.dst_host].role == Role::host) hosts.insert(t.dst_host);
  }
  // The loss phase's trains across host cables go to each port's
  // neighbours on its ToR (its other trains retrace the wiring rounds').
  if (options_.plan.loss_detect > 0) {
    for (const auto& t : ring_pairs(bp, hosts_)) hosts.insert(t.dst_host);
    for (const auto& t : spread_pairs(bp, hosts_)) hosts.insert(t.dst_host);
  }
  return {hosts.begin(), hosts.end()};
}

nlohmann::json ProbeRounds::state_json() const {
  static const char* const phases[] = {"switches", "hosts", "losses", "done"};
  std::int64_t probes = 0;
  for (const auto& e : entries_) probes += static_cast<std::int64_t>(e.target.source_ports.size());
  return {{"phase", phases[static_cast<int>(phase_)]}, {"round", number_},
          {"entries", entries_.size()}, {"probes", probes}};
}

std::string ProbeRounds::entries_jsonl(const Blueprint& bp) const {
  std::string text;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    const ProbeTarget& t = entries_[e].target;
    nlohmann::ordered_json line = {{"entry", e},
                                   {"kind", to_string(entries_[e].kind)},
                                   {"from", bp.devices[t.src_host].name + ":" + t.src_port},
                                   {"to", bp.devices[t.dst_host].name},
                                   {"nic", t.dst_nic},
                                   {"address", t.dst_address},
                                   {"hop_limit", t.hop_limit},
                                   {"source_ports", t.source_ports}};
    if (t.train > 0) line["train"] = t.train;
    text += line.dump() + "\n";
  }
  return text;
}

hpn::Result<ProbeRounds> ProbeRounds::from_json(const Blueprint& bp, const std::vector<int>& hosts,
                                           const RoundOptions& options, const nlohmann::json& state,
                                           const std::string& entries, const std::string& entries_name) {
  ProbeRounds rounds(bp, hosts, options);
  FabricIndex f(bp);
  std::istringstream in(entries);
  std::string text;
  std::int64_t probes = 0;
  for (int line = 1; std::getline(in, text); ++line) {
    auto where = [&](const std::string& what) { return Error{fmt::format("{}:{}: {}", entries_name, line, what)}; };
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return where("not a JSON object");
    try {
      if (j.at("entry").get<std::size_t>() != rounds.entries_.size()) return where("entries are not numbered in order");
      PlanEntry e;
      const std::string kind = j.at("kind").get<std::string>();
      if (kind != "switch" && kind != "host" && kind != "loss") {
        return where(fmt::format("kind '{}': expected switch, host or loss", kind));
      }
      e.kind = kind == "switch" ? RoundKind::switches : kind == "host" ? RoundKind::hosts : RoundKind::losses;
      const std::string from = j.at("from").get<std::string>();
      const auto colon = from.find(':');
      e.target.src_host = f.device_by_name(from.substr(0, colon));
      e.target.src_port = colon == std::string::npos ? "" : from.substr(colon + 1);
      e.target.dst_host = f.device_by_name(j.at("to").get<std::string>());
      if (e.target.src_host < 0 || e.target.dst_host < 0 || f.port_by_name(e.target.src_host, e.target.src_port) < 0) {
        return where(fmt::format("{} > {}: not in this blueprint (a plan of another one?)", from,
                                 j.at("to").get<std::string>()));
      }
      e.target.dst_nic = j.at("nic").get<int>();
      e.target.dst_address = j.at("address").get<std::string>();
      e.target.hop_limit = j.at("hop_limit").get<int>();
      e.target.source_ports = j.at("source_ports").get<std::vector<int>>();
      if (e.kind == RoundKind::losses) {
        e.target.train = j.at("train").get<int>();
        if (e.target.train < 1 || e.target.train > static_cast<int>(kMaxTrainLength)) {
          return where(fmt::format("train {}: a train is 1 to {} datagrams", e.target.train, kMaxTrainLength));
        }
      }
      probes += static_cast<std::int64_t>(e.target.source_ports.size());
      rounds.entries_.push_back(std::move(e));
    } catch (const nlohmann::json::exception& x) {
      return where(fmt::format("not a plan entry: {}", x.what()));
    }
  }
  try {
    const std::string phase = state.at("phase").get<std::string>();
    if (phase == "switches") rounds.phase_ = Phase::switches;
    else if (phase == "hosts") rounds.phase_ = Phase::hosts;
    else if (phase == "losses") rounds.phase_ = Phase::losses;
    else if (phase == "done") rounds.phase_ = Phase::done;
    else return Error{fmt::format("phase '{}': expected switches, hosts, losses or done", phase)};
    rounds.number_ = state.at("round").get<int>();
    // What the state says was written must be what the entries hold: a
    // plan cut off between its two files is not resumed.
    if (state.at("entries").get<std::size_t>() != rounds.entries_.size() || state.at("probes").get<std::int64_t>() != probes) {
      return Error{fmt::format("{} holds {} entries and {} probes, its state says {} and {}: half-written",
                               entries_name, rounds.entries_.size(), probes, state.at("entries").dump(),
                               state.at("probes").dump())};
    }
  } catch (const nlohmann::json::exception& x) {
    return Error{fmt::format("not a probe plan's state: {}", x.what())};
  }
  const std::size_t foreign = overlay(rounds.switch_plan_, rounds.entries_, RoundKind::switches) +
                              overlay(rounds.host_plan_, rounds.entries_, RoundKind::hosts);
  if (foreign > 0) {
    return Error{fmt::format("{}: {} entries are not in the plan of these hosts with these options: it was made "
                             "for another scope or with other options", entries_name, foreign)};
  }
  return rounds;
}

}  // namespace hpn::probe
