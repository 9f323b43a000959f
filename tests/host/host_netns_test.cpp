// host apply and host announce for real (root): a namespace named for the
// lab pod's first host with four veth ports as its NIC ports, their peers in
// a second namespace standing in for the ToRs. The state is read back with
// iproute2 (`ip -j`), packets are captured with libpcap on the peers and
// dissected by tshark.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "system/netns.h"
#include "host_fixture.h"
#include "test_util.h"
#include "support/schema.h"

namespace {

using hpn::test::TempDir;
using nlohmann::json;

struct Shell {
  int rc = -1;
  std::string out;
};

// Runs `command` with sh; stdout, and stderr too unless `stderr_too` is false.
Shell sh(const std::string& command, bool stderr_too = true) {
  Shell r;
  FILE* p = popen((command + (stderr_too ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

const char* const kPorts[] = {"nic1p1", "nic1p2", "nic2p1", "nic2p2"};

// The host's namespace "hpnA-<pid>-<n>-host-p0-s00-h000" (its name ends with
// the profile's host, as the lab names host namespaces) and the ToRs'
// "hpnA-<pid>-<n>-tor", with veth nicXpY -- t-nicXpY between them.
class HostLab {
 public:
  explicit HostLab(const std::string& host = "host-p0-s00-h000",
                   const std::vector<std::string>& ports = {std::begin(kPorts), std::end(kPorts)}) {
    static std::atomic<int> counter{0};
    const std::string prefix = fmt::format("hpnA-{}-{}-", getpid(), counter++);
    ns = prefix + host;
    tor = prefix + "tor";
    ok = sh("ip netns add " + ns).rc == 0 && sh("ip netns add " + tor).rc == 0;
    for (const auto& p : ports) {
      ok = ok && sh(fmt::format("ip link add {0} netns {1} type veth peer name t-{0} netns {2} && ip -n {2} link set t-{0} up", p, ns, tor)).rc == 0;
    }
    profile = (dir / "h0.json").string();
    hpn::test::write_file(profile, hpn::test::lab_profile_text());
  }
  ~HostLab() {
    sh("ip netns del " + ns);
    sh("ip netns del " + tor);
  }
  HostLab(const HostLab&) = delete;
  HostLab& operator=(const HostLab&) = delete;

  hpn::test::RunResult hpnctl(const std::string& args) const { return hpn::test::run_hpnctl(args, dir.path()); }
  hpn::test::RunResult apply(const std::string& options) const {
    return hpnctl(fmt::format("host apply {} --netns {} {}", quote(profile), ns, options));
  }
  json ip(const std::string& args) const {
    auto r = sh(fmt::format("ip -n {} -j {}", ns, args));
    REQUIRE(r.rc == 0);
    return json::parse(r.out);
  }
  std::string sysctl(const std::string& key) const {
    return sh(fmt::format("ip netns exec {} cat /proc/sys/{}", ns, key)).out;
  }
  // Everything apply may touch, as iproute2 prints it.
  std::string snapshot() const {
    // Duplicate address detection first: until it ends on an interface
    // that is up, its IPv6 addresses are "tentative" and the link-local
    // one has no local route, and the kernel ends it on its own timer,
    // which a loaded machine runs late (two CI runs' snapshots of an
    // unchanged namespace differed by that alone).
    for (int i = 0; i < 50; ++i) {
      if (sh(fmt::format("ip -n {} -6 -br addr show up tentative", ns)).out.find_first_not_of(" \n") ==
          std::string::npos) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::string s;
    for (const char* what : {"link", "addr", "route show table all", "-6 route show table all", "rule", "-6 rule", "neigh"}) {
      // One line per value, so a difference reads as the lines that differ.
      // Not the qdisc: the kernel gives a device its default one the first
      // time it comes up ("noop" before), and no apply sets or restores it.
      const auto r = sh(fmt::format("ip -n {} -j {}", ns, what));
      if (!json::accept(r.out)) {
        s += std::string(what) + ":\n" + r.out + "\n";
        continue;
      }
      json j = json::parse(r.out);
      for (auto& item : j) {
        if (!item.is_object()) continue;
        item.erase("qdisc");
      }
      s += std::string(what) + ":\n" + j.dump(1) + "\n";
    }
    for (const char* key : {"net/ipv4/fib_multipath_hash_policy", "net/ipv6/fib_multipath_hash_policy",
                            "net/ipv4/conf/nic1p1/arp_announce", "net/ipv6/conf/nic2p2/accept_ra"}) {
      s += std::string(key) + "=" + sysctl(key);
    }
    return s;
  }
  std::string peer_mac(const std::string& port) const {
    auto r = sh(fmt::format("ip -n {} -j link show t-{}", tor, port));
    return json::parse(r.out)[0]["address"];
  }

  TempDir dir;
  std::string ns, tor, profile;
  bool ok = false;
};

bool kernel_has_bonding(std::string& why) {
  const std::string probe = fmt::format("hpnA-{}-bondprobe", getpid());
  sh("ip netns add " + probe);
  auto r = sh(fmt::format("ip -n {} link add hpnA-b0 type bond", probe));
  sh("ip netns del " + probe);
  why = r.out;
  return r.rc == 0;
}

#define NEED_ROOT() \
  if (geteuid() != 0) hpn::test::skip("needs root (network namespaces, veth pairs, netlink)")

json find_addr(const json& addrs, const std::string& ifname) {
  for (const auto& a : addrs) {
    if (a["ifname"] == ifname) return a;
  }
  return json();
}

// The host's namespace made like a lived-in host: eth0 (a veth to the ToRs'
// namespace: this kernel may lack dummy) with a
// DHCP default route at metric 100 and an unrelated route in table 1001;
// with `clutter`, nic1p1 up with an address and a route of its own, and
// nic2p1 a port of bridge br0.
void live_in(const HostLab& lab, bool clutter) {
  const std::string ip = "ip -n " + lab.ns + " ";
  std::string script = ip + "link add eth0 address 52:54:00:12:34:56 type veth peer name t-eth0 netns " + lab.tor +
                       " && " + ip + "link set eth0 up && " + ip +
                       "addr add 192.168.100.10/24 dev eth0 && " + ip +
                       "route add default via 192.168.100.1 dev eth0 proto dhcp metric 100 && " + ip +
                       "route add 172.16.0.0/16 via 192.168.100.1 dev eth0 table 1001";
  if (clutter) {
    script += " && " + ip + "link set nic1p1 up && " + ip + "addr add 192.168.5.5/24 dev nic1p1 && " + ip +
              "route add 192.168.77.0/24 via 192.168.5.1 dev nic1p1 proto boot && " + ip +
              "link add br0 address 52:54:00:00:00:21 type bridge && " + ip + "link set br0 up && " + ip +
              "link set nic2p1 master br0";
  }
  auto r = sh(script);
  INFO(r.out);
  REQUIRE(r.rc == 0);
}

// The profile with bond2's IPv6 gateway on nic2p2 made a multicast address,
// which the kernel refuses as a next hop: the apply fails at its last route,
// with nearly everything else made.
std::string late_failing_profile() {
  return hpn::test::edited_profile([](json& j) {
    j["bonds"][1]["members"][1]["gateway_ipv6"] = "ff02::2";
    for (auto& r : j["bonds"][1]["routes"]) {
      if (r["family"] == 6) r["via"][1] = "ff02::2";
    }
  });
}

// The lines of `a` and `b` that the other lacks: what an INFO shows when
// two snapshots differ.
std::string differences(const std::string& a, const std::string& b) {
  auto lines = [](const std::string& s) {
    std::multiset<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.insert(l);
    return out;
  };
  const auto x = lines(a), y = lines(b);
  std::string out;
  for (const auto& l : x) if (!y.count(l)) out += "- " + l + "\n";
  for (const auto& l : y) if (!x.count(l)) out += "+ " + l + "\n";
  if (out.empty() && a != b) {
    // The same lines in another order: where they part.
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    const size_t from = a.rfind("\n", at > 400 ? at - 400 : 0);
    out = "reordered, before:\n" + a.substr(from == std::string::npos ? 0 : from, 800) + "\nafter:\n" +
          b.substr(from == std::string::npos ? 0 : from, 800);
  }
  return out;
}

bool has_local(const json& link, const std::string& local, int len) {
  for (const auto& i : link["addr_info"]) {
    if (i["local"] == local && i["prefixlen"] == len) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("host apply --no-bond: addresses, MTU, MAC, rules, multipath routes and sysctls read back, a second run changes nothing", "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  auto first = lab.apply("--no-bond");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("applied 75 changes\n") != std::string::npos);

  const json addrs = lab.ip("addr");
  for (const char* port : {"nic1p1", "nic1p2"}) {
    const json a = find_addr(addrs, port);
    INFO(port);
    CHECK(a["mtu"] == 4200);
    CHECK(a["address"] == "02:4e:10:00:00:01");
    CHECK(has_local(a, "10.0.0.16", 27));
    CHECK(has_local(a, "fd48:504e::10", 64));
  }
  CHECK(has_local(find_addr(addrs, "nic2p2"), "fd48:504e:0:1::10", 64));

  const json routes = lab.ip("-6 route show table 1001");
  REQUIRE(routes.size() == 2);  // the back-end prefix and the switches' loopbacks
  CHECK(routes[1]["dst"] == "fd48:5050::/64");
  CHECK(routes[0]["dst"] == "fd48:504e::/40");
  REQUIRE(routes[0]["nexthops"].size() == 2);
  CHECK(routes[0]["nexthops"][0]["gateway"] == "fd48:504e::1");
  CHECK(routes[0]["nexthops"][0]["dev"] == "nic1p1");
  CHECK(routes[0]["nexthops"][1]["gateway"] == "fd48:504e::2");
  CHECK(routes[0]["nexthops"][1]["dev"] == "nic1p2");
  const json v4 = lab.ip("route show table 1002");
  REQUIRE(v4.size() == 2);
  CHECK(v4[0]["dst"] == "10.0.0.0/12");
  CHECK(v4[0]["nexthops"][1]["gateway"] == "10.0.0.34");
  CHECK(v4[0]["nexthops"][1]["dev"] == "nic2p2");
  // No on-link prefix route in main: the two gateways sit behind two ports.
  CHECK(lab.ip("route show table main").empty());

  bool rule = false;
  for (const auto& r : lab.ip("rule")) rule = rule || (r["priority"] == 1001 && r["src"] == "10.0.0.16" && r["table"] == "1001");
  CHECK(rule);
  CHECK(lab.sysctl("net/ipv4/fib_multipath_hash_policy") == "1\n");
  CHECK(lab.sysctl("net/ipv4/conf/nic1p2/arp_announce") == "2\n");
  CHECK(lab.sysctl("net/ipv6/conf/nic2p1/accept_ra") == "0\n");
  // Without a bond, a member that loses carrier leaves the hash by itself.
  CHECK(lab.sysctl("net/ipv6/conf/nic1p1/ignore_routes_with_linkdown") == "1\n");
  CHECK(lab.sysctl("net/ipv4/conf/nic2p2/ignore_routes_with_linkdown") == "1\n");
  // Each gateway's neighbour pinned on the member that reaches it, to the
  // gateway MAC every ToR answers with.
  size_t pinned = 0;
  for (const auto& n : lab.ip("neigh show nud permanent")) {
    INFO(n.dump());
    CHECK(n["lladdr"] == "02:48:50:4e:00:01");
    if (n["dst"] == "fd48:504e::2") CHECK(n["dev"] == "nic1p2");
    ++pinned;
  }
  CHECK(pinned == 8);

  const std::string after = lab.snapshot();
  auto second = lab.apply("--no-bond");
  CHECK(second.exit_code == 0);
  CHECK(second.out == fmt::format("host-p0-s00-h000 (namespace {}): nothing to change\n", lab.ns));
  CHECK(lab.snapshot() == after);
  auto json_run = lab.apply("--no-bond --format json");
  REQUIRE(json_run.exit_code == 0);
  const json j = json::parse(json_run.out);
  CHECK(j["result"] == "unchanged");
  CHECK(j["changes"].empty());
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", json_run.out) == "");
}

TEST_CASE("host apply --dry-run changes nothing and prints what the real run then does", "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  const std::string before = lab.snapshot();
  auto dry = lab.apply("--no-bond --dry-run");
  REQUIRE(dry.exit_code == 0);
  CHECK(lab.snapshot() == before);
  auto dry_json = lab.apply("--no-bond --dry-run --format json");
  REQUIRE(dry_json.exit_code == 0);
  const json j = json::parse(dry_json.out);
  CHECK(j["result"] == "dry-run");
  CHECK(j["changes"].size() == 75);
  CHECK(j["changes"][0]["kind"] == "sysctl");
  CHECK(j["changes"][0]["from"] == "0");
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", dry_json.out) == "");
  CHECK(lab.snapshot() == before);

  auto real = lab.apply("--no-bond");
  REQUIRE(real.exit_code == 0);
  // The same diff, then the result line.
  const std::string diff = dry.out.substr(dry.out.find('\n') + 1);
  CHECK(real.out.find(diff) != std::string::npos);
  CHECK(real.out.substr(real.out.find('\n') + 1) == diff + "applied 75 changes\n");
}

TEST_CASE("host apply on a kernel without bonding: a clear error at the bond step, and the namespace as it was", "[host][netns]") {
  NEED_ROOT();
  std::string why;
  if (kernel_has_bonding(why)) {
    hpn::test::skip("this kernel has bonding, so the bond step does not fail");
  }
  HostLab lab;
  REQUIRE(lab.ok);
  const std::string before = lab.snapshot();
  auto r = lab.apply("");
  CHECK(r.exit_code == 3);
  CHECK(r.err ==
        "hpnctl: step 4 of 47 failed: + bond bond1 mode balance-xor xmit_hash_policy layer3+4 arp_interval 100 "
        "arp_ip_target 10.0.0.1,10.0.0.2 arp_validate all mac 02:4e:10:00:00:01 mtu 4200\n"
        "  bond bond1: this kernel has no bonding module (creating a link of kind 'bond' failed: Operation not "
        "supported); load it (modprobe bonding), or run with --no-bond to configure the member ports without a bond\n"
        "  the 3 changes made before it were rolled back\n");
  CHECK(r.out.find("rolled back 3 changes, newest first:\n"
                   "  undo ~ sysctl net.ipv4.fib_multipath_use_neigh 0 -> 1\n") != std::string::npos);
  // The three sysctls were really changed, then really put back.
  CHECK(lab.snapshot() == before);
  CHECK(lab.sysctl("net/ipv4/fib_multipath_hash_policy") == "0\n");
}

TEST_CASE("host apply makes real bonds where the kernel has bonding", "[host][netns]") {
  NEED_ROOT();
  std::string why;
  if (!kernel_has_bonding(why)) {
    hpn::test::skip(std::string("this kernel has no bonding (ip link add type bond: ") + why + ")");
  }
  HostLab lab;
  REQUIRE(lab.ok);
  auto r = lab.apply("");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json links = lab.ip("-d link show type bond");
  REQUIRE(links.size() == 2);
  CHECK(links[0]["ifname"] == "bond1");
  CHECK(links[0]["address"] == "02:4e:10:00:00:01");
  CHECK(links[0]["mtu"] == 4200);
  CHECK(links[0]["linkinfo"]["info_data"]["mode"] == "balance-xor");
  CHECK(links[0]["linkinfo"]["info_data"]["xmit_hash_policy"] == "layer3+4");
  CHECK(links[0]["linkinfo"]["info_data"]["arp_interval"] == 100);
  for (const char* port : {"nic1p1", "nic1p2"}) CHECK(lab.ip(std::string("link show ") + port)[0]["master"] == "bond1");
  CHECK(has_local(find_addr(lab.ip("addr"), "bond1"), "10.0.0.16", 27));
  CHECK(lab.apply("").out.find("nothing to change") != std::string::npos);
}

TEST_CASE("host apply: a kernel error midway rolls back MAC, MTU and sysctls already changed", "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  // A per-interface sysctl this kernel does not have: step 12, after the
  // MAC and MTU of all four ports and the global sysctls.
  hpn::test::write_file(lab.profile, hpn::test::edited_profile([](json& j) {
    j["sysctls"].insert(j["sysctls"].begin() + 3, json::object({{"key", "net.ipv4.conf.bond1.hpnctl_no_such_key"}, {"value", "1"}}));
  }));
  const std::string before = lab.snapshot();
  auto r = lab.apply("--no-bond");
  CHECK(r.exit_code == 3);
  CHECK(r.err ==
        "hpnctl: step 12 of 77 failed: + sysctl net.ipv4.conf.nic1p1.hpnctl_no_such_key = 1\n"
        "  sysctl net.ipv4.conf.nic1p1.hpnctl_no_such_key: No such file or directory\n"
        "  the 11 changes made before it were rolled back\n");
  CHECK(lab.snapshot() == before);
}

TEST_CASE("host apply refuses another host's profile with exit 2 unless --force", "[host][netns]") {
  NEED_ROOT();
  HostLab lab("host-p0-s00-h001");
  REQUIRE(lab.ok);
  const std::string before = lab.snapshot();
  auto r = lab.apply("--no-bond");
  CHECK(r.exit_code == 2);
  CHECK(r.err == fmt::format("hpnctl: {} is not this host's profile; nothing was done:\n"
                             "  the profile is for host-p0-s00-h000, and namespace {} is neither named "
                             "host-p0-s00-h000 nor '<prefix>-host-p0-s00-h000'\n"
                             "  (--force applies it anyway)\n",
                             lab.profile, lab.ns));
  CHECK(lab.snapshot() == before);
  auto announce = lab.hpnctl(fmt::format("host announce {} --netns {}", quote(lab.profile), lab.ns));
  CHECK(announce.exit_code == 2);

  auto forced = lab.apply("--no-bond --force");
  CHECK(forced.exit_code == 0);
  CHECK(forced.err.find("hpnctl: warning (--force): the profile is for host-p0-s00-h000") == 0);
  CHECK(has_local(find_addr(lab.ip("addr"), "nic1p1"), "10.0.0.16", 27));
}

TEST_CASE("host apply refuses a profile whose member ports are not here", "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  REQUIRE(sh(fmt::format("ip -n {} link del nic2p2", lab.ns)).rc == 0);
  auto r = lab.apply("--no-bond");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("  member port nic2p2 of bond2 does not exist here\n") != std::string::npos);
}

TEST_CASE("host apply and announce refuse to run without root, before reading anything", "[host][netns]") {
  NEED_ROOT();  // to become someone else
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(HPNCTL_BINARY);
  auto apply = sh(as_nobody + " host apply /nonexistent/profile.json");
  CHECK(apply.rc == 3);
  CHECK(apply.out ==
        "hpnctl: host apply changes this host's network (netlink, /proc/sys) and needs root; nothing was done. Run "
        "it with sudo, or look first with --dry-run\n");
  auto announce = sh(as_nobody + " host announce /nonexistent/profile.json --netns x");
  CHECK(announce.rc == 3);
  CHECK(announce.out.find("hpnctl: host announce changes this host's network") == 0);
  // A dry run reads only: it gets as far as the missing file.
  auto dry = sh(as_nobody + " host apply /nonexistent/profile.json --dry-run");
  CHECK(dry.rc == 2);
  CHECK(dry.out == "hpnctl: /nonexistent/profile.json: no such file\n");
}

TEST_CASE("host apply pins the gateways' MACs the profile gives as permanent neighbours", "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  const std::string mac1 = lab.peer_mac("nic1p1"), mac2 = lab.peer_mac("nic1p2");
  hpn::test::write_file(lab.profile, hpn::test::edited_profile([&](json& j) {
    j["bonds"][0]["members"][0]["gateway_mac"] = mac1;
    j["bonds"][0]["members"][1]["gateway_mac"] = mac2;
  }));
  auto r = lab.apply("--no-bond");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  int found = 0;
  for (const auto& n : lab.ip("neigh")) {
    const bool permanent = std::find(n["state"].begin(), n["state"].end(), "PERMANENT") != n["state"].end();
    if (n["dst"] == "10.0.0.2" && n["dev"] == "nic1p2" && n["lladdr"] == mac2 && permanent) ++found;
    if (n["dst"] == "fd48:504e::1" && n["dev"] == "nic1p1" && n["lladdr"] == mac1 && permanent) ++found;
  }
  CHECK(found == 2);
  CHECK(lab.apply("--no-bond").out.find("nothing to change") != std::string::npos);
}

TEST_CASE("host announce: one gratuitous ARP and one NA arrive on each member's peer, checked by tshark", "[host][netns]") {
  NEED_ROOT();
  if (sh("command -v tshark").rc != 0) {
    hpn::test::skip("needs tshark");
  }
  HostLab lab;
  REQUIRE(lab.ok);
  REQUIRE(lab.apply("--no-bond").exit_code == 0);

  // Capture handles opened inside the ToRs' namespace before anything is sent.
  std::vector<pcap_t*> handles;
  auto opened = hpn::lab::run_in_netns(lab.tor, [&]() -> hpn::Status {
    for (const char* p : kPorts) {
      char err[PCAP_ERRBUF_SIZE] = "";
      pcap_t* h = pcap_open_live((std::string("t-") + p).c_str(), 256, 1, 50, err);
      if (h == nullptr) return hpn::Error{err};
      pcap_setnonblock(h, 1, err);
      handles.push_back(h);
    }
    return {};
  });
  REQUIRE(opened.ok());
  auto sent = lab.hpnctl(fmt::format("host announce {} --netns {} --format json", quote(lab.profile), lab.ns));
  INFO(sent.out << sent.err);
  REQUIRE(sent.exit_code == 0);
  CHECK(json::parse(sent.out)["sent"].size() == 8);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  struct Expect {
    const char* ipv4;
    const char* ipv6;
    const char* mac;
  };
  const Expect expect[] = {{"10.0.0.16", "fd48:504e::10", "02:4e:10:00:00:01"}, {"10.0.0.16", "fd48:504e::10", "02:4e:10:00:00:01"},
                           {"10.0.0.48", "fd48:504e:0:1::10", "02:4e:10:00:00:02"}, {"10.0.0.48", "fd48:504e:0:1::10", "02:4e:10:00:00:02"}};
  for (size_t i = 0; i < handles.size(); ++i) {
    const std::string file = (lab.dir / fmt::format("peer{}.pcap", i)).string();
    pcap_dumper_t* dumper = pcap_dump_open(handles[i], file.c_str());
    REQUIRE(dumper != nullptr);
    for (int round = 0; round < 4; ++round) {
      pcap_dispatch(handles[i], -1, pcap_dump, reinterpret_cast<u_char*>(dumper));
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
    }
    pcap_dump_close(dumper);
    pcap_close(handles[i]);
    INFO("peer of " << kPorts[i]);
    // From the bond's addresses only: the host's kernel sends neighbour
    // discovery of its own from its link-local addresses (DAD, router
    // solicitations, arp_notify/ndisc_notify on link-local DAD completion).
    auto garp = sh(fmt::format("tshark -r {} -Y 'arp.opcode == 1 && arp.isgratuitous && arp.src.proto_ipv4 == {}' "
                               "-T fields -e eth.src -e arp.src.hw_mac -e arp.src.proto_ipv4 -e arp.dst.proto_ipv4",
                               file, expect[i].ipv4),
                   false);
    CHECK(garp.out == fmt::format("{0}\t{0}\t{1}\t{1}\n", expect[i].mac, expect[i].ipv4));
    auto na = sh(fmt::format("tshark -r {} -Y 'icmpv6.type == 136 && ipv6.src == {}' -T fields -E separator=, -e eth.src "
                             "-e ipv6.src -e ipv6.dst -e ipv6.hlim -e icmpv6.nd.na.flag.r -e icmpv6.nd.na.flag.s -e "
                             "icmpv6.nd.na.flag.o -e icmpv6.nd.na.target_address -e icmpv6.opt.linkaddr -e icmpv6.checksum.status",
                             file, expect[i].ipv6),
                 false);
    CHECK(na.out == fmt::format("{0},{1},ff02::1,255,0,0,1,{1},{0},1\n", expect[i].mac, expect[i].ipv6));
  }
}

TEST_CASE("host apply on a lived-in host keeps its default route and other routes, and a late kernel error restores it exactly",
          "[host][netns]") {
  NEED_ROOT();
  {
    HostLab lab;
    REQUIRE(lab.ok);
    live_in(lab, false);
    auto r = lab.apply("--no-bond");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const json defaults = lab.ip("route show default");
    REQUIRE(defaults.size() == 1);
    CHECK(defaults[0]["gateway"] == "192.168.100.1");
    CHECK(defaults[0]["metric"] == 100);
    CHECK(defaults[0]["protocol"] == "dhcp");
    const json table = lab.ip("route show table 1001");
    bool unrelated = false;
    for (const auto& route : table) unrelated = unrelated || route["dst"] == "172.16.0.0/16";
    CHECK(unrelated);
    CHECK(table.size() == 3);  // that one and the profile's 10.0.0.0/12 and 10.255.0.0/16
  }
  HostLab lab;
  REQUIRE(lab.ok);
  live_in(lab, false);
  hpn::test::write_file(lab.profile, late_failing_profile());
  const std::string before = lab.snapshot();
  auto r = lab.apply("--no-bond");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("failed: + route fd48:504e") != std::string::npos);
  CHECK(r.err.find("were rolled back") != std::string::npos);
  const std::string after = lab.snapshot();
  INFO(differences(before, after));
  CHECK(after == before);
}

TEST_CASE("host apply refuses member ports with state of their own, and --force saves it, clears it, and rollback restores it",
          "[host][netns]") {
  NEED_ROOT();
  HostLab lab;
  REQUIRE(lab.ok);
  live_in(lab, true);
  const std::string before = lab.snapshot();
  auto refused = lab.apply("--no-bond");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("would change what it does not own here; nothing was done:\n"
                         "  member port nic1p1 of bond1 carries 192.168.5.5/24, which the profile does not give it\n"
                         "  member port nic1p1 of bond1 carries route 192.168.77.0/24 table main metric 0 proto boot "
                         "nexthop via 192.168.5.1 dev nic1p1, which the profile does not give it\n"
                         "  member port nic2p1 of bond2 is enslaved to br0\n") != std::string::npos);
  CHECK(lab.snapshot() == before);
  // The dry run refuses the same way.
  CHECK(lab.apply("--no-bond --dry-run").exit_code == 2);

  // Forced, and failing late: what it removed is saved, and all of it is back.
  const std::string good_profile = hpn::test::read_file(lab.profile);
  hpn::test::write_file(lab.profile, late_failing_profile());
  const std::string saved = (lab.dir / "saved").string();
  auto failed = lab.apply("--no-bond --force --saved-dir '" + saved + "' --format json");
  INFO(failed.out << failed.err);
  CHECK(failed.exit_code == 3);
  {
    const std::string after = lab.snapshot();
    INFO(differences(before, after));
    CHECK(after == before);
  }
  const json report = json::parse(failed.out);
  CHECK(report["result"] == "rolled-back");
  CHECK(hpn::test::schema_errors_of_text("host-apply.schema.json", failed.out) == "");
  CHECK(report["conflicts"].size() == 3);
  REQUIRE(report["saved"].is_string());
  const json record = json::parse(hpn::test::read_file(report["saved"].get<std::string>()));
  CHECK(record["host"] == "host-p0-s00-h000");
  REQUIRE(record["removed"].size() == 3);
  CHECK(record["removed"][0]["kind"] == "unroute");
  CHECK(record["removed"][0]["to"] == "192.168.77.0/24");
  CHECK(record["removed"][1]["kind"] == "unaddr");
  CHECK(record["removed"][2]["kind"] == "release");
  CHECK(record["removed"][2]["from"] == "br0");

  // Forced for real: the members are the profile's, the rest of the host untouched.
  hpn::test::write_file(lab.profile, good_profile);
  auto forced = lab.apply("--no-bond --force --saved-dir '" + saved + "'");
  INFO(forced.out << forced.err);
  REQUIRE(forced.exit_code == 0);
  CHECK_FALSE(has_local(find_addr(lab.ip("addr"), "nic1p1"), "192.168.5.5", 24));
  CHECK(lab.ip("link show nic2p1")[0].count("master") == 0);
  CHECK(lab.ip("route show default").size() == 1);
  CHECK(lab.apply("--no-bond").out.find("nothing to change") != std::string::npos);
}

TEST_CASE("host apply: SIGINT, SIGTERM or SIGHUP midway rolls back and exits 3", "[host][netns]") {
  NEED_ROOT();
  for (const char* sig : {"INT", "TERM", "HUP"}) {
    HostLab lab;
    REQUIRE(lab.ok);
    live_in(lab, false);
    const std::string before = lab.snapshot();
    // 57 steps 20 ms apart: the signal comes 0.2 s after hpnctl caught
    // all three (its SigCgt; it does just before the first step), a few
    // steps in. A fixed time from the start raced a slow start (a
    // sanitizer build on a loaded machine: HUP came first, exit 129).
    const std::string command = fmt::format(
        "cd {} && {{ '{}' host apply {} --netns {} --no-bond --step-delay 20 >out 2>err & pid=$!; i=0; "
        "while [ $i -lt 1000 ]; do cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$pid/status 2>/dev/null); "
        "[ -n \"$cgt\" ] && [ $(( 0x$cgt & 0x4003 )) -eq 16387 ] && break; sleep 0.01; i=$((i + 1)); done; "
        "sleep 0.2; kill -{} $pid; wait $pid; echo $?; }}",
        quote(lab.dir.path().string()), HPNCTL_BINARY, quote(lab.profile), lab.ns, sig);
    auto r = sh(command);
    const std::string err = hpn::test::read_file(lab.dir / "err");
    INFO(sig << ": " << r.out << err);
    CHECK(r.out == "3\n");
    CHECK(err.find(fmt::format("hpnctl: interrupted by {} before step ", sig)) == 0);
    CHECK(err.find("were rolled back") != std::string::npos);
    const std::string after = lab.snapshot();
    INFO(differences(before, after));
    CHECK(after == before);
  }
}

TEST_CASE("host apply names a host's own ports as planned from a profile --nic-map made of its ip -j link, and udev, networkd and netplan take the files", "[host][netns]") {
  NEED_ROOT();
  // A host whose kernel named its ports by PCI path, listed out of order.
  HostLab lab("host-p0-s00-h000", {"enp94s0f1np1", "enp59s0f0np0", "enp94s0f0np0", "enp59s0f1np1"});
  REQUIRE(lab.ok);
  auto ip = sh(fmt::format("ip -n {} -j link", lab.ns));
  REQUIRE(ip.rc == 0);
  hpn::test::write_file(lab.dir / "ip.json", ip.out);
  REQUIRE(lab.hpnctl("plan -q " + quote(hpn::test::source_path("examples/lab-pod.yaml").string()) + " -o plan").exit_code == 0);
  auto made = lab.hpnctl("profile --blueprint plan host-p0-s00-h000 --nic-map ip.json -o prof");
  INFO(made.out << made.err);
  REQUIRE(made.exit_code == 0);
  const auto prof = lab.dir / "prof";

  // The files, by their parsers: udev's .link machinery on interfaces with
  // the namespace's MACs, systemd-networkd, netplan generate.
  std::string ports;
  std::map<std::string, std::string> mac;
  for (const auto& l : json::parse(ip.out)) {
    if (l["link_type"] != "ether") continue;
    mac[l["ifname"]] = l["address"];
    ports += fmt::format(" {}={}", l["ifname"].get<std::string>(), l["address"].get<std::string>());
  }
  REQUIRE(mac.size() == 4);
  auto udev = sh(quote(hpn::test::source_path("tests/hostconfig/link_parse.sh").string()) + " " + quote((prof / "link").string()) + ports);
  if (udev.rc == 77) hpn::test::skip("udev cannot run here: " + udev.out);
  INFO(udev.out);
  CHECK(udev.rc == 0);
  for (const auto& [kernel, planned] : std::map<std::string, std::string>{{"enp59s0f0np0", "nic1p1"}, {"enp59s0f1np1", "nic1p2"},
                                                                          {"enp94s0f0np0", "nic2p1"}, {"enp94s0f1np1", "nic2p2"}}) {
    CHECK(udev.out.find(fmt::format("{} -> {} (/etc/systemd/network/10-hpnctl-{}.link)", kernel, planned, planned)) != std::string::npos);
  }
  auto networkd = sh(quote(hpn::test::source_path("tests/hostconfig/networkd_parse.sh").string()) + " " + quote((prof / "networkd").string()));
  INFO(networkd.out);
  CHECK((networkd.rc == 0 || networkd.rc == 77));
  hpn::test::TempDir root;
  std::filesystem::create_directories(root / "etc/netplan");
  std::filesystem::copy_file(prof / "netplan/60-hpnctl.yaml", root / "etc/netplan/60-hpnctl.yaml");
  auto netplan = sh("netplan generate --root-dir " + quote(root.path().string()));
  INFO(netplan.out);
  CHECK(netplan.rc == 0);
  CHECK(hpn::test::read_file(root / "run/systemd/network/10-netplan-nic1p2.link").find("MACAddress=" + mac["enp59s0f1np1"]) != std::string::npos);

  // Applied: the ports carry their planned names, the bond's MAC and its addresses.
  std::string why;
  const std::string options = kernel_has_bonding(why) ? "" : "--no-bond";
  auto first = lab.hpnctl(fmt::format("host apply {} --netns {} {}", quote((prof / "profile.json").string()), lab.ns, options));
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("~ name enp59s0f0np0 -> nic1p1\n") != std::string::npos);
  std::set<std::string> names;
  for (const auto& l : lab.ip("link")) names.insert(l["ifname"]);
  for (const char* p : kPorts) CHECK(names.count(p));
  CHECK_FALSE(names.count("enp59s0f0np0"));
  const json addrs = lab.ip("addr");
  CHECK(find_addr(addrs, options.empty() ? "bond1" : "nic1p1")["address"] == "02:4e:10:00:00:01");
  // What is now nic1p2 is the port that was enp59s0f1np1: its veth peer.
  const json peer = json::parse(sh(fmt::format("ip -n {} -j link show t-enp59s0f1np1", lab.tor)).out);
  CHECK(lab.ip("link show nic1p2")[0]["link_index"] == peer[0]["ifindex"]);
  auto second = lab.hpnctl(fmt::format("host apply {} --netns {} {}", quote((prof / "profile.json").string()), lab.ns, options));
  CHECK(second.exit_code == 0);
  CHECK(second.out.find("nothing to change") != std::string::npos);
}
