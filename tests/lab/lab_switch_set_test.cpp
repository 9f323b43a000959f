// What `lab up` leaves on a switch is what the shipped path makes: each
// switch namespace of a real lab read back (links, addresses, routes, IOAM
// namespaces, every net sysctl, the processes inside) and held against its
// set from config --all --bring-up, switch apply's own dry run, FRR and the
// agent, with the lab's own items (hpnctl-lab(1), "What the lab still sets
// on a switch itself") the only others. And the lab's read of bgpd on its
// own socket (ask_daemon) held to vtysh's answer on the same lab.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "lab/frr.h"
#include "running_lab.h"
#include "switch/switch_apply.h"
#include "switch/switch_netlink.h"
#include "switch/switch_set.h"
#include "system/netns.h"

namespace fs = std::filesystem;
using namespace hpn;
using namespace hpn::lab;

namespace {

// Every readable file under /proc/sys/net as the calling thread's
// namespace shows it, by its path below /proc/sys ("net/ipv6/conf/etp5/mtu").
std::map<std::string, std::string> net_sysctls() {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator("/proc/sys/net", ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec || !it->is_regular_file()) continue;
    std::ifstream in(it->path());
    std::string value, line;
    while (std::getline(in, line)) value += (value.empty() ? "" : "\n") + line;
    if (in.bad()) continue;  // write-only or unreadable (stable_secret, flush)
    out[it->path().string().substr(std::string("/proc/sys/").size())] = value;
  }
  return out;
}

std::string slashes(std::string key) {
  for (auto& c : key) c = c == '.' ? '/' : c;
  return key;
}

bool same_number(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *ea = nullptr, *eb = nullptr;
  const auto x = std::strtoll(a.c_str(), &ea, 0), y = std::strtoll(b.c_str(), &eb, 0);
  return !a.empty() && !b.empty() && *ea == '\0' && *eb == '\0' && x == y;
}

// The processes whose network namespace is `netns`: their argv, joined.
std::vector<std::string> processes_in(const std::string& netns) {
  struct stat want {};
  REQUIRE(stat((std::string(kNetnsRunDir) + "/" + netns).c_str(), &want) == 0);
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st {};
    if (stat((e.path() / "ns" / "net").c_str(), &st) != 0 || st.st_ino != want.st_ino || st.st_dev != want.st_dev) {
      continue;
    }
    std::ifstream in(e.path() / "cmdline");
    std::string argv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : argv) c = c == '\0' ? ' ' : c;
    if (!argv.empty()) out.push_back(argv.substr(0, argv.size() - 1));
  }
  return out;
}

}  // namespace

TEST_CASE("dataplane/lab (root): what lab up leaves on a switch is its set, FRR's and the agent's, and the lab's listed items",
          "[dataplane][lab][root]") {
  hpn::test::require_lab();
  hpn::test::RunningLab lab(planned_wiring(hpn::test::lab_pod()));

  // A fresh namespace: what a switch's kernel holds before anything is set.
  const std::string fresh_ns = fmt::format("hpn-test-{}-fresh", getpid());
  REQUIRE(create_named_netns(fresh_ns));
  std::map<std::string, std::string> fresh;
  REQUIRE(run_in_netns(fresh_ns, [&]() -> Status {
    fresh = net_sysctls();
    return {};
  }));
  (void)delete_named_netns(fresh_ns);
  REQUIRE(fresh.count("net/ipv6/conf/default/forwarding") == 1);

  // What only the lab sets on a switch (hpnctl-lab(1)); the planned wiring
  // has no fault, so the ICMPv6 rate limit is all.
  const std::set<std::string> lab_only{"net/ipv6/icmp/ratelimit"};

  for (const std::string device : {"tor-p0-s00-r1a", "agg-p0-1-00", "core-1-00"}) {
    INFO(device);
    const std::string netns = lab.netns(device);
    const std::string dir = lab.state.routing_dir + "/" + device;

    // switch apply, run as an operator would on the set lab up applied,
    // finds nothing to change.
    auto dry = hpn::test::run_hpnctl("switch apply '" + dir + "' --netns " + netns + " --dry-run --format json", ".");
    INFO(dry.err);
    REQUIRE(dry.exit_code == 0);
    const auto report = nlohmann::json::parse(dry.out);
    CHECK(report["result"] == "unchanged");
    CHECK(report["changes"].empty());

    // ifupdown2, a reader independent of hpnctl's, checks the running
    // switch against the same interfaces file, port by port (admin state,
    // MTU, MAC, addresses): what switch apply made is what ifupdown2 would.
    auto ifquery = hpn::test::run_command("ip netns exec " + netns + " ifquery -c -a -i '" + dir + "/interfaces' 2>&1");
    INFO(ifquery.out);
    CHECK(ifquery.exit_code == 0);
    CHECK(ifquery.out.find("[pass]") != std::string::npos);
    CHECK(ifquery.out.find("[fail]") == std::string::npos);

    auto set = sw::read_switch_set(dir);
    REQUIRE(set);
    std::map<std::string, std::string> kernel;
    sw::SwitchState state;
    REQUIRE(run_in_netns(netns, [&]() -> Status {
      kernel = net_sysctls();
      auto s = sw::read_switch_state({});
      if (!s) return s.error();
      state = std::move(s.value());
      return {};
    }));

    // Links: exactly the set's ports, nothing the lab added beside.
    std::set<std::string> links, ports;
    for (const auto& l : state.links) links.insert(l.name);
    for (const auto& p : set->ports) ports.insert(p.ifname);
    CHECK(links == ports);
    // Addresses: the set's, and the kernel's EUI-64 link-local of each
    // port's MAC (which the set's MAC gives a host port); nothing else.
    for (const auto& a : state.addresses) {
      INFO(a.ifname << " " << a.prefix.text());
      const sw::SetPort* port = set->port(a.ifname);
      REQUIRE(port != nullptr);
      if (a.prefix.address.starts_with("fe80:")) {
        Mac mac{};
        REQUIRE(parse_mac(state.link(a.ifname)->mac, mac));
        CHECK(a.prefix.text() == eui64_link_local(mac) + "/64");
      } else if (!port->loopback() || (a.prefix.address != "127.0.0.1" && a.prefix.address != "::1")) {
        CHECK(std::find(port->addresses.begin(), port->addresses.end(), a.prefix) != port->addresses.end());
      }
    }
    // Routes: the kernel's, FRR's or the agent's (protocol 80), none the
    // lab's own (it would have used static or boot).
    for (const auto& r : state.routes) {
      INFO(r.to.text() << " table " << r.table << " protocol " << r.protocol);
      CHECK(sw::owned_protocol(r.protocol, 80));
    }
    // IOAM: the set's namespace, bare, and no other.
    REQUIRE(state.ioam_namespaces.size() == 1);
    CHECK(state.ioam_namespaces[0].id == set->ioam_namespaces.at(0));
    CHECK_FALSE(state.ioam_namespaces[0].data);
    CHECK_FALSE(state.ioam_namespaces[0].schema);

    // Every net sysctl that differs from a fresh namespace's (an interface's
    // from the fresh "default" it was made with) is the set's value, follows
    // from one (forwarding on every interface, a port's IPv6 MTU, the
    // seconds of a reachable time), or is the lab's listed own.
    std::map<std::string, std::string> wanted;
    for (const auto& s : set->sysctls) wanted[slashes(s.key)] = s.value;
    std::map<std::string, int> mtu;
    for (const auto& p : set->ports) mtu[p.ifname] = p.mtu;
    size_t differing = 0;
    for (const auto& [key, value] : kernel) {
      INFO(key << " = " << value);
      std::string base = key;  // its fresh counterpart
      std::string ifname, leaf = key.substr(key.rfind('/') + 1);
      for (const char* under : {"net/ipv4/conf/", "net/ipv6/conf/", "net/ipv4/neigh/", "net/ipv6/neigh/"}) {
        if (!key.starts_with(under)) continue;
        ifname = key.substr(std::string(under).size(), key.find('/', std::string(under).size()) - std::string(under).size());
        if (ifname == "all" || ifname == "default" || ifname == "lo") continue;
        // A namespace's neighbour table shows no "default" of its own: a
        // fresh lo has the table's defaults.
        base = std::string(under) + "default/" + leaf;
        if (!fresh.count(base)) base = std::string(under) + "lo/" + leaf;
      }
      auto f = fresh.find(base);
      if (f != fresh.end() && f->second == value) continue;
      ++differing;
      if (auto w = wanted.find(key); w != wanted.end()) {
        CHECK(same_number(value, w->second));
      } else if (lab_only.count(key)) {
        // 1 ms, which the kernel keeps in jiffies: one tick read back.
        CHECK(std::stoi(value) <= 10);
      } else if (leaf == "forwarding") {
        CHECK(value == "1");  // net.ipv4.ip_forward, net.ipv6.conf.all.forwarding: every interface
      } else if (key == "net/ipv4/conf/all/accept_redirects") {
        CHECK(value == "0");  // the kernel's own when IPv4 forwarding comes on (inet_forward_change)
      } else if (leaf == "mtu" && key.starts_with("net/ipv6/conf/")) {
        CHECK(value == std::to_string(mtu.at(ifname)));
      } else if (leaf == "base_reachable_time") {
        auto ms = wanted.find(key + "_ms");
        REQUIRE(ms != wanted.end());
        CHECK(std::stoll(value) == std::stoll(ms->second) / 1000);
      } else {
        FAIL_CHECK("set by neither the set, what follows from it, nor the lab's listed items");
      }
    }
    CHECK(differing > 0);

    // Processes: FRR's daemons, and on a ToR the agent as its unit runs it.
    std::multiset<std::string> running;
    for (const auto& argv : processes_in(netns)) {
      const std::string program = argv.substr(0, argv.find(' '));
      running.insert(program.substr(program.rfind('/') + 1));
      if (program.ends_with("hpnctl")) CHECK(argv.ends_with("switch agent --config " + dir + "/switch-agent.json"));
    }
    std::multiset<std::string> expected{"zebra", "bgpd"};
    if (device.starts_with("tor-")) expected.insert("hpnctl");
    CHECK(running == expected);
  }

  // The set's neighbour limits, which a namespace has no sysctl for, are
  // the machine's (its one table holds every namespace's neighbours): at
  // least the ToR set's values, in this process's first namespace.
  auto tor_set = sw::read_switch_set(lab.state.routing_dir + "/tor-p0-s00-r1a");
  REQUIRE(tor_set);
  size_t limits = 0;
  for (const auto& k : tor_set->sysctls) {
    if (k.key.find(".neigh.default.gc_thresh") == std::string::npos) continue;
    INFO(k.key);
    std::ifstream in("/proc/sys/" + slashes(k.key));
    long machine = 0;
    REQUIRE(in >> machine);
    CHECK(machine >= std::stol(k.value));
    ++limits;
  }
  CHECK(limits == 6);

  // lab up and lab status read bgpd on its own socket (ask_daemon), with
  // vtysh's framing: the same answer as vtysh's, a refused command an
  // error, a daemon that does not run one too.
  const std::string core = lab.netns("core-1-00");
  auto asked = ask_daemon(core, "bgpd", "show bgp summary json");
  REQUIRE(asked);
  auto by_vtysh = hpn::test::run_command("vtysh -N " + core + " -c 'show bgp summary json' 2>/dev/null");
  REQUIRE(by_vtysh.exit_code == 0);
  const auto a = nlohmann::json::parse(asked.value()), v = nlohmann::json::parse(by_vtysh.out);
  REQUIRE(a.contains("ipv6Unicast"));
  CHECK(a.size() == v.size());
  for (const auto& [afi, summary] : v.items()) {
    INFO(afi);
    REQUIRE(a.contains(afi));
    CHECK(a[afi]["routerId"] == summary["routerId"]);
    CHECK(a[afi]["as"] == summary["as"]);
    REQUIRE(a[afi]["peers"].size() == summary["peers"].size());
    for (const auto& [peer, state] : summary["peers"].items()) {
      INFO(peer);
      CHECK(a[afi]["peers"][peer]["remoteAs"] == state["remoteAs"]);
      CHECK(a[afi]["peers"][peer]["state"] == state["state"]);
    }
  }
  size_t established = 0;
  for (const auto& [peer, state] : a["ipv6Unicast"]["peers"].items()) established += state["state"] == "Established";
  CHECK(established > 0);
  auto refused = ask_daemon(core, "bgpd", "show no-such-thing");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("bgpd refused 'show no-such-thing'") != std::string::npos);
  auto nobody = ask_daemon(core, "ospfd", "show ip ospf");
  REQUIRE_FALSE(nobody);
  CHECK(nobody.error().message.find("cannot ask 'show ip ospf'") != std::string::npos);
}
