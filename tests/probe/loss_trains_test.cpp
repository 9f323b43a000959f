// The loss rounds' arithmetic and their trains (probe/loss_trains.h): the
// attempts a loss needs, checked against the binomial computed here and
// against simulated runs of the test the estimator makes; the host-cable
// ring and the spread trains on the lab pod and the default pod.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "../validator/lab_fixture.h"
#include "probe/loss_stats.h"
#include "probe/loss_trains.h"

using namespace hpn;
using hpn::test::LabFixture;

namespace {

// P[X >= k] for X ~ Binomial(n, p), summed term by term.
double binomial_at_least(std::int64_t n, double p, std::int64_t k) {
  double below = 0;
  for (std::int64_t i = 0; i < k; ++i) {
    below += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
                      (n - i) * std::log1p(-p));
  }
  return 1 - below;
}

}  // namespace

TEST_CASE("probe/loss trains: with no background, the attempts that show three losses and the warning rate with "
          "the power asked") {
  for (double rate : {0.02, 0.05, 0.30}) {
    probe::DetectionRule r;
    r.rate = rate;
    r.background = 0;
    r.power = 0.99;
    r.min_lost = 3;
    r.warn = 0.01;
    const std::int64_t n = probe::attempts_to_detect(r);
    INFO("rate " << rate << ": " << n);
    auto needed = [](std::int64_t attempts) {
      return std::max<std::int64_t>(3, static_cast<std::int64_t>(std::ceil(0.01 * static_cast<double>(attempts))));
    };
    CHECK(binomial_at_least(n, rate, needed(n)) >= 0.99);
    CHECK(binomial_at_least(n - 1, rate, needed(n - 1)) < 0.99);
  }
  // A loss no higher than the warning rate is estimated below it half the
  // time: no number of attempts finds it with 99%.
  probe::DetectionRule at_warn;
  at_warn.rate = at_warn.warn = 0.01;
  CHECK(probe::attempts_to_detect(at_warn) == 1'000'000'000);
}

TEST_CASE("probe/loss trains: more background, longer paths and smaller losses all need more attempts") {
  probe::DetectionRule r;
  r.alpha = 0.01 / 100000;
  std::int64_t last = 0;
  for (double background : {0.0, 0.01, 0.02, 0.05, 0.10}) {
    r.background = background;
    const std::int64_t n = probe::attempts_to_detect(r);
    CHECK(n > last);
    last = n;
    r.path_length = 4;
    // (With no background a longer path loses nothing more.)
    CHECK(probe::attempts_to_detect(r) >= n + (background > 0 ? 1 : 0));
    r.path_length = 2;
    r.rate = 0.05;
    CHECK(probe::attempts_to_detect(r) < n);
    r.rate = 0.02;
    // A clean direction is ruled out at a count of the same order.
    const std::int64_t clean = probe::attempts_to_rule_out(r);
    CHECK(clean > n / 10);
    CHECK(clean < n * 10);
  }
}

TEST_CASE("probe/loss trains: at the attempts sized, simulated runs of the test name the loss as often as asked, and "
          "a clean direction almost never") {
  // The estimator's test on one direction: its lost attempts against the
  // Poisson tail of the background's expectation, at alpha over the
  // directions tested, and at least min_lost of them.
  std::mt19937_64 random(42);
  for (double background : {0.0, 0.02, 0.05}) {
    probe::DetectionRule r;
    r.rate = 0.02;
    r.background = background;
    r.path_length = 2;
    r.alpha = 0.01 / 200;
    r.power = 0.99;
    const std::int64_t n = probe::attempts_to_detect(r);
    const double keep = std::pow(1 - background, 2), q0 = 1 - keep;
    auto named = [&](double own) {
      std::binomial_distribution<std::int64_t> lost(n, 1 - keep * (1 - own));
      const std::int64_t k = lost(random);
      return k >= r.min_lost && probe::log_poisson_tail(std::max(n * q0, n * 1e-6), k) <= std::log(r.alpha);
    };
    int hits = 0, false_hits = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      hits += named(r.rate) ? 1 : 0;
      false_hits += named(0) ? 1 : 0;
    }
    INFO("background " << background << ": " << n << " attempts, " << hits << " of " << trials << " named");
    CHECK(hits >= 0.98 * trials);  // 0.99 asked; 4,000 trials leave some room
    CHECK(false_hits <= 2);
  }
}

TEST_CASE("probe/loss trains: on each ToR every host cable is crossed each way by two trains of two partners") {
  LabFixture lab;
  const FabricIndex& f = *lab.fabric;
  const auto pairs = probe::ring_pairs(lab.bp(), lab.hosts());
  std::map<int, std::set<int>> out_partners, in_partners;  // host cable -> partner hosts
  for (const auto& t : pairs) {
    const int from = f.cable_at({t.src_host, f.port_by_name(t.src_host, t.src_port)}).cable;
    // The destination's port on the sender's ToR.
    const int tor = f.far_end({t.src_host, f.port_by_name(t.src_host, t.src_port)}).device;
    int to = -1;
    for (std::size_t c = 0; c < lab.bp().cables.size(); ++c) {
      const Cable& cable = lab.bp().cables[c];
      if (cable.a_device == t.dst_host && cable.z_device == tor) to = static_cast<int>(c);
    }
    REQUIRE(from >= 0);
    REQUIRE(to >= 0);
    CHECK(t.dst_host != t.src_host);
    out_partners[from].insert(t.dst_host);
    in_partners[to].insert(t.src_host);
  }
  int host_cables = 0;
  for (const auto& c : lab.bp().cables) host_cables += c.kind == CableKind::host_tor ? 1 : 0;
  CHECK(static_cast<int>(out_partners.size()) == host_cables);
  CHECK(static_cast<int>(in_partners.size()) == host_cables);
  for (const auto& [cable, partners] : out_partners) CHECK(partners.size() == 2);
  for (const auto& [cable, partners] : in_partners) CHECK(partners.size() == 2);
  // A pod of two segments has no segment beyond the next: no spread trains.
  CHECK(probe::spread_pairs(lab.bp(), lab.hosts()).empty());
}

TEST_CASE("probe/loss trains: on the default pod the spread trains reach every other segment but the next") {
  auto spec = default_spec();
  REQUIRE(spec.ok());
  auto plan = make_plan(std::move(spec.value()), "test");
  REQUIRE(plan.ok());
  const Blueprint& bp = plan->blueprint;
  // One segment's hosts: their trains to its own rail, every segment but
  // its own and the next, each its share.
  std::vector<int> hosts;
  for (std::size_t d = 0; d < bp.devices.size(); ++d) {
    if (bp.devices[d].role == Role::host && bp.devices[d].segment == 3) hosts.push_back(static_cast<int>(d));
  }
  const auto spread = probe::spread_pairs(bp, hosts);
  std::map<int, int> by_segment;
  for (const auto& t : spread) {
    const Device& dst = bp.devices[t.dst_host];
    ++by_segment[dst.segment];
    CHECK(dst.pod == bp.devices[t.src_host].pod);
  }
  CHECK(by_segment.count(3) == 0);
  CHECK(by_segment.count(4) == 0);
  CHECK(by_segment.size() == 13);
  for (const auto& [segment, n] : by_segment) {
    INFO("segment " << segment);
    CHECK(std::abs(n - static_cast<int>(spread.size()) / 13) <= 16);
  }
}
