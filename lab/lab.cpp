#include "lab/lab.h"

#include "lab/lab_fleet.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <chrono>
#include <thread>

#include "lab/faults.h"
#include "lab/namespace_config.h"
#include "lab/routing.h"
#include "switchconfig/frr_conf.h"
#include "switchconfig/linux_sysctl.h"
#include "switchconfig/interfaces_file.h"
#include "validator/bgp.h"

namespace hpn::lab {

namespace {

using namespace std::chrono_literals;
using switchconfig::PortRole;
using switchconfig::SwitchConfig;

std::string refusal(const LabState& s, const std::string& path) {
  if (s.phase == "up") {
    return fmt::format("a lab is already up (lab {} from {}, recorded in {}); 'hpnctl lab down' removes it",
                       s.id, s.blueprint, path);
  }
  return fmt::format("a lab is recorded in {} (lab {}, phase '{}': its 'lab up' did not finish or is still "
                     "running); 'hpnctl lab down' removes it",
                     path, s.id, s.phase);
}

// Four hex digits: short enough to keep namespace names readable, and
// checked against the namespaces that exist.
Result<std::string> fresh_id(NetworkOps& ops) {
  auto names = ops.namespaces();
  if (!names) return names.error();
  std::random_device random;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::string id = fmt::format("{:04x}", random() & 0xFFFF);
    const std::string prefix = lab_prefix(id);
    if (std::none_of(names->begin(), names->end(), [&](const std::string& n) { return n.starts_with(prefix); })) {
      return id;
    }
  }
  return Error{"no free lab id: /run/netns is full of hpn- namespaces"};
}

// Runs work(i) for i in [0, n) on a few threads; the first error wins.
Status parallel(size_t n, const std::function<Status(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::mutex lock;
  Status first;
  auto run = [&] {
    for (size_t i = next++; i < n; i = next++) {
      Status st = work(i);
      std::lock_guard<std::mutex> guard(lock);
      if (!st && first) first = st;
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min<size_t>(n, 8); ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  return first;
}

// A session the wiring lets form: both ends planned switch-to-switch ports
// (they run `neighbor PORT interface`), of different ASes, on a cable with
// no fault that strikes before routing starts.
struct ExpectedSession {
  int node = 0;
  std::string ifname;
  std::string what;  // "tor-p0-s00-r1a:etp5 -- agg-p0-1-00:etp1"
};

// Everything lab up does, computed before anything is made.
struct LabPlan {
  LabTopology topology;
  std::vector<std::optional<SwitchConfig>> configs;  // by node
  std::vector<NamespaceConfig> namespaces;
  std::map<int, RoutingDaemons> daemons;             // switch node -> its daemons
  std::map<int, std::string> frr_conf, pbr_conf;
  std::map<int, size_t> pbr_rules;                   // core node -> rules pbrd should install
  std::map<int, std::string> agent_conf;             // ToR node -> its switch-agent.json
  // Switch node -> the files of its set that switch apply reads, as
  // `config --all --bring-up` writes them (interfaces, sysctl.conf,
  // ioam.conf, a ToR's switch-agent.json).
  std::map<int, std::vector<switchconfig::SwitchFile>> switch_sets;
  // The machine's neighbour-table limits the switches' sets carry
  // (net.ipv*.neigh.default.gc_thresh*): key -> the largest value.
  std::map<std::string, long> machine_sysctls;
  // Host node -> its network, as `hpnctl profile` builds it and `hpnctl
  // host apply` acts on it.
  std::map<int, HostNetwork> profiles;
  std::vector<ExpectedSession> sessions;
  std::map<int, std::set<std::string>> host_routes;  // ToR node -> "address/128", "address/32" it must route
  std::map<int, std::string> late_faults;            // node -> its converged-phase nft script
  // A dark cable's switch ends, taken down again once zebra has started:
  // zebra brings up every port its configuration does not shut.
  std::map<int, std::vector<std::string>> dark;
  std::map<int, std::set<std::string>> host_dark;  // host node -> its ports whose cable is down or missing
};

const switchconfig::PortConfig* port_of(const SwitchConfig& c, const std::string& name) {
  for (const auto& p : c.ports) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Result<LabPlan> plan_lab(const Blueprint& bp, const Wiring& wiring, const std::string& id,
                         const std::string& routing_dir) {
  LabPlan p;
  auto topology = build_topology(bp, wiring, id);
  if (!topology) return topology.error();
  p.topology = std::move(topology.value());
  LabTopology& t = p.topology;
  auto configs = switch_configs(bp, t);
  if (!configs) return configs.error();
  p.configs = std::move(configs.value());
  p.namespaces = namespace_configs(bp, t, config_pointers(p.configs));
  auto profiles = host_profiles(bp, t);
  if (!profiles) return profiles.error();
  p.profiles = std::move(profiles.value());

  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (!p.configs[n]) continue;
    const SwitchConfig& c = *p.configs[n];
    const bool cores_rules = std::any_of(c.core_rules.begin(), c.core_rules.end(),
                                         [](const auto& r) { return r.active; });
    p.daemons[static_cast<int>(n)] = {t.nodes[n].netns, c.name, routing_dir + "/" + c.name, cores_rules};
    p.frr_conf[static_cast<int>(n)] = switchconfig::frr_conf(c);
    if (cores_rules) p.pbr_conf[static_cast<int>(n)] = switchconfig::frr_pbr_conf(c);
    if (c.has_gateway) {
      // What `config --all --bring-up` writes as its switch-agent.json.
      auto agent = switchconfig::agent_config(c);
      if (!agent) return agent.error();
      p.agent_conf[static_cast<int>(n)] = switchconfig::write_agent_config(agent.value());
    }
    // The kernel keeps one neighbour table for every namespace, and its
    // limits exist in the machine's first namespace alone: a set carries
    // them as optional keys, which switch apply skips in a lab switch's
    // namespace. Lab up gives them to the machine instead.
    for (const auto& k : switchconfig::linux_sysctls(c)) {
      if (!k.key.starts_with("net.ipv4.neigh.default.") && !k.key.starts_with("net.ipv6.neigh.default.")) continue;
      long& at_least = p.machine_sysctls[k.key];
      at_least = std::max(at_least, std::stol(k.value));
    }
    auto& set = p.switch_sets[static_cast<int>(n)];
    set = {switchconfig::interfaces_file(c)};
    set.push_back({"sysctl.conf", switchconfig::sysctl_conf(c)});
    set.push_back({switchconfig::kIoamConfFile, switchconfig::ioam_conf(c)});
    if (c.has_gateway) set.push_back({switchconfig::kAgentConfigFile, p.agent_conf.at(static_cast<int>(n))});
  }

  // What converged means on this wiring, and what the hosts announce.
  std::map<std::pair<int, std::string>, bool> wired_up;  // (node, port) -> link up
  for (const auto& link : t.links) {
    const int a = t.node_of(link.a.device), z = t.node_of(link.z.device);
    const bool down = link.fault.kind == FaultKind::down;
    wired_up[{a, link.a.port}] = !down;
    wired_up[{z, link.z.port}] = !down;
    if (down) {
      for (auto [node, end] : {std::pair{a, &link.a}, std::pair{z, &link.z}}) {
        if (t.nodes[node].is_host) {
          p.host_dark[node].insert(end->ifname);
        } else {
          p.dark[node].push_back(end->ifname);
        }
      }
    }
    const auto& ca = p.configs[a];
    const auto& cz = p.configs[z];
    const std::string what = fmt::format("{}:{} -- {}:{}", bp.devices[link.a.device].name, link.a.port,
                                         bp.devices[link.z.device].name, link.z.port);
    if (ca && cz) {
      const auto* pa = port_of(*ca, link.a.port);
      const auto* pz = port_of(*cz, link.z.port);
      const bool early_fault = down || link.fault.kind == FaultKind::drop;
      if (pa && pz && pa->bgp && pz->bgp && ca->bgp.asn != cz->bgp.asn && !early_fault && a != z) {
        p.sessions.push_back({a, pa->ifname, what});
        p.sessions.push_back({z, pz->ifname, what});
      }
    }
    for (auto [host, sw] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
      const int h = t.node_of(host->device), s = t.node_of(sw->device);
      if (!t.nodes[h].is_host || down || host->nic <= 0) continue;
      const auto& c = p.configs[s];
      const auto* port = c ? port_of(*c, sw->port) : nullptr;
      // A one-way break toward the ToR would keep it from hearing the
      // host; it strikes after convergence, so the host is expected.
      if (!c || !port || !port->learns_hosts) continue;
      for (const auto& i : bp.interfaces) {
        if (i.device != host->device || i.purpose != InterfacePurpose::host || i.nic != host->nic) continue;
        if (!i.ipv6.empty() && !c->gateway.pool6.empty()) p.host_routes[s].insert(i.ipv6 + "/128");
        if (!i.ipv4.empty() && !c->gateway.pool4.empty()) p.host_routes[s].insert(i.ipv4 + "/32");
      }
    }
  }
  for (const auto& u : t.unplugged) {
    if (t.nodes[t.node_of(u.port.device)].is_host) p.host_dark[t.node_of(u.port.device)].insert(u.port.ifname);
  }
  for (auto& [node, conf] : p.pbr_conf) {
    size_t rules = 0;
    for (const auto& r : p.configs[node]->core_rules) {
      if (!r.active || !wired_up[{node, r.in_port}] || !wired_up[{node, r.out_port}]) continue;
      for (const auto& prefix : r.prefixes) {
        rules += !(prefix.family == 6 ? r.nexthop_ipv6 : r.nexthop_ipv4).empty() ? 1 : 0;
      }
    }
    p.pbr_rules[node] = rules;
  }
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    std::string late = fault_script(t, static_cast<int>(n), FaultPhase::converged);
    if (!late.empty() && late != p.namespaces[n].nft_script) p.late_faults[static_cast<int>(n)] = std::move(late);
  }
  return p;
}

// Waits until every expected session is Established, every ToR routes to
// the hosts cabled to it, and the switches' routes stay the same for
// settled_after(); or until `deadline`, with what is still missing.
// How long the switches' routes must rest to be settled. bgpd sends a new
// session's first updates after its update group's coalesce timer, 1 s
// plus 50 ms per configured peer (bgpd.h, BGP_DEFAULT_SUBGROUP_COALESCE_TIME),
// so routes can rest that long mid-way through a bring-up, longer than
// the 400 ms this waited before. The busiest switch's timer and a second
// for the updates it sends. (The cross-pod probes CI lost, first blamed on
// the short rest, were the machine's neighbour table overflowing:
// raise_machine_sysctls.)
std::chrono::milliseconds settled_after(const LabPlan& p) {
  size_t peers = 0;
  for (const auto& c : p.configs) {
    if (c) peers = std::max<size_t>(peers, std::count_if(c->ports.begin(), c->ports.end(), [](const auto& port) { return port.bgp; }));
  }
  return std::chrono::milliseconds(1000 + 50 * static_cast<long>(peers) + 1000);
}

Status converge(const LabPlan& p, NetworkOps& ops, std::chrono::milliseconds timeout, const LabProgress& say) {
  const auto settled = settled_after(p);
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + timeout;
  std::vector<int> routers;
  for (const auto& [node, d] : p.daemons) routers.push_back(node);
  size_t expected_routes = 0;
  for (const auto& [node, routes] : p.host_routes) expected_routes += routes.size();
  std::string previous;
  auto previous_at = started;
  std::vector<std::string> missing;
  while (true) {
    std::map<int, std::map<std::string, std::string>> state;  // node -> ifname -> BGP state
    std::map<int, std::string> fib;                           // node -> its routes, as text
    std::mutex lock;
    Status polled = parallel(routers.size(), [&](size_t i) -> Status {
      const int node = routers[i];
      const std::string& netns = p.daemons.at(node).netns;
      // A daemon that died will not come back: say so now, with its log.
      if (std::string problem = ops.routing_problem(p.daemons.at(node)); !problem.empty()) return Error{problem};
      auto dump = ops.bgpd_show(netns, "show bgp neighbors json");
      if (!dump) return dump.error();
      auto sessions = validator::parse_bgp_neighbors(*dump, netns);
      if (!sessions) return sessions.error();
      auto routes = ops.routes(netns);
      if (!routes) return routes.error();
      std::string text;
      for (const auto& r : *routes) {
        if (r.table != kMainTable || r.protocol == 2) continue;  // the kernel's own connected routes
        text += fmt::format("{} {} {}\n", r.prefix, r.protocol, fmt::join(r.nexthop_ifnames, ","));
      }
      std::lock_guard<std::mutex> guard(lock);
      for (const auto& s : *sessions) state[node][s.neighbor] = s.state + (s.last_reset.empty() ? "" : ", " + s.last_reset);
      fib[node] = std::move(text);
      return {};
    });
    if (!polled) return polled;
    missing.clear();
    size_t up = 0;
    for (const auto& s : p.sessions) {
      auto it = state[s.node].find(s.ifname);
      const std::string st = it == state[s.node].end() ? "not configured" : it->second;
      if (st.starts_with("Established")) {
        ++up;
      } else {
        missing.push_back(fmt::format("session {} at {} is {}", s.what, p.daemons.at(s.node).device, st));
      }
    }
    size_t routed = 0;
    for (const auto& [node, routes] : p.host_routes) {
      for (const auto& prefix : routes) {
        if (fib[node].find(prefix + " 80 ") != std::string::npos) {
          ++routed;
        } else {
          missing.push_back(fmt::format("{} has no route to its host {}", p.daemons.at(node).device, prefix));
        }
      }
    }
    std::string now;
    for (const auto& [node, text] : fib) now += text + "\n";
    const auto at = std::chrono::steady_clock::now();
    if (say) {
      say(fmt::format("BGP converging: {} of {} session ends up, {} of {} host routes ({:.1f} s)", up,
                      p.sessions.size(), routed, expected_routes,
                      std::chrono::duration<double>(at - started).count()));
    }
    if (missing.empty()) {
      if (now == previous && at - previous_at >= settled) return {};
      if (now != previous) {
        previous = now;
        previous_at = at;
      }
    }
    if (at >= deadline) break;
    std::this_thread::sleep_for(250ms);
  }
  const size_t shown = std::min<size_t>(missing.size(), 8);
  std::string list;
  for (size_t i = 0; i < shown; ++i) list += "\n  " + missing[i];
  if (missing.size() > shown) list += fmt::format("\n  and {} more", missing.size() - shown);
  return Error{missing.empty()
                   ? fmt::format("the switches' routes were still changing after {} s", timeout.count() / 1000)
                   : fmt::format("BGP did not converge within {} s:{}", timeout.count() / 1000, list)};
}

// pbrd installs a map only once its next hops resolve (FIELD.md §7): the
// cores' rules are given again through vtysh now that every link is up,
// and the kernel's policy rules are counted.
Status load_core_rules(const LabPlan& p, NetworkOps& ops) {
  for (const auto& [node, conf] : p.pbr_conf) {
    const RoutingDaemons& d = p.daemons.at(node);
    if (auto ok = ops.vtysh_apply(d, "pbr.conf", conf); !ok) return ok;
    const size_t want = p.pbr_rules.at(node);
    size_t have = 0;
    for (int attempt = 0; attempt < 40; ++attempt) {
      auto rules = ops.rules(d.netns);
      if (!rules) return rules.error();
      have = static_cast<size_t>(std::count_if(rules->begin(), rules->end(),
                                               [](const RuleState& r) { return !r.iif.empty() && !r.dst.empty(); }));
      if (have >= want) break;
      std::this_thread::sleep_for(100ms);
    }
    if (have < want) {
      return Error{fmt::format("{}: pbrd installed {} of the {} policy rules of its core rules", d.device, have, want)};
    }
  }
  return {};
}

}  // namespace

Result<LabState> lab_up(const LabUpRequest& req, NetworkOps& ops, const LabProgress& progress) {
  auto say = [&](const std::string& what) {
    if (progress) progress(what);
  };
  const Blueprint& bp = *req.blueprint;
  if (auto size = check_lab_size(bp, req.wiring); !size) return size.error();
  LabStateFile file(req.state_path);
  // Refuse early with the recorded lab's details; create() below is what
  // makes the refusal race-free.
  auto existing = file.load();
  if (!existing) return existing.error();
  if (existing->has_value()) return Error{refusal(**existing, file.path())};

  // The id is claimed (its FRR directory made) before anything is named
  // after it: another lab, recorded elsewhere, may be drawing one now.
  std::string id = req.id;
  for (int attempt = 0;; ++attempt) {
    if (req.id.empty()) {
      auto fresh = fresh_id(ops);
      if (!fresh) return fresh.error();
      id = fresh.value();
    }
    auto claimed = ops.claim_directory(req.routing_root + "/frr-" + id);
    if (!claimed) return claimed.error();
    if (claimed.value()) break;
    if (!req.id.empty() || attempt == 16) {
      return Error{fmt::format("lab id {} is taken ({}/frr-{} exists)", id, req.routing_root, id)};
    }
  }
  const std::string routing_dir = req.routing_root + "/frr-" + id;
  // Until the record exists, lab down cannot find the claim: whatever
  // returns before it gives the id back.
  bool recorded = false;
  struct Unclaim {
    NetworkOps& ops;
    const std::string& dir;
    const bool& recorded;
    ~Unclaim() {
      if (!recorded) (void)ops.remove_tree(dir);
    }
  } unclaim{ops, routing_dir, recorded};
  // Everything is computed before anything is made: an error here leaves
  // the machine as it was.
  auto planned = plan_lab(bp, req.wiring, id, routing_dir);
  if (!planned) return planned.error();
  const LabPlan& plan = planned.value();
  const LabTopology& topology = plan.topology;
  if (auto frr = ops.check_routing(!plan.pbr_conf.empty()); !frr) return frr.error();
  if (req.ssh) {
    if (auto ssh = ops.check_ssh(); !ssh) return ssh.error();
  }
  LabState state = describe_lab(bp, topology, req.blueprint_path, req.wiring.source);
  state.pid = static_cast<int>(getpid());
  state.routing_dir = routing_dir;
  state.host_bonds = req.host_bonds;
  for (const auto& [node, d] : plan.daemons) {
    state.routers.push_back(d.device);
    if (d.pbrd) state.pbr_routers.push_back(d.device);
  }

  auto created = file.create(state);
  if (!created) return created.error();
  if (!created.value()) {
    auto now = file.load();
    return Error{now && now->has_value() ? refusal(**now, file.path()) : "a lab was recorded meanwhile"};
  }
  recorded = true;  // lab down removes routing_dir from here on
  auto fail = [&](const std::string& what, const Error& e) -> Error {
    auto removed = lab_down(req.state_path, ops);
    return Error{fmt::format("{}: {}; {}", what, e.message,
                             removed ? "removed what this 'lab up' had made"
                                     : "could not remove it all (" + removed.error().message +
                                           "); run 'hpnctl lab down'")};
  };
  auto advance = [&](const char* phase) -> Status {
    state.phase = phase;
    return file.update(state);
  };

  say(fmt::format("creating {} namespaces", topology.nodes.size()));
  for (const auto& node : topology.nodes) {
    if (auto ok = ops.create_namespace(node.netns); !ok) return fail("namespace " + node.netns, ok.error());
  }
  if (auto ok = advance("linking"); !ok) return fail("lab record", ok.error());
  say(fmt::format("linking {} cables", topology.links.size()));
  for (const auto& link : topology.links) {
    const auto& a = topology.nodes[topology.node_of(link.a.device)];
    const auto& z = topology.nodes[topology.node_of(link.z.device)];
    auto ok = ops.add_veth({a.netns, link.a.ifname, link.a.mac}, {z.netns, link.z.ifname, link.z.mac});
    if (!ok) return fail(fmt::format("cable {}", link.cable_id.empty() ? "(extra)" : link.cable_id), ok.error());
  }
  if (!topology.unplugged.empty()) {
    say(fmt::format("making {} ports without a cable", topology.unplugged.size()));
    if (auto ok = ops.create_namespace(topology.unplugged_netns); !ok) {
      return fail("namespace " + topology.unplugged_netns, ok.error());
    }
    for (size_t i = 0; i < topology.unplugged.size(); ++i) {
      const UnpluggedPort& u = topology.unplugged[i];
      const auto& node = topology.nodes[topology.node_of(u.port.device)];
      const Mac far{0x02, 0xff, 0xff, 0, static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i)};
      auto ok = ops.add_veth({node.netns, u.port.ifname, u.port.mac}, {topology.unplugged_netns, u.far_ifname, far});
      if (!ok) return fail(fmt::format("unplugged port {}", u.port.ifname), ok.error());
    }
  }
  if (auto ok = advance("configuring"); !ok) return fail("lab record", ok.error());
  // Each switch as a real one is configured: its set, as config --all
  // --bring-up writes it, by switch apply's code (--netns).
  say(fmt::format("applying {} switch sets (switch apply)", plan.switch_sets.size()));
  std::vector<int> switches;
  for (const auto& [node, files] : plan.switch_sets) switches.push_back(node);
  auto set_up = parallel(switches.size(), [&](size_t i) -> Status {
    const int node = switches[i];
    auto made = ops.apply_switch(topology.nodes[node].netns, plan.daemons.at(node).dir, plan.switch_sets.at(node));
    if (!made) return made.error();
    return {};
  });
  if (!set_up) return fail("switch apply", set_up.error());
  say("what only the lab sets: faults, the switches' ICMPv6 rate, the hosts' link-locals, the machine's neighbour "
      "limits");
  if (auto ok = ops.raise_machine_sysctls(plan.machine_sysctls); !ok) return fail("neighbour limits", ok.error());
  for (size_t n = 0; n < topology.nodes.size(); ++n) {
    if (auto ok = ops.configure(topology.nodes[n].netns, plan.namespaces[n]); !ok) return fail("configure", ok.error());
  }
  say(fmt::format("applying {} host profiles (host apply{})", plan.profiles.size(), req.host_bonds ? "" : " --no-bond"));
  std::vector<int> hosts;
  for (const auto& [node, profile] : plan.profiles) hosts.push_back(node);
  auto applied = parallel(hosts.size(), [&](size_t i) -> Status {
    auto made = ops.apply_host(topology.nodes[hosts[i]].netns, plan.profiles.at(hosts[i]), !req.host_bonds);
    if (!made) return made.error();
    return {};
  });
  if (!applied) return fail("host apply", applied.error());

  if (auto ok = advance("routing"); !ok) return fail("lab record", ok.error());
  say(fmt::format("starting FRR on {} switches", plan.daemons.size()));
  std::vector<int> routers;
  for (const auto& [node, d] : plan.daemons) routers.push_back(node);
  auto started = parallel(routers.size(), [&](size_t i) {
    return ops.start_routing(plan.daemons.at(routers[i]), plan.frr_conf.at(routers[i]));
  });
  if (!started) return fail("FRR", started.error());
  for (const auto& [node, ifnames] : plan.dark) {
    NamespaceConfig down;
    down.links_down = ifnames;
    if (auto ok = ops.configure(topology.nodes[node].netns, down); !ok) return fail("dark cables", ok.error());
  }
  if (!plan.agent_conf.empty()) {
    // Each ToR's agent as hpnctl-switch-agent.service starts it: the same
    // binary and arguments, its switch-agent.json, ready before hosts speak.
    say(fmt::format("starting the host-route agent on {} ToRs (hpnctl switch agent)", plan.agent_conf.size()));
    std::string binary = req.agent_binary;
    if (binary.empty()) {
      std::error_code ec;
      binary = std::filesystem::read_symlink("/proc/self/exe", ec).string();
      if (ec) return fail("host-route agent", Error{fmt::format("/proc/self/exe: {}", ec.message())});
    }
    for (const auto& [node, conf] : plan.agent_conf) {
      const std::string dir = plan.daemons.at(node).dir;
      SwitchAgentLaunch launch{topology.nodes[node].netns, binary, dir + "/switch-agent.json",
                               dir + "/switch-agent.log", std::chrono::milliseconds(10000)};
      auto agent = ops.start_switch_agent(launch, conf);
      if (!agent) return fail("host-route agent", agent.error());
      state.agent_pids.push_back(*agent);
      if (auto ok = file.update(state); !ok) return fail("lab record", ok.error());
    }
  }
  say("hosts announce themselves to their ToRs (host announce)");
  for (const auto& [node, profile] : plan.profiles) {
    const auto dark = plan.host_dark.find(node);
    if (auto ok = ops.announce_host(topology.nodes[node].netns, profile,
                                    dark == plan.host_dark.end() ? std::set<std::string>{} : dark->second);
        !ok) {
      return fail("host announce", ok.error());
    }
  }
  if (auto ok = converge(plan, ops, req.converge_timeout, progress); !ok) return fail("lab up", ok.error());
  if (!plan.pbr_conf.empty()) {
    say("loading the cores' port rules");
    if (auto ok = load_core_rules(plan, ops); !ok) return fail("core rules", ok.error());
  }
  for (const auto& [node, script] : plan.late_faults) {
    NamespaceConfig faults;
    faults.nft_script = script;
    if (auto ok = ops.configure(topology.nodes[node].netns, faults); !ok) return fail("faults", ok.error());
  }
  if (req.ssh) {
    say(fmt::format("management network and sshd for {} devices", state.devices.size()));
    if (auto ok = bring_up_management(state, ops, [&] { return file.update(state); }); !ok) {
      return fail("management network", ok.error());
    }
  }
  if (auto ok = advance("up"); !ok) return fail("lab record", ok.error());
  return state;
}

Result<LabDownReport> lab_down(const std::string& state_path, NetworkOps& ops) {
  LabStateFile file(state_path);
  auto loaded = file.load();
  if (!loaded) return loaded.error();
  LabDownReport report;
  if (!loaded->has_value()) return report;
  const LabState& state = **loaded;
  report.had_lab = true;
  report.id = state.id;
  std::vector<std::string> errors;
  // The daemons first: they hold sockets in the namespaces.
  for (const int pid : state.agent_pids) {
    if (auto ok = ops.stop_process(pid); !ok) errors.push_back(ok.error().message);
  }
  std::map<std::string, std::string> netns_of;
  for (const auto& d : state.devices) netns_of[d.name] = d.netns;
  const std::set<std::string> pbr(state.pbr_routers.begin(), state.pbr_routers.end());
  std::vector<RoutingDaemons> daemons;
  for (const auto& name : state.routers) {
    daemons.push_back({netns_of[name], name, state.routing_dir + "/" + name, pbr.count(name) > 0});
  }
  if (auto ok = ops.stop_routing(daemons); !ok) errors.push_back(ok.error().message);
  // What else runs inside: sshd and its sessions (lab up --ssh), agents.
  if (auto stopped = ops.stop_processes_in(state.namespaces); !stopped) errors.push_back(stopped.error().message);
  auto existing = ops.namespaces();
  if (!existing) return existing.error();
  // The listed ones and any other with the prefix: a namespace made just
  // before a crash may not be in the record's last update.
  std::set<std::string> present(existing->begin(), existing->end());
  std::set<std::string> doomed(state.namespaces.begin(), state.namespaces.end());
  for (const auto& n : present) {
    if (n.starts_with(state.prefix)) doomed.insert(n);
  }
  for (const auto& n : doomed) {
    if (auto ok = ops.delete_namespace(n); !ok) {
      errors.push_back(ok.error().message);
    } else if (present.count(n)) {
      ++report.namespaces_removed;
    }
  }
  if (!state.mgmt_netns.empty()) {
    // The kernel takes a deleted namespace's interfaces down in the
    // background: the machine's end of the management network (and its
    // route, which a next `lab up --ssh` would take for a range in use) is
    // gone only once the namespace is.
    const std::string controller = management_ifname(state.id);
    for (int i = 0; i < 100; ++i) {
      auto here = ops.interfaces("");
      if (!here || std::none_of(here->begin(), here->end(), [&](const auto& s) { return s.ifname == controller; })) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (!state.routing_dir.empty()) {
    if (auto ok = ops.remove_tree(state.routing_dir); !ok) errors.push_back(ok.error().message);
  }
  // The record stays while anything it names may remain, so `lab down`
  // can be run again.
  if (!errors.empty()) return Error{fmt::format("{}", fmt::join(errors, "\n"))};
  if (auto ok = file.remove(); !ok) return ok.error();
  return report;
}

Result<std::optional<LabStatus>> lab_status(const std::string& state_path, NetworkOps& ops) {
  auto loaded = LabStateFile(state_path).load();
  if (!loaded) return loaded.error();
  if (!loaded->has_value()) return std::optional<LabStatus>{};
  auto existing = ops.namespaces();
  if (!existing) return existing.error();
  const std::set<std::string> present(existing->begin(), existing->end());
  std::map<std::string, std::vector<InterfaceState>> live;
  std::map<std::string, std::vector<validator::BgpSession>> sessions;
  const std::set<std::string> routers((*loaded)->routers.begin(), (*loaded)->routers.end());
  for (const auto& d : (*loaded)->devices) {
    if (!present.count(d.netns)) continue;
    auto interfaces = ops.interfaces(d.netns);
    if (!interfaces) return interfaces.error();
    live.emplace(d.netns, std::move(interfaces.value()));
    if (!routers.count(d.name) || (*loaded)->phase != "up") continue;
    // A router whose daemons are gone shows no sessions, not an error.
    if (auto dump = ops.bgpd_show(d.netns, "show bgp neighbors json")) {
      if (auto parsed = validator::parse_bgp_neighbors(*dump, d.netns)) sessions.emplace(d.netns, std::move(*parsed));
    }
  }
  return std::optional<LabStatus>(build_status(**loaded, live, sessions));
}

}  // namespace hpn::lab
