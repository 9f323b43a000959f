#include "probe/loss_trains.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "blueprint/fabric_index.h"
#include "probe/payload.h"

namespace hpn::probe {

namespace {

// ln P[X <= k] for X ~ Binomial(n, q), summed in log space from the mode
// down; a normal approximation (with continuity correction) when the sum
// would be long.
double binomial_cdf(std::int64_t n, double q, std::int64_t k) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (q <= 0) return 1;
  if (q >= 1) return 0;
  const double mean = static_cast<double>(n) * q, sd = std::sqrt(mean * (1 - q));
  if (k > 2000 && sd > 30) return 0.5 * std::erfc(-((static_cast<double>(k) + 0.5 - mean) / sd) / std::sqrt(2.0));
  const double nd = static_cast<double>(n);
  auto log_pmf = [&](std::int64_t i) {
    const double id = static_cast<double>(i);
    return std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) + id * std::log(q) +
           (nd - id) * std::log1p(-q);
  };
  double sum = 0;
  for (std::int64_t i = k; i >= 0; --i) {
    const double term = std::exp(log_pmf(i));
    sum += term;
    if (term < 1e-17 * sum && static_cast<double>(i) < mean) break;
  }
  return std::min(1.0, sum);
}

// The x with P[N(0,1) <= x] = p, by bisection.
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// The least k with P[Poisson(lambda) >= k] <= alpha, at least min_lost.
std::int64_t critical_count(double lambda, double alpha, int min_lost) {
  const double log_alpha = std::log(alpha);
  std::int64_t lo = std::max<std::int64_t>(min_lost, static_cast<std::int64_t>(std::ceil(lambda)));
  if (lambda <= 0 || log_poisson_tail(lambda, lo) <= log_alpha) return lo;
  std::int64_t hi = lo + static_cast<std::int64_t>(10 * std::sqrt(lambda) + 50);
  while (log_poisson_tail(lambda, hi) > log_alpha) hi = lo + 2 * (hi - lo);
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (log_poisson_tail(lambda, mid) <= log_alpha ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

double detection_power(const DetectionRule& r, std::int64_t n) {
  if (n <= 0) return 0;
  const double keep = std::pow(1 - r.background, r.path_length);
  const double q0 = 1 - keep, q1 = 1 - keep * (1 - r.rate);
  const double nd = static_cast<double>(n);
  const std::int64_t c = std::max(critical_count(nd * q0, r.alpha, r.min_lost),
                                  static_cast<std::int64_t>(std::ceil(nd * (q0 + r.warn * (1 - q0)) - 1e-9)));
  return 1 - binomial_cdf(n, q1, c - 1);
}

std::int64_t attempts_to_detect(const DetectionRule& r) {
  constexpr std::int64_t kMax = 1'000'000'000;
  if (r.rate <= 0) return kMax;
  std::int64_t hi = std::max(1, r.min_lost);
  while (hi < kMax && detection_power(r, hi) < r.power) hi *= 2;
  if (hi >= kMax) return kMax;
  std::int64_t lo = hi / 2;  // power(lo) < wanted, or lo is below min_lost
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (detection_power(r, mid) >= r.power ? hi : lo) = mid;
  }
  return hi;
}

std::int64_t attempts_to_rule_out(const DetectionRule& r) {
  constexpr std::int64_t kMax = 1'000'000'000;
  if (r.rate <= 0) return kMax;
  const double keep = std::pow(1 - r.background, r.path_length), q0 = 1 - keep;
  // The power-th percentile of a clean direction's losses (normal).
  const double zp = normal_quantile(r.power);
  auto ruled_out = [&](std::int64_t n) {
    const double nd = static_cast<double>(n);
    const double k = std::min(nd, nd * q0 + zp * std::sqrt(nd * q0 * (1 - q0)));
    const double high = wilson_interval(static_cast<std::int64_t>(std::ceil(k)), n, kRuleOutZ).high;
    return 1 - (1 - high) / keep < r.rate;
  };
  std::int64_t hi = 1;
  while (hi < kMax && !ruled_out(hi)) hi *= 2;
  if (hi >= kMax) return kMax;
  std::int64_t lo = hi / 2;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (ruled_out(mid) ? hi : lo) = mid;
  }
  return hi;
}

namespace {

// A flow as the trains name it: sender, its port, destination, source port.
using FlowKey = std::tuple<int, std::string, int, std::string, int>;

// A train of `length` over a traced flow.
ProbeTarget train_of(const FabricIndex& f, const FlowKey& flow, int length) {
  const auto& [src, port, dst, address, source_port] = flow;
  ProbeTarget t;
  t.src_host = src;
  t.src_port = port;
  t.dst_host = dst;
  t.dst_nic = f.nic_of_address(dst, address);
  t.dst_address = address;
  t.source_ports = {source_port};
  t.train = length;
  return t;
}

// The directed cables each flow was traced across, from the senders'
// received forward records (a train's or a probe's).
std::map<FlowKey, std::vector<DirectedCable>> traced_flows(const FabricIndex& f, const ObservationSet& seen) {
  std::map<FlowKey, std::vector<DirectedCable>> out;
  for (const auto& o : seen) {
    if (o.src_device.empty() || o.direction != ProbeDirection::forward || !o.received) continue;
    const int src = f.device_by_name(o.src_device), dst = f.device_by_name(o.dst_device);
    if (src < 0 || dst < 0) continue;
    FlowKey key{src, std::string(o.src_port), dst, std::string(o.dst_address), o.src_udp_port};
    if (out.count(key)) continue;
    out.emplace(std::move(key), traced_cables(f, o));
  }
  return out;
}

// The directions whose loss the phase decides: both ways of every cable in
// scope but the aggregation-core ones of a single pod (no host's probe
// crosses those within one pod; their sessions witness them).
std::vector<bool> directions_in_scope(const Blueprint& bp, const std::vector<int>& hosts) {
  const std::vector<bool> cables = cables_in_scope(bp, hosts);
  std::vector<bool> out(bp.cables.size() * 2, false);
  for (std::size_t c = 0; c < bp.cables.size(); ++c) {
    if (cables[c]) out[2 * c] = out[2 * c + 1] = true;
  }
  return out;
}

int tested_count(const std::vector<bool>& directions) {
  return static_cast<int>(std::count(directions.begin(), directions.end(), true));
}

DetectionRule rule_for(const PlanOptions& o, double background, int tested, int path_length) {
  DetectionRule r;
  r.rate = o.loss_detect;
  r.background = background;
  r.path_length = std::max(1, path_length);
  r.alpha = o.loss.alpha / std::max(1, tested);
  r.power = o.loss_power;
  r.min_lost = o.loss.min_lost;
  r.warn = o.loss.warn;
  return r;
}

}  // namespace

std::vector<ProbeTarget> ring_pairs(const Blueprint& bp, const std::vector<int>& hosts) {
  const FabricIndex f(bp);
  const std::set<int> senders(hosts.begin(), hosts.end());
  // Each ToR's host ports in port order, with the host and NIC behind each.
  std::map<int, std::vector<std::tuple<int, int, std::string>>> behind;  // ToR -> (host, nic, host port)
  std::set<int> tors;
  for (std::size_t c = 0; c < bp.cables.size(); ++c) {
    const Cable& cable = bp.cables[c];
    if (cable.kind != CableKind::host_tor) continue;
    const PortRef host = f.end_of(static_cast<int>(c), 0), tor = f.end_of(static_cast<int>(c), 1);
    if (!host.valid() || !tor.valid()) continue;
    if (senders.count(host.device)) tors.insert(tor.device);
    behind[tor.device].push_back({host.device, f.port(host).nic, f.port(host).name});
  }
  std::vector<ProbeTarget> out;
  for (int tor : tors) {
    // Only the hosts in scope send: a ring of them alone, where the ToR
    // has two or more, so that each of their cables is crossed both ways
    // (a ring through hosts out of scope leaves the cables of those after
    // them crossed only outward). With one, its neighbours are its partners.
    std::vector<std::tuple<int, int, std::string>> ring;
    for (const auto& member : behind[tor]) {
      if (senders.count(std::get<0>(member))) ring.push_back(member);
    }
    if (ring.size() < 2) ring = behind[tor];
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [host, nic, port] = ring[i];
      if (!senders.count(host)) continue;
      std::set<int> partners;
      for (std::size_t step = 1; step < n && partners.size() < 2; ++step) {
        const auto& [dst, dst_nic, dst_port] = ring[(i + step) % n];
        if (dst == host || partners.count(dst)) continue;
        const std::string address = bond_address(bp, dst, dst_nic);
        if (address.empty()) continue;
        partners.insert(dst);
        ProbeTarget t;
        t.src_host = host;
        t.src_port = port;
        t.dst_host = dst;
        t.dst_nic = dst_nic;
        t.dst_address = address;
        out.push_back(std::move(t));
      }
    }
  }
  return out;
}

std::vector<ProbeTarget> spread_pairs(const Blueprint& bp, const std::vector<int>& hosts) {
  std::map<std::pair<int, int>, std::vector<int>> segments;  // (pod, segment) -> hosts, in device order
  for (std::size_t d = 0; d < bp.devices.size(); ++d) {
    if (bp.devices[d].role == Role::host) segments[{bp.devices[d].pod, bp.devices[d].segment}].push_back(static_cast<int>(d));
  }
  std::map<int, std::vector<int>> pod_segments;  // pod -> its segments, in order
  for (const auto& [key, members] : segments) pod_segments[key.first].push_back(key.second);
  std::vector<ProbeTarget> out;
  for (int h : hosts) {
    const Device& host = bp.devices[h];
    const auto& mine = pod_segments[host.pod];
    const std::size_t count = mine.size();
    if (count < 3) continue;
    const std::size_t at = std::find(mine.begin(), mine.end(), host.segment) - mine.begin();
    const auto& members = segments[{host.pod, host.segment}];
    const std::size_t place = std::find(members.begin(), members.end(), h) - members.begin();
    for (const auto& port : bp.panels[host.panel].ports) {
      if (port.nic < 1) continue;
      // Port i of the host: a segment 2 .. count - 1 further on, by port and place.
      const std::size_t step = 2 + (place * 16 + static_cast<std::size_t>(&port - bp.panels[host.panel].ports.data())) % (count - 2);
      const auto& there = segments[{host.pod, mine[(at + step) % count]}];
      const int dst = there[place % there.size()];
      const std::string address = bond_address(bp, dst, port.nic);
      if (address.empty()) continue;
      ProbeTarget t;
      t.src_host = h;
      t.src_port = port.name;
      t.dst_host = dst;
      t.dst_nic = port.nic;
      t.dst_address = address;
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<ProbeTarget> first_loss_round(const Blueprint& bp, const std::vector<int>& hosts,
                                          const ObservationSet& seen, const LossState& so_far,
                                          const PlanOptions& o) {
  if (o.loss_detect <= 0) return {};
  const FabricIndex f(bp);
  const std::vector<bool> in_scope = directions_in_scope(bp, hosts);
  const int tested = tested_count(in_scope);
  // The background the wiring rounds saw, per crossing.
  const double background = so_far.background;
  auto length_for = [&](int path_length, int trains) {
    const DetectionRule rule = rule_for(o, background, tested, path_length);
    const std::int64_t n = std::min(std::max(attempts_to_detect(rule), attempts_to_rule_out(rule)), o.loss_budget);
    const std::int64_t each = (n + trains - 1) / std::max(1, trains);
    return static_cast<int>(std::clamp<std::int64_t>(each, 1, kMaxTrainLength));
  };
  std::vector<ProbeTarget> out;
  // Host cables: two trains across each direction, over two cables.
  int sport = o.first_source_port;
  const auto ring = ring_pairs(bp, hosts);
  std::map<std::pair<int, std::string>, int> partners;  // sender port -> its trains: a ring of two has one
  for (const auto& t : ring) ++partners[{t.src_host, t.src_port}];
  for (ProbeTarget t : ring) {
    t.source_ports = {sport};
    sport = sport >= 65535 ? o.first_source_port : sport + 1;
    t.train = length_for(2, partners[{t.src_host, t.src_port}]);
    out.push_back(std::move(t));
  }
  // Switch-to-switch cables, spread: one train from each host port to its
  // rail further on, over paths of four cables.
  const int spread_train = length_for(4, 2);
  for (ProbeTarget t : spread_pairs(bp, hosts)) {
    t.source_ports = {sport};
    sport = sport >= 65535 ? o.first_source_port : sport + 1;
    t.train = spread_train;
    out.push_back(std::move(t));
  }
  // Switch-to-switch cables: up to two traced flows across each direction.
  const auto flows = traced_flows(f, seen);
  std::map<DirectedCable, std::vector<const FlowKey*>> across;
  for (const auto& [key, path] : flows) {
    for (DirectedCable d : path) {
      const Cable& c = bp.cables[d / 2];
      if (in_scope[d] && c.kind != CableKind::host_tor) across[d].push_back(&key);
    }
  }
  // The directions with the fewest flows choose first; a flow chosen for
  // one counts for every direction it crosses. A direction's two flows
  // share no other switch-to-switch direction where the traces allow:
  // losses on flows that all cross two directions cannot say which of the
  // two lost them.
  auto fabric_of = [&](const FlowKey* k) {
    std::vector<DirectedCable> out;
    for (DirectedCable d : flows.at(*k)) {
      if (bp.cables[d / 2].kind != CableKind::host_tor) out.push_back(d);
    }
    return out;
  };
  std::vector<std::pair<std::size_t, DirectedCable>> order;
  for (const auto& [d, candidates] : across) order.push_back({candidates.size(), d});
  std::sort(order.begin(), order.end());
  std::set<const FlowKey*> chosen;
  std::map<int, int> load;  // sender -> flows chosen from it
  for (const auto& entry : order) {
    // A plain variable, not a structured binding: the lambdas below use it,
    // which C++20 allows but clang before 16 refuses.
    const DirectedCable d = entry.second;
    const auto& candidates = across[d];
    std::set<DirectedCable> others;  // the other fabric directions of the flows taken for d
    std::vector<const FlowKey*> taken;
    auto apart = [&](const FlowKey* k) {
      for (DirectedCable e : fabric_of(k)) {
        if (e != d && others.count(e)) return false;
      }
      return true;
    };
    auto take = [&](const FlowKey* k) {
      taken.push_back(k);
      if (chosen.insert(k).second) ++load[std::get<0>(*k)];
      for (DirectedCable e : fabric_of(k)) {
        if (e != d) others.insert(e);
      }
    };
    // Flows chosen already and apart, then new ones apart, then any; new
    // ones from the senders with the fewest trains so far first (a round
    // lasts as long as its busiest sender).
    std::vector<const FlowKey*> by_load(candidates.begin(), candidates.end());
    std::stable_sort(by_load.begin(), by_load.end(), [&](const FlowKey* a, const FlowKey* b) {
      return load[std::get<0>(*a)] < load[std::get<0>(*b)];
    });
    for (int pass = 0; pass < 3 && taken.size() < 2; ++pass) {
      for (const FlowKey* k : pass == 0 ? candidates : by_load) {
        if (taken.size() >= 2) break;
        if (std::find(taken.begin(), taken.end(), k) != taken.end()) continue;
        if (pass == 0 && !chosen.count(k)) continue;
        if (pass < 2 && !apart(k)) continue;
        take(k);
      }
    }
  }
  // Each chosen flow as long as the direction that needs most of it needs.
  std::map<DirectedCable, int> sharing;
  for (const FlowKey* k : chosen) {
    for (DirectedCable d : flows.at(*k)) ++sharing[d];
  }
  // In the flows' order (a set of pointers is in no order worth keeping).
  for (const auto& [key, path] : flows) {
    const FlowKey* k = &key;
    if (!chosen.count(k)) continue;
    int train = 1;
    for (DirectedCable d : path) {
      if (in_scope[d] && bp.cables[d / 2].kind != CableKind::host_tor) {
        train = std::max(train, length_for(static_cast<int>(path.size()), sharing[d]));
      }
    }
    out.push_back(train_of(f, key, train));
  }
  return out;
}

std::vector<ProbeTarget> next_loss_round(const Blueprint& bp, const std::vector<int>& hosts,
                                         const ObservationSet& seen, const LossState& so_far, const PlanOptions& o) {
  if (o.loss_detect <= 0) return {};
  const FabricIndex f(bp);
  const std::vector<bool> in_scope = directions_in_scope(bp, hosts);
  const int tested = tested_count(in_scope);
  std::vector<DirectedCable> open;
  for (const auto& d : so_far.undecided) {
    if (in_scope[d.direction] && d.attempts < o.loss_budget) open.push_back(d.direction);
  }
  if (open.empty()) return {};
  // What the culprits found so far take of a flow's attempts: an undecided
  // direction whose trains all cross one is decided slowly, its own loss a
  // small part of theirs, so the flows that cross the fewest culprits go.
  const std::map<DirectedCable, double> culprit(so_far.culprits.begin(), so_far.culprits.end());
  const auto flows = traced_flows(f, seen);
  std::map<DirectedCable, std::vector<const FlowKey*>> across;
  for (const auto& [key, path] : flows) {
    for (DirectedCable d : path) across[d].push_back(&key);
  }
  auto exposure = [&](const FlowKey* k, DirectedCable own) {
    double keep = 1;
    for (DirectedCable d : flows.at(*k)) {
      if (d == own) continue;
      if (auto it = culprit.find(d); it != culprit.end()) keep *= 1 - it->second;
    }
    return 1 - keep;
  };
  std::map<const FlowKey*, int> chosen;  // flow -> its train's length
  for (DirectedCable d : open) {
    auto candidates = across[d];
    std::stable_sort(candidates.begin(), candidates.end(), [&](const FlowKey* a, const FlowKey* b) {
      return exposure(a, d) < exposure(b, d);
    });
    // Two trains, each half the attempts the first round sizes for its
    // path: the direction's attempts at least double, over the cleanest
    // flows it has.
    for (std::size_t i = 0; i < candidates.size() && i < 2; ++i) {
      const auto& path = flows.at(*candidates[i]);
      const DetectionRule rule = rule_for(o, so_far.background, tested, static_cast<int>(path.size()));
      const std::int64_t n = std::min(std::max(attempts_to_detect(rule), attempts_to_rule_out(rule)), o.loss_budget);
      const int train = static_cast<int>(std::clamp<std::int64_t>((n + 1) / 2, 1, kMaxTrainLength));
      chosen[candidates[i]] = std::max(chosen[candidates[i]], train);
    }
  }
  std::vector<ProbeTarget> out;
  for (const auto& [key, path] : flows) {
    auto it = chosen.find(&key);
    if (it == chosen.end()) continue;
    out.push_back(train_of(f, key, it->second));
  }
  return out;
}

}  // namespace hpn::probe
