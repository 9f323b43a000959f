#include "dataplane/lab.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <set>

#include "dataplane/namespace_config.h"
#include "dataplane/routing.h"

namespace hpn::lab {

namespace {

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

  std::string id = req.id;
  if (id.empty()) {
    auto fresh = fresh_id(ops);
    if (!fresh) return fresh.error();
    id = fresh.value();
  }
  // Everything is computed before anything is made: an error here leaves
  // the machine as it was.
  auto topology = build_topology(bp, req.wiring, id);
  if (!topology) return topology.error();
  const auto configs = namespace_configs(bp, *topology, compute_routes(bp, *topology));
  LabState state = describe_lab(bp, *topology, req.blueprint_path, req.wiring.source);
  state.pid = static_cast<int>(getpid());

  auto created = file.create(state);
  if (!created) return created.error();
  if (!created.value()) {
    auto now = file.load();
    return Error{now && now->has_value() ? refusal(**now, file.path()) : "a lab was recorded meanwhile"};
  }
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

  say(fmt::format("creating {} namespaces", topology->nodes.size()));
  for (const auto& node : topology->nodes) {
    if (auto ok = ops.create_namespace(node.netns); !ok) return fail("namespace " + node.netns, ok.error());
  }
  if (auto ok = advance("linking"); !ok) return fail("lab record", ok.error());
  say(fmt::format("linking {} cables", topology->links.size()));
  for (const auto& link : topology->links) {
    const auto& a = topology->nodes[topology->node_of(link.a.device)];
    const auto& z = topology->nodes[topology->node_of(link.z.device)];
    auto ok = ops.add_veth({a.netns, link.a.ifname, link.a.mac}, {z.netns, link.z.ifname, link.z.mac});
    if (!ok) return fail(fmt::format("cable {}", link.cable_id.empty() ? "(extra)" : link.cable_id), ok.error());
  }
  if (auto ok = advance("configuring"); !ok) return fail("lab record", ok.error());
  say("configuring routers and hosts");
  for (size_t n = 0; n < topology->nodes.size(); ++n) {
    if (auto ok = ops.configure(topology->nodes[n].netns, configs[n]); !ok) return fail("configure", ok.error());
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
  auto existing = ops.namespaces();
  if (!existing) return existing.error();
  // The listed ones and any other with the prefix: a namespace made just
  // before a crash may not be in the record's last update.
  std::set<std::string> present(existing->begin(), existing->end());
  std::set<std::string> doomed(state.namespaces.begin(), state.namespaces.end());
  for (const auto& n : present) {
    if (n.starts_with(state.prefix)) doomed.insert(n);
  }
  std::vector<std::string> errors;
  for (const auto& n : doomed) {
    if (auto ok = ops.delete_namespace(n); !ok) {
      errors.push_back(ok.error().message);
    } else if (present.count(n)) {
      ++report.namespaces_removed;
    }
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
  for (const auto& d : (*loaded)->devices) {
    if (!present.count(d.netns)) continue;
    auto interfaces = ops.interfaces(d.netns);
    if (!interfaces) return interfaces.error();
    live.emplace(d.netns, std::move(interfaces.value()));
  }
  return std::optional<LabStatus>(build_status(**loaded, live));
}

}  // namespace hpn::lab
