// Gray failures: cables that pass some traffic and lose some, found by the
// loss estimate (validator/loss_estimate.h) on the forwarding model of the
// lab pod, probed as verify --lab probes (simulate_verify): named by cable
// and direction above the run's background, and never under background
// loss alone.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "lab_fixture.h"
#include "support/schema.h"
#include "support/observations.h"
#include "support/findings.h"
#include "validator/loss_estimate.h"
#include "probe/loss_trains.h"
#include "probe/probe_plan.h"
#include "validator/report.h"

using namespace hpn;
using hpn::probe::ProbeDirection;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using hpn::test::LabFixture;
using hpn::test::records_of;
using hpn::test::set_of;
using hpn::test::findings_text;
using hpn::test::serious_findings;

namespace {

struct Probing {
  double background = 0;
  uint64_t seed = 1;
  int attempts = 3;  // verify --lab's agents: --retries 2
  std::int64_t loss_budget = 200000;
  // The forward model has no noise beside its loss: the estimator itself is
  // tested at every background here (--lossy-max-background 100).
  double max_background = 1.0;
};

validator::Report probe_and_diff(const LabFixture& lab, const Probing& how, int64_t* probes = nullptr) {
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  model.set_loss(how.background, how.seed);
  probe::PlanOptions plan;
  plan.silence.attempts = how.attempts;
  plan.loss_budget = how.loss_budget;
  auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, how.attempts);
  if (probes) *probes = run.probes;
  validator::DiffOptions options;
  options.silence.attempts = how.attempts;
  options.loss.max_background = how.max_background;
  return validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, run.observations), options);
}

std::vector<std::string> lossy(const LabFixture& lab, const validator::Report& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) {
    if (f.kind != FindingKind::lossy) continue;
    REQUIRE(f.loss.has_value());
    out.push_back(lab.bp().cables[f.cables.at(0)].id + (f.loss->direction == 0 ? " a-z" : " z-a"));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("validator/lossy: the Wilson interval and the Poisson tail, against values computed by hand") {
  // 0 of 10: [0, z^2/(n+z^2)]; 5 of 10: 0.5 -+ 0.2634.
  auto i = probe::wilson_interval(0, 10);
  CHECK(i.low == 0);
  CHECK(i.high == Approx(3.8415 / 13.8415).epsilon(1e-4));
  i = probe::wilson_interval(5, 10);
  CHECK(i.low == Approx(0.2366).epsilon(1e-3));
  CHECK(i.high == Approx(0.7634).epsilon(1e-3));
  // P(X >= 3) at mean 1: 1 - e^-1 (1 + 1 + 1/2).
  CHECK(std::exp(probe::log_poisson_tail(1.0, 3)) == Approx(1 - std::exp(-1.0) * 2.5));
  // P(X >= 20) at mean 2, summed term by term here.
  double tail = 0;
  for (int k = 20; k < 80; ++k) tail += std::exp(-2.0 + k * std::log(2.0) - std::lgamma(k + 1.0));
  CHECK(probe::log_poisson_tail(2.0, 20) == Approx(std::log(tail)));
  CHECK(probe::log_poisson_tail(5.0, 3) == 0);  // below the mean: not in the tail
  CHECK(std::isinf(probe::log_poisson_tail(0.0, 1)));
  // P(X <= 2) at mean 4: e^-4 (1 + 4 + 8); P(X <= 30) at mean 60, term by term.
  CHECK(std::exp(probe::log_poisson_head(4.0, 2)) == Approx(std::exp(-4.0) * 13));
  double head = 0;
  for (int k = 0; k <= 30; ++k) head += std::exp(-60.0 + k * std::log(60.0) - std::lgamma(k + 1.0));
  CHECK(probe::log_poisson_head(60.0, 30) == Approx(std::log(head)));
  CHECK(probe::log_poisson_head(3.0, 5) == 0);  // above the mean: not in the head
  CHECK(std::isinf(probe::log_poisson_head(3.0, -1)));
}

TEST_CASE("validator/lossy: a burst lost from one train is no lossy cable, at any background, whichever train it hits") {
  // A moment's loss -- a sender stalled, a route that moved -- takes a few
  // datagrams of the trains passing then. Over a quiet run one such burst
  // of three once named a healthy host cable lossy (CI, a lab fault mix).
  // Here the model's run is real; one counted train, drawn at random, is
  // made to have lost from 3 to half of its datagrams more; beside it, a
  // cable that truly loses 3% one way is still named.
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s01-r1b", "etp6");  // a = ToR, z = aggregation
  lab.set_fault(uplink, "loss-a-z:3");
  const std::string want = lab.bp().cables[uplink].id + " a-z";
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
    const double background = seed % 2 == 0 ? 0.01 : 0.0;
    model.set_loss(background, seed);
    probe::PlanOptions plan;
    plan.silence.attempts = 3;
    auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
    std::vector<probe::ObservationRecord> seen = records_of(run.observations);
    std::vector<size_t> counted;
    for (size_t i = 0; i < seen.size(); ++i) {
      const auto& o = seen[i];
      if (o.train == 0 || o.src_device.empty() || o.direction != ProbeDirection::forward || o.arrived < 12) continue;
      // Not across the lossy cable: the burst is the only loss of its path.
      const auto path = probe::traced_cables(*lab.fabric, o);
      if (std::find(path.begin(), path.end(), uplink * 2) != path.end()) continue;
      counted.push_back(i);
    }
    REQUIRE(counted.size() > 10);
    std::mt19937_64 random(seed);
    auto& hit = seen[counted[std::uniform_int_distribution<size_t>(0, counted.size() - 1)(random)]];
    const int burst = std::uniform_int_distribution<int>(3, hit.arrived / 2)(random);
    hit.arrived -= burst;
    validator::DiffOptions options;
    options.silence.attempts = 3;
    const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, set_of(seen)), options);
    INFO("seed " << seed << ", background " << background << ", " << burst << " lost from the train of "
                 << hit.src_device << " to " << hit.dst_device << "\n" << findings_text(r));
    CHECK(lossy(lab, r) == std::vector<std::string>{want});
  }
}

TEST_CASE("validator/lossy: an uplink losing 30% one way and a host cable 50% the other way are named, with their directions") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp5");          // a = ToR, z = aggregation
  const int host = lab.cable_from("host-p0-s01-h002", "nic2p1");        // a = host, z = ToR
  lab.set_fault(uplink, "loss-a-z:30");
  lab.set_fault(host, "loss-z-a:50");
  for (double background : {0.0, 0.01, 0.03}) {
    Probing how;
    how.background = background;
    how.seed = 11;
    const auto r = probe_and_diff(lab, how);
    INFO("background " << background << "\n" << findings_text(r));
    std::vector<std::string> want{lab.bp().cables[uplink].id + " a-z", lab.bp().cables[host].id + " z-a"};
    std::sort(want.begin(), want.end());
    CHECK(lossy(lab, r) == want);
    CHECK(serious_findings(r).size() == 2);
    CHECK_FALSE(r.clean());
    for (const auto& f : r.findings) {
      if (f.kind != FindingKind::lossy) continue;
      const double truth = f.cables[0] == uplink ? 0.30 : 0.50;
      WARN(fmt::format("{} at {:.0f}% background: {:.3f} ({:.3f} to {:.3f}), {} of {}", f.cables[0] == uplink ? "uplink" : "host",
                       background * 100, f.loss->rate, f.loss->low, f.loss->high, f.loss->lost, f.loss->attempts));
      CHECK(f.severity == Severity::critical);
      // The loss rounds' trains count every datagram over a traced path.
      CHECK(f.loss->rate == Approx(truth).margin(0.03));
      CHECK(f.loss->low <= truth + 0.01);
      CHECK(f.loss->high >= truth - 0.01);
      CHECK(f.loss->lost > 0);
      CHECK(f.loss->attempts > f.loss->lost);
      CHECK(f.loss->baseline == Approx(background).margin(0.01));
    }
  }
}

TEST_CASE("validator/lossy: background loss alone is the baseline, never a finding") {
  LabFixture lab;
  for (double background : {0.01, 0.02, 0.05}) {
    for (uint64_t seed : {1, 2, 3}) {
      Probing how;
      how.background = background;
      how.seed = seed;
      const auto r = probe_and_diff(lab, how);
      INFO("background " << background << " seed " << seed << "\n" << findings_text(r));
      CHECK(lossy(lab, r).empty());
      CHECK(r.summary.baseline_loss == Approx(background).margin(background / 2));
    }
  }
}

TEST_CASE("validator/lossy: retries do not hide loss: every datagram of every train is counted") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s01-r2b", "etp6");
  lab.set_fault(uplink, "loss-a-z:30");
  Probing how;
  how.seed = 5;
  how.attempts = 3;
  const auto r = probe_and_diff(lab, how);
  INFO(findings_text(r));
  // Nearly every probe comes back within three attempts, so a count of
  // probes lost would see almost nothing; the trains' datagrams show the
  // 30%, each lost one counted.
  REQUIRE(lossy(lab, r) == std::vector<std::string>{lab.bp().cables[uplink].id + " a-z"});
  REQUIRE(r.findings[0].kind == FindingKind::lossy);
  CHECK(r.findings[0].loss->rate == Approx(0.30).margin(0.03));
  CHECK(r.summary.lost * 20 < r.findings[0].loss->lost);
}

TEST_CASE("validator/lossy: a cable another finding names is not also lossy") {
  LabFixture lab;
  const int dark = lab.cable_from("host-p0-s00-h003", "nic1p2");
  const int oneway = lab.cable_from("tor-p0-s00-r1a", "etp6");
  lab.set_fault(dark, "down");
  lab.set_fault(oneway, "drop-a-z");
  Probing how;
  how.background = 0.02;
  how.seed = 9;
  const auto r = probe_and_diff(lab, how);
  INFO(findings_text(r));
  CHECK(lossy(lab, r).empty());
  REQUIRE(serious_findings(r).size() == 2);
  CHECK(r.findings[0].kind == FindingKind::missing);
  CHECK(r.findings[0].cables == std::vector<int>{dark});
  CHECK(r.findings[1].kind == FindingKind::unidirectional);
  CHECK(r.findings[1].cables == std::vector<int>{oneway});
}

TEST_CASE("validator/lossy: the thresholds set the severity, and a rate below the warning is no finding") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp5");
  lab.set_fault(uplink, "loss-a-z:30");
  Probing how;
  how.seed = 3;
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  const auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
  const auto witnesses = validator::collect_witnesses(*lab.fabric, run.observations);
  validator::DiffOptions options;
  options.silence.attempts = 3;
  options.loss.warn = 0.05;
  options.loss.critical = 0.50;
  auto r = validator::diff(*lab.fabric, witnesses, options);
  REQUIRE(lossy(lab, r).size() == 1);
  CHECK(r.findings[0].severity == Severity::warning);
  options.loss.warn = 0.60;
  options.loss.critical = 0.70;
  r = validator::diff(*lab.fabric, witnesses, options);
  CHECK(lossy(lab, r).empty());
}

TEST_CASE("validator/lossy: the JSON report carries the loss, and the observation its attempt") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp5");
  lab.set_fault(uplink, "loss-a-z:30");
  Probing how;
  how.seed = 3;
  const auto r = probe_and_diff(lab, how);
  std::ostringstream out;
  validator::render_report(r, *lab.fabric, OutputFormat::json, out);
  const auto j = nlohmann::json::parse(out.str());
  REQUIRE(r.findings[0].kind == FindingKind::lossy);
  const auto& loss = j["findings"][0]["loss"];
  CHECK(loss["direction"] == "a_to_z");
  CHECK(loss["attempts"].get<int64_t>() == r.findings[0].loss->attempts);
  CHECK(loss["interval"].size() == 2);
  CHECK(j["summary"]["loss"]["directions_tested"].get<int64_t>() == r.summary.loss_directions_tested);
  CHECK(r.summary.loss_directions_tested > 0);
  // The report as its schema says.
  CHECK(test::schema_errors_of_text("verify-report.schema.json", out.str()) == "");

  probe::ObservationRecord o;
  o.run = "r";
  o.direction = ProbeDirection::forward;
  o.src_device = "h";
  o.attempt = 3;
  std::istringstream line(probe::to_json_line(o));
  auto back = probe::read_observations(line, "x.jsonl");
  REQUIRE(back.ok());
  CHECK(back.value()[0].attempt == 3);
  o.attempt = 1;  // the first attempt is the default, and not written
  CHECK(probe::to_json_line(o).find("attempt") == std::string::npos);
  std::istringstream bad(R"({"run":"r","probe":0,"direction":"forward","attempt":0,"src":{"device":"h","port":"p","address":"a","udp_port":1},"dst":{"device":"d","address":"b","udp_port":2},"received":false,"hops":[],"sent_ns":0})");
  auto refused = probe::read_observations(bad, "bad.jsonl");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "bad.jsonl:1: 'attempt' must be an integer from 1 to 256");
}

TEST_CASE("validator/lossy: above --lossy-max-background no cable is judged lossy, and the summary says so") {
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s00-r1a", "etp5");
  lab.set_fault(uplink, "loss-a-z:30");
  Probing how;
  how.background = 0.03;
  how.seed = 11;
  how.max_background = 0.01;  // below the run's 3%
  const auto r = probe_and_diff(lab, how);
  INFO(findings_text(r));
  CHECK(lossy(lab, r).empty());
  CHECK_FALSE(r.summary.loss_judged);
  CHECK(r.summary.baseline_loss > 0.01);
  how.background = 0;
  const auto quiet = probe_and_diff(lab, how);
  CHECK(quiet.summary.loss_judged);
  CHECK(lossy(lab, quiet) == std::vector<std::string>{lab.bp().cables[uplink].id + " a-z"});
}

TEST_CASE("validator/lossy: a direction whose trains no one counted is undecided, and the next loss round crosses it") {
  // Every train across the lossy uplink's direction lost its report (and
  // the receiver's record): no counted attempt crossed it. That is too
  // little evidence, never a pass, and the rounds must go on there.
  LabFixture lab;
  const int uplink = lab.cable_from("tor-p0-s01-r2a", "etp6");  // a = ToR, z = aggregation
  lab.set_fault(uplink, "loss-z-a:30");
  const probe::DirectedCable down = uplink * 2 + 1;
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
  std::vector<probe::ObservationRecord> seen = records_of(run.observations);
  // The trains across it, as a sender that heard no report records them.
  std::set<std::pair<std::string, int>> blank;  // (sender's address, source port)
  for (auto& o : seen) {
    if (o.train == 0 || o.src_device.empty() || o.direction != ProbeDirection::forward || !o.received) continue;
    const auto path = probe::traced_cables(*lab.fabric, o);
    if (std::find(path.begin(), path.end(), down) == path.end()) continue;
    blank.insert({o.src_address, o.src_udp_port});
    o.received = false;
    o.hops.clear();
    o.rx_port.clear();
    o.arrived = -1;
  }
  REQUIRE_FALSE(blank.empty());
  // The receivers' records of those trains, and the replies, are gone too.
  std::erase_if(seen, [&](const probe::ObservationRecord& o) {
    return o.train > 0 && (o.src_device.empty() || o.direction != ProbeDirection::forward) &&
           blank.count({o.src_address, o.src_udp_port}) > 0;
  });
  validator::DiffOptions options;
  options.silence.attempts = 3;
  const probe::ObservationSet kept = set_of(seen);
  const auto r = validator::diff(*lab.fabric, validator::collect_witnesses(*lab.fabric, kept), options);
  INFO(findings_text(r));
  CHECK(lossy(lab, r).empty());
  CHECK(r.summary.loss_undecided >= 1);
  const auto estimate = validator::estimate_loss(validator::collect_loss_evidence(*lab.fabric, kept), lab.bp().cables.size());
  CHECK(std::any_of(estimate.undecided.begin(), estimate.undecided.end(), [&](const validator::DirectionLoss& d) {
    return d.cable * 2 + d.direction == down && d.attempts == 0 && d.bound == 1;
  }));
  // The next loss round sends trains over flows traced across it (their
  // paths from the model without the loss, so that none is lost here).
  probe::LossOptions at_detect = plan.loss;
  at_detect.detect = plan.loss_detect;
  const auto next =
      probe::next_loss_round(lab.bp(), lab.hosts(), kept, validator::loss_state(lab.bp(), kept, at_detect), plan);
  lab.set_fault(uplink, "");
  fabricmodel::FabricModel clean(*lab.fabric, lab.wiring);
  int across = 0;
  for (const auto& t : next) {
    REQUIRE(t.train > 0);
    const int src_port = lab.fabric->port_by_name(t.src_host, t.src_port);
    auto obs = clean.probe(t.src_host, src_port, t.dst_host, t.dst_nic, t.source_ports.at(0), 1);
    REQUIRE_FALSE(obs.empty());
    const auto path = probe::traced_cables(*lab.fabric, obs[0]);
    across += std::find(path.begin(), path.end(), down) != path.end() ? 1 : 0;
  }
  CHECK(across >= 1);
}

TEST_CASE("validator/lossy: a ring train no one counted over a flow never traced leaves both its host cables undecided") {
  // A ring train goes from a host to another behind the same ToR, on a
  // source port of its own. With its report, the receiver's records and
  // any trace of the flow gone, the plan still says which two cables it
  // crossed: out of the sender's port, and from the ToR into the
  // receiver's port there.
  LabFixture lab;
  fabricmodel::FabricModel model(*lab.fabric, lab.wiring);
  probe::PlanOptions plan;
  plan.silence.attempts = 3;
  auto run = fabricmodel::simulate_verify(model, lab.hosts(), plan, 3);
  std::vector<probe::ObservationRecord> seen = records_of(run.observations);
  const probe::ObservationRecord* ring = nullptr;
  for (const auto& o : seen) {
    if (o.train > 0 && !o.src_device.empty() && o.direction == ProbeDirection::forward && o.received &&
        probe::traced_cables(*lab.fabric, o).size() == 2) {
      ring = &o;
      break;
    }
  }
  REQUIRE(ring != nullptr);
  const std::vector<probe::DirectedCable> path = probe::traced_cables(*lab.fabric, *ring);
  const std::string src = ring->src_device, port = ring->src_port, address = ring->src_address, to = ring->dst_address;
  const int sport = ring->src_udp_port;
  const auto same_flow = [&](const probe::ObservationRecord& o) {
    return o.src_address == address && o.src_udp_port == sport && o.dst_address == to;
  };
  int blanked = 0;
  for (auto& o : seen) {
    if (o.src_device != src || o.src_port != port || o.direction != ProbeDirection::forward || !same_flow(o)) continue;
    o.received = false;
    o.hops.clear();
    o.rx_port.clear();
    o.arrived = -1;
    ++blanked;
  }
  REQUIRE(blanked >= 1);
  std::erase_if(seen, [&](const probe::ObservationRecord& o) {
    return (o.src_device.empty() || o.direction != ProbeDirection::forward) && same_flow(o);
  });
  const validator::LossEvidence e = validator::collect_loss_evidence(*lab.fabric, set_of(seen));
  for (const probe::DirectedCable d : path) {
    INFO(lab.bp().cables[d / 2].id << (d % 2 ? " z-a" : " a-z"));
    CHECK(std::binary_search(e.uncounted.begin(), e.uncounted.end(), d));
  }
}
