#include "fabricmodel/forwarding_model.h"

#include "probe/probe_rounds.h"
#include "validator/loss_estimate.h"

#include <fmt/format.h>

#include <random>

#include "probe/payload.h"

namespace hpn::fabricmodel {

std::vector<lab::WiredCable> planned_wiring(const FabricIndex& f) {
  std::vector<lab::WiredCable> wiring;
  for (const Cable& c : f.blueprint().cables) wiring.push_back({c.id, 0, c.a_device, c.a_port, c.z_device, c.z_port, {}});
  return wiring;
}

PortRef a_end(const FabricIndex& f, const lab::WiredCable& c) { return {c.a_device, f.port_by_name(c.a_device, c.a_port)}; }
PortRef z_end(const FabricIndex& f, const lab::WiredCable& c) { return {c.z_device, f.port_by_name(c.z_device, c.z_port)}; }

namespace {

void plug(const FabricIndex& f, int& device, std::string& port, PortRef to) {
  device = to.valid() ? to.device : 0;
  port = to.valid() ? f.port(to).name : std::string();
}

}  // namespace

void plug_a(const FabricIndex& f, lab::WiredCable& c, PortRef to) { plug(f, c.a_device, c.a_port, to); }
void plug_z(const FabricIndex& f, lab::WiredCable& c, PortRef to) { plug(f, c.z_device, c.z_port, to); }

void swap_a_ends(lab::WiredCable& x, lab::WiredCable& y) {
  std::swap(x.a_device, y.a_device);
  std::swap(x.a_port, y.a_port);
}

void swap_z_ends(lab::WiredCable& x, lab::WiredCable& y) {
  std::swap(x.z_device, y.z_device);
  std::swap(x.z_port, y.z_port);
}

FabricModel::FabricModel(const FabricIndex& f, const std::vector<lab::WiredCable>& wiring)
    : f_(f), routes_(f, wiring) {
  const Blueprint& bp = f.blueprint();
  peers_.resize(bp.devices.size());
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    peers_[d].resize(bp.panels[bp.devices[d].panel].ports.size());
  }
  no_record_.resize(bp.devices.size());
  no_answer_.resize(bp.devices.size());
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    no_record_[d].assign(peers_[d].size() + 1, false);
    no_answer_[d].assign(peers_[d].size() + 1, false);
  }
  using lab::FaultKind;
  for (const auto& w : wiring) {
    const PortRef a = a_end(f, w), z = z_end(f, w);
    const lab::Fault& fault = w.fault;
    if (!a.valid() || !z.valid() || fault.kind == FaultKind::down) continue;
    // A switch's own state at one end of the cable.
    const PortRef at = fault.at_z ? z : a;
    if (fault.kind == FaultKind::ioam_off) no_record_[at.device][at.port] = true;
    if (fault.kind == FaultKind::icmp_off) no_answer_[at.device][at.port] = true;
    const bool a_to_z = fault.direction == lab::Direction::a_to_z;
    peers_[a.device][a.port] = {z, fault.kind == FaultKind::drop && a_to_z};
    peers_[z.device][z.port] = {a, fault.kind == FaultKind::drop && !a_to_z};
    if (fault.kind == FaultKind::loss) {
      (a_to_z ? peers_[a.device][a.port] : peers_[z.device][z.port]).loss = fault.loss_percent / 100.0;
    }
  }
  links_to_.resize(bp.devices.size());
  up_.resize(bp.devices.size());
  for (size_t d = 0; d < bp.devices.size(); ++d) {
    Role role = bp.devices[d].role;
    if (role == Role::host) continue;
    for (size_t i = 0; i < peers_[d].size(); ++i) {
      PortRef far = peers_[d][i].port;
      if (!far.valid()) continue;
      Role far_role = bp.devices[far.device].role;
      int port = static_cast<int>(i);
      links_to_[d][far.device].push_back(port);
      if ((role == Role::tor && far_role == Role::agg) || (role == Role::agg && far_role == Role::core)) {
        up_[d].push_back(port);
      }
    }
  }
  for (const auto& i : bp.interfaces) {
    if (i.purpose == InterfacePurpose::host) addresses_.emplace(key(i.device, i.nic), i.ipv6);
  }
}

bool FabricModel::lost_on(const Peer& p) {
  // The top 53 bits as a double in [0, 1): the same on every standard library.
  auto draw = [&] { return static_cast<double>(random_() >> 11) * 0x1.0p-53; };
  if (loss_ > 0 && draw() < loss_) return true;
  return p.loss > 0 && draw() < p.loss;
}

int FabricModel::survivors(const Peer& p, int n) {
  const double keep = (1 - loss_) * (1 - p.loss);
  if (n <= 0 || keep >= 1) return n;
  // libstdc++'s binomial: the same draws for the same seed on this
  // standard library (the diagnosis bench's figures rest on it).
  return std::binomial_distribution<int>(n, keep)(random_);
}

void FabricModel::leave_out_records(int device, int port) {
  no_record_[device][port < 0 ? no_record_[device].size() - 1 : static_cast<size_t>(port)] = true;
}

void FabricModel::answer_no_probes(int device, int port) {
  no_answer_[device][port < 0 ? no_answer_[device].size() - 1 : static_cast<size_t>(port)] = true;
}

bool FabricModel::writes_record(PortRef in) const {
  const auto& off = no_record_[in.device];
  return !off.back() && !off[in.port];
}

bool FabricModel::answers_at(PortRef in) const {
  const auto& off = no_answer_[in.device];
  return !off.back() && !off[in.port];
}

const FabricModel::Peer* FabricModel::peer(PortRef p) const {
  const Peer& q = peers_[p.device][p.port];
  return q.port.valid() ? &q : nullptr;
}

std::string FabricModel::address(int host, int nic) const {
  auto it = addresses_.find(key(host, nic));
  return it == addresses_.end() ? std::string() : it->second;
}

namespace {

// FNV-1a over the five-tuple: deterministic, and spread enough to mimic a
// switch's ECMP hash.
// Each switch seeds it with its node ID, as real switches use their own seeds.
uint64_t hash_tuple(uint32_t seed, const std::string& src, const std::string& dst, int sport, int dport) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t{seed} * 0x9E3779B97F4A7C15ull);
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  };
  mix(src);
  mix(dst);
  mix(std::to_string(sport));
  mix(std::to_string(dport));
  return h ^ (h >> 29);
}

}  // namespace

PortRef FabricModel::route(int device, const std::string& src, const std::string& dst, int sport, int dport) const {
  // The fabric's routes on this wiring (routes.h), one port of the ECMP
  // set per five-tuple.
  const std::vector<int>& ports = routes_.toward(device, dst);
  if (ports.empty()) return {};  // no route: dropped here
  // Between pods the cores forward by their core rules, which the model
  // does not have: it leaves inter-pod forwarding to the lab, and loses
  // what an aggregation switch would send up to a core.
  const Blueprint& bp = f_.blueprint();
  if (bp.devices[device].role == Role::agg && bp.devices[peers_[device][ports[0]].port.device].role == Role::core) {
    return {};
  }
  if (ports.size() == 1) return {device, ports[0]};
  const uint64_t h = hash_tuple(bp.devices[device].node_id, src, dst, sport, dport);
  return {device, ports[h % ports.size()]};
}

probe::ObservationRecord FabricModel::send(PortRef from, const std::string& src_address, int dst_host,
                                     int nic, const std::string& dst_address, int sport, int dport,
                                     uint64_t id, probe::ProbeDirection direction) {
  const Blueprint& bp = f_.blueprint();
  probe::ObservationRecord o;
  o.run = "sim";
  o.probe = id;
  o.direction = direction;
  o.src_device = bp.devices[from.device].name;
  o.src_port = f_.port(from).name;
  o.src_address = src_address;
  o.src_udp_port = sport;
  o.dst_device = bp.devices[dst_host].name;
  o.dst_address = dst_address;
  o.dst_udp_port = dport;
  o.sent_ns = static_cast<int64_t>(id) * 1000;
  PortRef out = from;
  int hop_limit = 64;
  for (int hops = 0; hops < 16; ++hops) {
    const Peer* p = peer(out);
    if (!p || p->drops || lost_on(*p)) return o;
    PortRef in = p->port;
    if (in.device == dst_host) {
      o.received = true;
      o.rx_port = f_.port(in).name;
      o.received_ns = o.sent_ns + 5000;
      return o;
    }
    if (bp.devices[in.device].role == Role::host) return o;  // delivered to the wrong host
    PortRef next = route(in.device, src_address, dst_address, sport, dport);
    if (!next.valid()) return o;
    --hop_limit;
    if (writes_record(in)) {
      o.hops.push_back({bp.devices[in.device].node_id, f_.port(in).port_id, f_.port(next).port_id, hop_limit});
    }
    out = next;
  }
  return o;
}

void FabricModel::set_loss(double p, uint64_t seed) {
  loss_ = p;
  random_.seed(seed);
}

std::vector<probe::ObservationRecord> FabricModel::probe(int host, int port, int dst, int nic, int sport,
                                                   uint64_t id) {
  int src_nic = f_.port({host, port}).nic;
  std::string src_address = address(host, src_nic), dst_address = address(dst, nic);
  std::vector<probe::ObservationRecord> out;
  out.push_back(
      send({host, port}, src_address, dst, nic, dst_address, sport, 17768, id, probe::ProbeDirection::forward));
  if (out.back().received) {
    PortRef back{dst, f_.port_by_name(dst, out.back().rx_port)};
    out.push_back(
        send(back, dst_address, host, src_nic, src_address, 17768, sport, id, probe::ProbeDirection::reverse));
  }
  return out;
}

probe::ObservationRecord FabricModel::switch_probe(int host, int port, int target, const std::string& loopback,
                                             int sport, uint64_t id) {
  const Blueprint& bp = f_.blueprint();
  probe::ObservationRecord o;
  o.run = "sim";
  o.probe = id;
  o.direction = probe::ProbeDirection::expired;
  o.src_device = bp.devices[host].name;
  o.src_port = f_.port({host, port}).name;
  o.src_address = address(host, f_.port({host, port}).nic);
  o.src_udp_port = sport;
  o.dst_device = bp.devices[target].name;
  o.dst_address = loopback;
  o.dst_udp_port = 17768;
  o.sent_ns = static_cast<int64_t>(id) * 1000;
  PortRef out{host, port};
  int hop_limit = 64;
  for (int hops = 0; hops < 16; ++hops) {
    const Peer* p = peer(out);
    if (!p || p->drops || lost_on(*p)) return o;
    const PortRef in = p->port;
    const int device = in.device;
    if (device == target) {
      if (!answers_at(in)) return o;
      if (writes_record(in)) o.hops.push_back({bp.devices[device].node_id, f_.port(in).port_id, -1, hop_limit - 1});
      o.received = true;
      o.received_ns = o.sent_ns + 5000;
      o.reporter = loopback;
      o.icmp_type = 1;
      return o;
    }
    const Role role = bp.devices[device].role;
    if (role == Role::host || role == Role::core) return o;
    std::vector<int> choices;
    if (auto it = links_to_[device].find(target); it != links_to_[device].end()) {
      choices = it->second;
    } else if (role == Role::tor) {
      // Routes to a core's loopback come from the aggregation switches cabled to it.
      for (int up : up_[device]) {
        const PortRef agg = peers_[device][up].port;
        if (links_to_[agg.device].count(target)) choices.push_back(up);
      }
      if (choices.empty()) choices = up_[device];
    }
    if (choices.empty()) return o;
    const uint64_t h = hash_tuple(bp.devices[device].node_id, o.src_address, loopback, sport, 17768);
    const PortRef next{device, choices[h % choices.size()]};
    --hop_limit;
    if (writes_record(in)) {
      o.hops.push_back({bp.devices[device].node_id, f_.port(in).port_id, f_.port(next).port_id, hop_limit});
    }
    out = next;
  }
  return o;
}

AgentProbe FabricModel::agent_probe(int host, int port, int dst, int nic, int sport, uint64_t id, int attempts) {
  AgentProbe out;
  const std::string listener_run = fmt::format("{:016x}", probe::run_id_of("sim"));  // as a listener writes it
  std::vector<probe::ObservationRecord> last;
  for (int a = 1; a <= attempts; ++a) {
    last = probe(host, port, dst, nic, sport, id);
    for (auto& o : last) o.attempt = a;
    if (last[0].received) {
      probe::ObservationRecord heard = last[0];  // the receiver's record: it knows no sender port
      heard.run = listener_run;
      heard.src_device.clear();
      heard.src_port.clear();
      out.receiver.push_back(std::move(heard));
    }
    if (last.size() == 2 && last[1].received) {
      out.sender = std::move(last);
      return out;
    }
  }
  probe::ObservationRecord lost = std::move(last[0]);  // the sender's record of a probe never answered
  lost.received = false;
  lost.rx_port.clear();
  lost.hops.clear();
  lost.received_ns = 0;
  out.sender.push_back(std::move(lost));
  return out;
}

AgentProbe FabricModel::agent_train(int host, int port, int dst, int nic, int sport, uint64_t id, int length,
                                    int attempts) {
  // The train's own datagrams: the five-tuple's one path, each crossing
  // thinning them; the report request then asks what arrived.
  const Blueprint& bp = f_.blueprint();
  const int src_nic = f_.port({host, port}).nic;
  const std::string src_address = address(host, src_nic), dst_address = address(dst, nic);
  int arrived = length;
  PortRef out{host, port};
  for (int hops = 0;; ++hops) {
    const Peer* p = hops < 16 ? peer(out) : nullptr;
    if (!p || p->drops) {
      arrived = 0;
      break;
    }
    arrived = survivors(*p, arrived);
    const PortRef in = p->port;
    if (in.device == dst) break;
    if (bp.devices[in.device].role == Role::host) {
      arrived = 0;  // delivered to the wrong host, which does not listen for it
      break;
    }
    out = route(in.device, src_address, dst_address, sport, 17768);
    if (!out.valid()) {
      arrived = 0;
      break;
    }
  }
  AgentProbe p = agent_probe(host, port, dst, nic, sport, id, attempts);
  for (auto& o : p.receiver) {
    o.train = length;
    o.arrived = arrived;
  }
  for (auto& o : p.sender) {
    if (o.direction != probe::ProbeDirection::forward) continue;
    o.train = length;
    o.arrived = o.received ? arrived : -1;
  }
  return p;
}

probe::ObservationRecord FabricModel::agent_switch_probe(int host, int port, int target, const std::string& loopback,
                                                   int sport, uint64_t id, int attempts) {
  probe::ObservationRecord o;
  for (int a = 1; a <= attempts; ++a) {
    o = switch_probe(host, port, target, loopback, sport, id);
    o.attempt = a;
    if (o.received) return o;
  }
  o.hops.clear();
  return o;
}

SimulatedRun simulate_verify(FabricModel& model, const std::vector<int>& hosts, const probe::PlanOptions& options,
                             int attempts, int max_rounds) {
  const FabricIndex& f = model.fabric();
  const Blueprint& bp = f.blueprint();
  SimulatedRun run;
  probe::ObservationSet heard;
  uint64_t id = 0;
  // The rounds see what the senders saw so far; the lab reads the receivers' records at the end.
  probe::ProbeRounds rounds(bp, hosts, {options, max_rounds, true, validator::loss_state});
  auto has_port = [&](int host, const std::string& port) { return f.port_by_name(host, port) >= 0; };
  while (auto round = rounds.next(bp, run.observations, has_port)) {
    const bool switches = round->kind == probe::RoundKind::switches;
    if (round->kind == probe::RoundKind::hosts) ++run.rounds;
    if (round->kind == probe::RoundKind::losses) ++run.loss_rounds;
    for (const auto& [entry, t] : round->targets) {
      const int port = f.port_by_name(t.src_host, t.src_port);
      for (int sport : t.source_ports) {
        if (switches) {
          run.observations.add(model.agent_switch_probe(t.src_host, port, t.dst_host, t.dst_address, sport,
                                                        ++id, attempts));
        } else if (t.train > 0) {
          AgentProbe p = model.agent_train(t.src_host, port, t.dst_host, t.dst_nic, sport, ++id, t.train, attempts);
          for (const auto& o : p.sender) run.observations.add(o);
          for (const auto& o : p.receiver) heard.add(o);
          run.train_datagrams += t.train;
        } else {
          AgentProbe p = model.agent_probe(t.src_host, port, t.dst_host, t.dst_nic, sport, ++id, attempts);
          for (const auto& o : p.sender) run.observations.add(o);
          for (const auto& o : p.receiver) heard.add(o);
        }
        ++run.probes;
      }
    }
  }
  run.observations.append(heard);
  return run;
}

}  // namespace hpn::fabricmodel
