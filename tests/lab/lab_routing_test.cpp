// The lab routed by FRR (root): the routes bgpd converges to are the
// forwarding model's, every planned session is up to the wired peer, a host
// cable that fails withdraws the host from that ToR alone (HPN's
// non-stacked dual-ToR, seen in IOAM traces), and across pods the cores
// forward by core-rules.csv: IPv6 probes, and IPv4 RoCE traffic counted by
// the cores' own interface counters.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "fabricmodel/routes.h"
#include "lab/frr.h"
#include "host/host_apply.h"
#include "host/host_state.h"
#include "lab/namespace_config.h"
#include "system/netns.h"
#include "lab/lab_verify.h"
#include "planner/plan_fixture.h"
#include "running_lab.h"
#include "validator/bgp.h"
#include "validator/diff.h"
#include "validator/witness.h"

using namespace hpn;
using hpn::validator::FindingKind;
using hpn::validator::Severity;
using namespace hpn::lab;
using namespace hpn::test;
using hpn::fabricmodel::compute_routes;
using hpn::fabricmodel::NodeRoutes;

namespace {

constexpr int kProtoBgp = 186, kProtoHostRoute = 80;

bool is_switch(const std::string& role) { return role == "tor" || role == "agg" || role == "core"; }

// prefix -> the far ends ("device:port") of its next hops, from the kernel.
std::map<std::string, std::set<std::string>> kernel_routes(RunningLab& lab, const StateDevice& d,
                                                           std::map<std::string, int>* protocols = nullptr) {
  auto routes = lab.ops.routes(d.netns);
  REQUIRE(routes);
  std::map<std::string, std::string> far_of;  // ifname -> device:port
  for (const auto& p : d.ports) far_of[p.ifname] = p.peer_device + ":" + p.peer_port;
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : *routes) {
    if (r.family != 6 || r.table != lab::kMainTable || r.protocol == 2 || r.prefix.starts_with("fe80") ||
        r.prefix.starts_with("ff00") || r.prefix.starts_with("::/0")) {
      continue;  // the kernel's own connected, link-local and multicast routes
    }
    for (const auto& ifname : r.nexthop_ifnames) out[r.prefix].insert(far_of[ifname]);
    if (protocols) (*protocols)[r.prefix] = r.protocol;
  }
  return out;
}

// The same from the forwarding model (fabricmodel/routes.h).
std::map<std::string, std::set<std::string>> model_routes(const Blueprint& bp, const LabTopology& t,
                                                          const std::vector<NodeRoutes>& routes, int node) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : routes[node].routes) {
    if (r.table != lab::kMainTable || r.prefix_len == 0) continue;
    for (const auto& hop : r.nexthops) {
      for (const auto& link : t.links) {
        for (auto [mine, far] : {std::pair{&link.a, &link.z}, std::pair{&link.z, &link.a}}) {
          if (t.node_of(mine->device) == node && mine->ifname == hop.ifname) {
            out[fmt::format("{}/{}", r.prefix, r.prefix_len)].insert(bp.devices[far->device].name + ":" + far->port);
          }
        }
      }
    }
  }
  return out;
}

// The host's IPv4 bond address of a back-end NIC.
std::string bond_address4(const Blueprint& bp, const std::string& host, int nic) {
  const int d = device_index(bp, host);
  for (const auto& i : bp.interfaces) {
    if (i.device == d && i.purpose == InterfacePurpose::host && i.nic == nic) return i.ipv4;
  }
  FAIL("no bond " << nic << " on " << host);
  return "";
}

// A UDP socket over IPv4 made inside a host's namespace, bound to
// address:port (port 0: any).
int udp4_socket_in(RunningLab& lab, const std::string& host, const std::string& address, int port) {
  int fd = -1;
  REQUIRE(run_in_netns(lab.netns(host), [&]() -> Status {
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, address.c_str(), &a.sin_addr);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return Error{std::strerror(errno)};
    return {};
  }));
  return fd;
}

// One UDP datagram over IPv4 from one lab host's bond address to
// another's: the sockets are made inside the hosts' namespaces.
bool udp4_reaches(RunningLab& lab, const std::string& src, const std::string& dst, int nic) {
  const std::string from = bond_address4(lab_pod(), src, nic), to = bond_address4(lab_pod(), dst, nic);
  const int rx = udp4_socket_in(lab, dst, to, 47000), tx = udp4_socket_in(lab, src, from, 47001);
  timeval wait{1, 0};
  setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(47000);
  inet_pton(AF_INET, to.c_str(), &peer.sin_addr);
  const std::string payload = "hpnctl " + src + " -> " + dst;
  bool got = false;
  for (int attempt = 0; attempt < 3 && !got; ++attempt) {
    (void)::sendto(tx, payload.data(), payload.size(), 0, reinterpret_cast<sockaddr*>(&peer), sizeof peer);
    char buf[128];
    sockaddr_in source{};
    socklen_t len = sizeof source;
    const ssize_t n = ::recvfrom(rx, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&source), &len);
    char text[INET_ADDRSTRLEN] = "";
    inet_ntop(AF_INET, &source.sin_addr, text, sizeof text);
    got = n == static_cast<ssize_t>(payload.size()) && std::string(buf, static_cast<size_t>(n)) == payload && text == from;
  }
  ::close(rx);
  ::close(tx);
  return got;
}

// (device, interface) -> packets received and sent, as `ip -s -j link`
// reads them in each device's namespace: the kernel's counters, nothing of
// hpnctl's probes. (Debian's path: the spawn does not search PATH.)
std::map<std::pair<std::string, std::string>, std::pair<std::uint64_t, std::uint64_t>> link_counters(
    RunningLab& lab, const std::set<std::string>& devices) {
  std::map<std::pair<std::string, std::string>, std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& device : devices) {
    auto r = run_in_namespace(lab.netns(device), {"/usr/sbin/ip", "-s", "-j", "link"}, std::chrono::seconds(5));
    REQUIRE(r);
    REQUIRE(r->exit_code == 0);
    for (const auto& link : nlohmann::json::parse(r->out)) {
      const auto& stats = link.at("stats64");
      out[{device, link.at("ifname").get<std::string>()}] = {stats.at("rx").at("packets").get<std::uint64_t>(),
                                                             stats.at("tx").at("packets").get<std::uint64_t>()};
    }
  }
  return out;
}

}  // namespace

TEST_CASE("dataplane/lab (root): BGP converges to the forwarding model, every session up to its wired peer",
          "[dataplane][lab][root][frr]") {
  require_lab();
  const Wiring wiring = planned_wiring(lab_pod());
  RunningLab lab(wiring);
  auto topology = build_topology(lab_pod(), wiring, lab.state.id);
  REQUIRE(topology);
  const auto model = compute_routes(lab_pod(), *topology);
  auto status = lab_status(lab.state_path, lab.ops);
  REQUIRE(status);
  REQUIRE(status->has_value());
  size_t switches = 0, sessions = 0;
  for (const auto& d : (*status)->devices) {
    if (!is_switch(d.recorded.role)) continue;
    ++switches;
    INFO(d.recorded.name);
    std::map<std::string, int> protocols;
    const auto kernel = kernel_routes(lab, d.recorded, &protocols);
    const auto expected = model_routes(lab_pod(), *topology, model, topology->node_of(device_index(lab_pod(), d.recorded.name)));
    CHECK(kernel == expected);
    // Nothing hpnctl installed: bgpd's routes, and a ToR's own hosts from
    // its neighbour table (the host-route agent, protocol 80).
    for (const auto& [prefix, protocol] : protocols) {
      INFO(prefix);
      if (d.recorded.role == "tor" && protocol == kProtoHostRoute) continue;
      CHECK(protocol == kProtoBgp);
    }
    // Every cabled port runs a session, Established, to the device it is
    // wired to, which names itself so and has sent routes.
    std::set<std::string> cabled;
    for (const auto& p : d.recorded.ports) {
      if (is_switch(std::string(to_string(lab_pod().devices[device_index(lab_pod(), p.peer_device)].role)))) {
        cabled.insert(p.port);
      }
    }
    std::set<std::string> up;
    for (const auto& s : d.sessions) {
      if (!s.bgp.established()) continue;
      up.insert(s.port);
      CHECK(s.bgp.hostname == s.peer_device);
      CHECK(s.bgp.prefixes_received > 0);
      CHECK(s.bgp.remote_as == lab_pod().devices[device_index(lab_pod(), s.peer_device)].asn);
      ++sessions;
    }
    CHECK(up == cabled);
  }
  CHECK(switches == 20);
  CHECK(sessions == 2 * (32 + 16));  // both ends of every ToR-aggregation and aggregation-core cable

  // The hosts run their own profiles (lab up applied them as host apply
  // does): applying each again would change nothing.
  auto profiles = host_profiles(lab_pod(), *topology);
  REQUIRE(profiles);
  REQUIRE(profiles->size() == 16);
  for (const auto& entry : *profiles) {  // no structured binding: clang 14 lambdas cannot capture one
    const int node = entry.first;
    const HostNetwork& profile = entry.second;
    INFO(profile.host);
    const host::ApplyOptions options{.no_bond = true};
    host::HostState state;
    REQUIRE(run_in_netns(topology->nodes[node].netns, [&]() -> Status {
      auto read = host::read_host_state(host::sysctl_keys(profile, options));
      if (!read) return read.error();
      state = std::move(read.value());
      return {};
    }));
    auto again = host::plan_changes(profile, state, options);
    REQUIRE(again);
    std::string left;
    for (const auto& c : again->changes) left += c.text() + "\n";
    CHECK(left == "");
    CHECK(again->conflicts.empty());
  }
  // IPv4 too, which IOAM does not carry: the profiles' IPv4 routes via the
  // ToRs' gateways, the ToRs' host routes from ARP, BGP across the planes.
  CHECK(udp4_reaches(lab, "host-p0-s00-h000", "host-p0-s01-h005", 1));
  CHECK(udp4_reaches(lab, "host-p0-s01-h002", "host-p0-s00-h001", 2));
  CHECK(udp4_reaches(lab, "host-p0-s00-h000", "host-p0-s00-h001", 1));  // the same rail, through its ToR
}

TEST_CASE("dataplane/lab (root): a host cable that fails withdraws the host from that ToR, and traffic arrives "
          "through the other plane's ToR alone",
          "[dataplane][lab][root][frr]") {
  require_lab();
  const std::string csv = cabling_csv(lab_pod());
  auto wiring = parse_wiring(csv, "planned.csv", lab_pod());
  REQUIRE(wiring);
  RunningLab lab(wiring.value());
  const auto wires = wires_of(csv);
  const std::string h000 = "host-p0-s00-h000", sender = "host-p0-s01-h001";
  const std::string target = bond_address(lab_pod(), h000, 1);
  // Which ToR delivered each probe to h000: the last hop of its trace.
  auto arrivals = [&] {
    std::map<std::string, int> by_tor;
    for (const char* port : {"nic1p1", "nic1p2"}) {
      Receiver rx(lab.netns(h000));
      const auto sports = ports_from(port[5] == '1' ? 41000 : 42000, 16);
      send_probes(lab.netns(sender), bond_address(lab_pod(), sender, 1), target, sports, lab.state.ioam_namespace,
                  port);
      for (const auto& p : rx.collect(sports.size(), std::chrono::milliseconds(800))) {
        std::vector<std::string> path;
        const auto hops = hops_of(p);
        CHECK(check_path(lab_pod(), wires, sender, h000, p.ifname, hops, path) == "");
        if (!path.empty()) by_tor[path.back() + " to " + p.ifname]++;
      }
    }
    return by_tor;
  };
  // Before: over both planes, each ToR to its own port of NIC 1.
  CHECK(arrivals() == std::map<std::string, int>{{"tor-p0-s00-r1a to nic1p1", 16}, {"tor-p0-s00-r1b to nic1p2", 16}});
  auto route_to_host = [&](const std::string& tor) {
    auto routes = lab.ops.routes(lab.netns(tor));
    REQUIRE(routes);
    return std::any_of(routes->begin(), routes->end(), [&](const RouteState& r) { return r.prefix == target + "/128"; });
  };
  CHECK(route_to_host("tor-p0-s00-r1a"));
  CHECK(route_to_host("agg-p0-1-00"));
  const std::vector<std::string> plane1{"tor-p0-s00-r1a", "agg-p0-1-00", "agg-p0-1-01", "agg-p0-1-02",
                                        "agg-p0-1-03",    "core-1-00",   "core-1-01",   "tor-p0-s01-r1a"};

  // The ToR loses its neighbour entry for the host, as an operator's flush
  // or the kernel's garbage collector (past gc_thresh2, of every namespace
  // together) takes it. The host pins its gateways' MACs and never
  // solicits the ToR: the ToR asks it again and routes it again.
  const auto flush = test::run_command(fmt::format("ip -n {} -6 neigh flush to {} 2>&1 && ip -n {} -6 neigh show to {}",
                                                   lab.netns("tor-p0-s00-r1a"), target, lab.netns("tor-p0-s00-r1a"),
                                                   target));
  REQUIRE(flush.exit_code == 0);
  CHECK(flush.out.find("REACHABLE") == std::string::npos);
  {
    const auto flushed = std::chrono::steady_clock::now();
    auto relearned = [&] {
      auto n = test::run_command(fmt::format("ip -n {} -6 neigh show to {}", lab.netns("tor-p0-s00-r1a"), target));
      return n.out.find("REACHABLE") != std::string::npos &&
             std::all_of(plane1.begin(), plane1.end(), [&](const std::string& d) { return route_to_host(d); });
    };
    while (!relearned() && std::chrono::steady_clock::now() < flushed + std::chrono::seconds(12)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(relearned());
    WARN("plane 1 had the host again "
         << std::chrono::duration<double>(std::chrono::steady_clock::now() - flushed).count() << " s after the flush");
  }
  CHECK(arrivals() == std::map<std::string, int>{{"tor-p0-s00-r1a to nic1p1", 16}, {"tor-p0-s00-r1b to nic1p2", 16}});

  // The plane-1 cable goes dark: the host's end loses its link.
  NamespaceConfig dark;
  dark.links_down = {"nic1p1"};
  REQUIRE(lab.ops.configure(lab.netns(h000), dark));
  // The ToR drops the host, BGP withdraws it through plane 1 (well within
  // the hold time: the withdrawal is an update, not a timeout).
  auto withdrawn = [&] {
    return std::none_of(plane1.begin(), plane1.end(), [&](const std::string& d) { return route_to_host(d); });
  };
  const auto started = std::chrono::steady_clock::now();
  while (!withdrawn() && std::chrono::steady_clock::now() < started + std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const auto& d : plane1) {
    INFO(d);
    CHECK_FALSE(route_to_host(d));
  }
  WARN("plane 1 withdrew the host in "
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s");
  CHECK(route_to_host("tor-p0-s00-r1b"));
  // After: only the plane-2 ToR delivers; plane-1 probes find no route.
  CHECK(arrivals() == std::map<std::string, int>{{"tor-p0-s00-r1b to nic1p2", 16}});
}

TEST_CASE("dataplane/lab (root): a cable down in the wiring leaves its ToR without the host",
          "[dataplane][lab][root][frr]") {
  require_lab();
  std::string csv;
  {
    std::istringstream in(cabling_csv(lab_pod()));
    std::string line;
    for (bool header = true; std::getline(in, line); header = false) {
      csv += line + (header ? ",fault" : line.find(",host-p0-s00-h003,nic2p2,") != std::string::npos ? ",down" : ",") + "\n";
    }
  }
  auto wiring = parse_wiring(csv, "down.csv", lab_pod());
  REQUIRE(wiring);
  RunningLab lab(wiring.value());
  const std::string target = bond_address(lab_pod(), "host-p0-s00-h003", 2) + "/128";
  auto has = [&](const std::string& device) {
    auto routes = lab.ops.routes(lab.netns(device));
    REQUIRE(routes);
    return std::any_of(routes->begin(), routes->end(), [&](const RouteState& r) { return r.prefix == target; });
  };
  CHECK_FALSE(has("tor-p0-s00-r2b"));
  CHECK_FALSE(has("agg-p0-2-00"));
  CHECK(has("tor-p0-s00-r2a"));
  CHECK(has("agg-p0-1-03"));
}

TEST_CASE("dataplane/lab (root): two pods joined by the core: each cross-pod hop through a core follows "
          "its core-rules.csv row",
          "[dataplane][lab][root][frr]") {
  require_lab();
  static const Plan plan = plan_of_file("examples/lab-2pod.yaml");
  const Blueprint& bp = plan.blueprint;
  const std::string csv = cabling_csv(bp);
  auto wiring = parse_wiring(csv, "planned.csv", bp);
  REQUIRE(wiring);
  RunningLab lab(wiring.value(), bp);
  const auto wires = wires_of(csv);
  // core-rules.csv, by (core, in-port, destination pod).
  std::map<std::tuple<std::string, std::string, int>, std::string> rule;
  for (const auto& r : bp.core_rules) rule[{bp.devices[r.core].name, r.in_port, r.dst_pod}] = r.out_port;
  REQUIRE(rule.size() == bp.core_rules.size());
  // pbrd installed its rules: one kernel rule per in-port and pod prefix,
  // two IPv6 and two IPv4 prefixes per pod.
  auto rules = lab.ops.rules(lab.netns("core-1-00"));
  REQUIRE(rules);
  for (int family : {4, 6}) {
    INFO("IPv" << family);
    CHECK(std::count_if(rules->begin(), rules->end(), [&](const RuleState& r) {
            return !r.iif.empty() && r.family == family;
          }) == 8 * 2);
  }

  std::set<std::pair<std::string, std::string>> pairs;  // (core, in-port) exercised
  int crossings = 0;
  for (auto [src, dst] : {std::pair{"host-p0-s00-h000", "host-p1-s01-h002"}, std::pair{"host-p1-s00-h001", "host-p0-s01-h003"},
                          std::pair{"host-p0-s01-h004", "host-p1-s00-h005"}, std::pair{"host-p1-s01-h000", "host-p0-s00-h001"}}) {
    for (const char* port : {"nic1p1", "nic1p2"}) {
      Receiver rx(lab.netns(dst));
      const auto sports = ports_from(43000, 24);
      send_probes(lab.netns(src), bond_address(bp, src, 1), bond_address(bp, dst, 1), sports, lab.state.ioam_namespace,
                  port);
      const auto got = rx.collect(sports.size());
      INFO(src << " -> " << dst << " from " << port);
      CHECK(got.size() == sports.size());
      for (const auto& p : got) {
        const auto hops = hops_of(p);
        std::vector<std::string> path;
        CHECK(check_path(bp, wires, src, dst, p.ifname, hops, path) == "");
        REQUIRE(path.size() == 5);  // ToR, aggregation, core, aggregation, ToR
        const int core = device_index(bp, path[2]);
        const auto& panel = bp.panels[bp.devices[core].panel];
        auto name_of = [&](int id) {
          for (const auto& q : panel.ports) {
            if (q.port_id == id) return q.name;
          }
          return std::string("?");
        };
        REQUIRE(hops[2].ingress_if);
        REQUIRE(hops[2].egress_if);
        const std::string in = name_of(hops[2].ingress_if->value), out = name_of(hops[2].egress_if->value);
        const int pod = bp.devices[device_index(bp, dst)].pod;
        INFO(path[2] << " in " << in << " for pod " << pod);
        REQUIRE(rule.count({path[2], in, pod}));
        CHECK(out == rule.at({path[2], in, pod}));
        pairs.insert({path[2], in});
        ++crossings;
      }
    }
  }
  CHECK(crossings == 4 * 2 * 24);
  // Source ports spread the probes over many cores and in-ports.
  CHECK(pairs.size() >= 8);

  // RoCE: IPv4 UDP to port 4791 between bond addresses follows the same
  // rules (pbrd's IPv4 sequences). Each flow (one source port) is sent on
  // its own and found by the cores' own interface counters: the one core
  // port toward pod 0 that received it and the one port that sent it on.
  const std::string src = "host-p0-s00-h000", dst = "host-p1-s01-h002";
  const std::string from = bond_address4(bp, src, 1), to = bond_address4(bp, dst, 1);
  std::set<std::string> cores;
  std::map<std::pair<std::string, std::string>, std::string> toward_pod1;  // (core, in-port) -> its rule's out-port
  for (const auto& [key, out] : rule) {
    cores.insert(std::get<0>(key));
    if (std::get<2>(key) == 1) toward_pod1[{std::get<0>(key), std::get<1>(key)}] = out;
  }
  const int rx = udp4_socket_in(lab, dst, to, 4791);
  timeval no_wait{0, 200000};
  setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &no_wait, sizeof no_wait);
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(4791);
  inet_pton(AF_INET, to.c_str(), &peer.sin_addr);
  constexpr std::uint64_t kPerFlow = 40;
  std::set<std::pair<std::string, std::string>> pairs4;
  size_t followed = 0, received = 0;
  for (int flow = 0; flow < 32; ++flow) {
    const int sport = 44000 + flow;
    INFO("IPv4 UDP " << from << ":" << sport << " -> " << to << ":4791");
    const int tx = udp4_socket_in(lab, src, from, sport);
    const auto before = link_counters(lab, cores);
    const std::string payload(64, 'r');
    for (std::uint64_t i = 0; i < kPerFlow; ++i) {
      (void)::sendto(tx, payload.data(), payload.size(), 0, reinterpret_cast<sockaddr*>(&peer), sizeof peer);
    }
    ::close(tx);
    char buf[128];
    while (::recv(rx, buf, sizeof buf, 0) == static_cast<ssize_t>(payload.size())) ++received;
    const auto after = link_counters(lab, cores);
    std::vector<std::pair<std::string, std::string>> in, out;
    for (const auto& [port, counts] : after) {
      if (!before.count(port)) continue;
      if (toward_pod1.count(port) && counts.first - before.at(port).first >= kPerFlow) in.push_back(port);
      if (counts.second - before.at(port).second >= kPerFlow) out.push_back(port);
    }
    REQUIRE(in.size() == 1);
    REQUIRE(out.size() == 1);
    INFO(in[0].first << " in " << in[0].second << " for pod 1, out " << out[0].first << ":" << out[0].second);
    CHECK(out[0].first == in[0].first);
    CHECK(out[0].second == toward_pod1.at(in[0]));
    followed += out[0] == std::pair{in[0].first, toward_pod1.at(in[0])} ? 1 : 0;
    pairs4.insert(in[0]);
  }
  ::close(rx);
  CHECK(followed == 32);
  CHECK(received == 32 * kPerFlow);  // and each reached the pod-1 host
  // The flows crossed many cores and in-ports, so the rules were tested
  // where the hash would have spread them.
  CHECK(pairs4.size() >= 8);
}

TEST_CASE("dataplane/lab (root): a core that stops following its rules is named, and nothing else",
          "[dataplane][lab][root][frr]") {
  require_lab();
  static const Plan plan = plan_of_file("examples/lab-2pod.yaml");
  const Blueprint& bp = plan.blueprint;
  auto wiring = parse_wiring(cabling_csv(bp), "planned.csv", bp);
  REQUIRE(wiring);
  RunningLab lab(wiring.value(), bp);
  // core-1-00 sends what arrives on etp2 (from pod 0) for pod 1 out of
  // etp7, where its rule says etp6: both of pod 1's prefixes, every probe.
  // (Forgetting the rule instead leaves it to the hash, which may pick
  // etp6 for every destination probed: no evidence either way.)
  const std::string core = lab.netns("core-1-00");
  std::string rule_out;
  for (const auto& r : bp.core_rules) {
    if (bp.devices[r.core].name == "core-1-00" && r.in_port == "etp2" && r.dst_pod == 1) rule_out = r.out_port;
  }
  REQUIRE(rule_out == "etp6");
  std::string etp7_peer;  // the next hop pbrd sets for etp7 (etp3's rule), from the same frr.conf
  {
    const std::string conf = hpn::test::read_file(std::filesystem::path(lab.state.routing_dir) / "core-1-00" / "frr.conf");
    const std::string marker = "pbr-map CORE-IN-etp3 seq 1\n";
    const size_t at = conf.find(marker);
    REQUIRE(at != std::string::npos);
    const size_t set = conf.find(" set nexthop ", at);
    REQUIRE(set != std::string::npos);
    etp7_peer = conf.substr(set + 13, conf.find(' ', set + 13) - (set + 13));
  }
  std::vector<std::string> command{kVtysh, "-N", core, "-c", "configure terminal"};
  for (const char* seq : {"1", "2"}) {
    for (const std::string& c : {std::string("pbr-map CORE-IN-etp2 seq ") + seq, "set nexthop " + etp7_peer + " etp7", std::string("exit")}) {
      command.push_back("-c");
      command.push_back(c);
    }
  }
  auto changed = run_in_namespace(core, command, std::chrono::seconds(10));
  REQUIRE(changed);
  INFO(changed->out << changed->err);
  REQUIRE(changed->exit_code == 0);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // pbrd installs it through zebra
  // Probe the lab as verify --lab does, and diff.
  auto status = lab_status(lab.state_path, lab.ops);
  REQUIRE(status);
  REQUIRE(status->has_value());
  LabProbeOptions options;
  options.hpnctl = HPNCTL_BINARY;
  auto work = make_work_dir("core-test");
  REQUIRE(work);
  options.work_dir = work.value();
  auto seen = probe_lab(bp, lab.state, status_json(**status).dump(), options);
  std::error_code ec;
  std::filesystem::remove_all(options.work_dir, ec);
  INFO((seen ? "" : seen.error().message));
  REQUIRE(seen);
  // With the switches' own sessions, as verify --lab reads them.
  std::vector<validator::BgpDump> dumps;
  for (const auto& d : (*status)->devices) {
    if (d.sessions.empty()) continue;
    validator::BgpDump dump{d.recorded.name, false, d.recorded.name, {}};
    for (const auto& st : d.sessions) dump.sessions.push_back(st.bgp);
    dumps.push_back(std::move(dump));
  }
  FabricIndex fabric(bp);
  auto witnesses = validator::collect_witnesses(fabric, *seen);
  REQUIRE(validator::add_bgp_witnesses(fabric, dumps, witnesses));
  auto report = validator::diff(fabric, witnesses);
  std::vector<const validator::Finding*> faults;
  for (const auto& f : report.findings) {
    if (f.severity != Severity::info) faults.push_back(&f);
  }
  // What crossed core-1-00, for the message when nothing is named.
  std::string through;
  for (const auto& [key, n] : witnesses.core_hops) {
    const auto& [device, in, pod, out] = key;
    if (device != fabric.device_by_name("core-1-00")) continue;
    through += fmt::format("in {} for pod {} out {}: {}\n", fabric.port({device, in}).name, pod,
                           fabric.port({device, out}).name, n);
  }
  INFO("traces through core-1-00:\n" << through);
  REQUIRE_FALSE(faults.empty());
  for (const auto* f : faults) {
    INFO(f->message);
    CHECK(f->kind == FindingKind::core_rule_violation);
    CHECK(f->expected.starts_with("core-1-00: in etp2 for pod 1 -> out etp6 (core-rules.csv row "));
    CHECK(f->observed.find("etp7") != std::string::npos);
  }
}
