// `hpnctl profile` end to end, on a planned lab pod.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "profile_fixture.h"

namespace {

using namespace hpn::test;

// A lab pod planned once per test case, in its own directory.
struct LabPlan {
  TempDir dir;
  fs::path plan = dir / "plan";
  LabPlan() {
    auto r = run_hpnctl("plan -q " + q(source_path("examples/lab-pod.yaml")) + " -o " + q(plan), dir.path());
    REQUIRE(r.exit_code == 0);
  }
  RunResult profile(const std::string& args) const {
    return run_hpnctl("profile --blueprint " + q(plan) + " " + args, dir.path());
  }
};

// A ToR's gateway address toward its hosts, from the plan's interfaces.csv.
std::string gateway_of(const fs::path& plan, const std::string& tor) {
  std::istringstream in(read_file(plan / "interfaces.csv"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(tor + ",Vlan1000,gateway,", 0) != 0) continue;
    std::string rest = line.substr(tor.size() + std::string(",Vlan1000,gateway,,").size());
    return rest.substr(0, rest.find(','));
  }
  FAIL("no gateway of " << tor);
  return "";
}

std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return files;
}

TEST_CASE("profile/cli: one host's profile in each format") {
  LabPlan lab;
  auto json = lab.profile("host-p0-s01-h002");
  REQUIRE(json.exit_code == 0);
  auto j = nlohmann::json::parse(json.out);
  CHECK(j["host"] == "host-p0-s01-h002");
  CHECK(j["bonds"].size() == 2);
  // NIC 1 of a segment-1 host: ARP toward the two rail-1 ToRs of segment 1.
  std::string a = gateway_of(lab.plan, "tor-p0-s01-r1a"), b = gateway_of(lab.plan, "tor-p0-s01-r1b");
  CHECK(j["bonds"][0]["monitor"]["arp_ip_targets"] == nlohmann::json{a, b});

  auto networkd = lab.profile("host-p0-s01-h002 --format networkd");
  REQUIRE(networkd.exit_code == 0);
  CHECK(networkd.out.rfind("# ==> 10-bond1.netdev <==\n", 0) == 0);
  CHECK_THAT(networkd.out, Catch::Contains("\n# ==> 20-bond2-ports.network <==\n"));
  CHECK_THAT(networkd.out, Catch::Contains("ARPIPTargets=" + a + " " + b + "\n"));

  auto netplan = lab.profile("host-p0-s01-h002 --format netplan --bond-mode active-backup");
  REQUIRE(netplan.exit_code == 0);
  CHECK_THAT(netplan.out, Catch::Contains("        mode: active-backup\n        arp-interval: 100\n"));
  CHECK_THAT(netplan.out, Catch::Contains("        arp-validate: active\n"));

  // The lab pod is dual-ToR: no LACP partner spans its two ToRs.
  auto lacp = lab.profile("host-p0-s01-h002 --format netplan --bond-mode 802.3ad");
  CHECK(lacp.exit_code == 2);
  CHECK(lacp.out.empty());
  CHECK(lacp.err ==
        "hpnctl: transport.bond_mode 802.3ad cannot aggregate toward two independent ToRs (segment.dual_tor): "
        "each port of a NIC sees a different LACP partner, so the bond runs on one port; use balance-xor, "
        "or active-backup with ARP monitoring toward both gateways\n");

  auto env = lab.profile("host-p0-s01-h002 --format env --mtu 9000");
  REQUIRE(env.exit_code == 0);
  // The plain variables carry the cross-rail class (profile.json says whose).
  auto classes = nlohmann::json::parse(lab.profile("host-p0-s01-h002").out)["path_classes"];
  REQUIRE(classes[1]["class"] == "cross-rail");
  CHECK(classes[0]["ncclx_setting"] == "cross-rail");
  CHECK_THAT(env.out, Catch::Contains("\nNCCL_CTRAN_IB_MAX_QPS=" +
                                      std::to_string(classes[1]["dqplb"]["qps"].get<int>()) + "\n"));
  CHECK_THAT(env.out, Catch::Contains("\nNCCL_IB_HCA==bond1:1,bond2:1\n"));
}

TEST_CASE("profile/cli: wrong hosts and options exit 2 with one line") {
  LabPlan lab;
  auto typo = lab.profile("host-p0-s01-h02");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "hpnctl: no host 'host-p0-s01-h02' in " + (lab.plan / "blueprint.db").string() +
                        " (did you mean 'host-p0-s01-h002'?)\n");
  auto tor = lab.profile("tor-p0-s00-r1a");
  CHECK(tor.exit_code == 2);
  CHECK(tor.err == "hpnctl: tor-p0-s00-r1a is a tor, not a host\n");
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"", "name one HOST, or give --all -o DIR"},
           {"host-p0-s00-h000 --all -o x", "name one HOST, or give --all -o DIR"},
           {"--all", "--all writes every host's profile: give -o DIR"},
           {"--all -o x --nic-map ip.json", "--nic-map maps one host's ports: name the HOST, not --all"},
           {"host-p0-s00-h000 --format yaml", "--format must be json, networkd, netplan or env"},
           {"host-p0-s00-h000 --bond-mode lacp", "--bond-mode 'lacp': one of balance-xor, 802.3ad, active-backup"},
           {"host-p0-s00-h000 --mtu 100", "--mtu must be between 1280 and 9216"},
       }) {
    auto r = lab.profile(args);
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hpnctl: " + message + "\n");
    CHECK(r.out.empty());
  }
  auto missing = run_hpnctl("profile host-p0-s00-h000 --blueprint " + q(lab.dir / "nothing"), lab.dir.path());
  CHECK(missing.exit_code == 2);
}

TEST_CASE("profile/cli: --all writes every host, swaps the set in whole, the same bytes each time") {
  LabPlan lab;
  fs::path out = lab.dir / "profiles";
  auto first = lab.profile("--all -o " + q(out));
  REQUIRE(first.exit_code == 0);
  // Per host profile.json, 2 x (.netdev, .network, -ports.network), netplan,
  // sysctl.d, nccl.env, ncclx-topology = 11; 16 x 11 + index.json = 177.
  CHECK(first.out == "wrote 16 host profiles (177 files) to " + out.string() + "/\n");
  auto index = nlohmann::json::parse(read_file(out / "index.json"));
  CHECK(index["format"] == "hpnctl-host-profiles");
  REQUIRE(index["hosts"].size() == 16);
  for (const auto& host : index["hosts"]) {
    fs::path h = out / host.get<std::string>();
    for (const char* f : {"profile.json", "nccl.env", "ncclx-topology", "netplan/60-hpnctl.yaml",
                          "sysctl.d/90-hpnctl.conf", "networkd/10-bond1.netdev", "networkd/10-bond2.network",
                          "networkd/20-bond2-ports.network"}) {
      CHECK(fs::is_regular_file(h / f));
    }
    CHECK((fs::status(h / "netplan/60-hpnctl.yaml").permissions() & fs::perms::all) == fs::perms(0600));
  }
  auto before = tree(out);
  write_file(out / "host-p0-s00-h000" / "left-over", "from an older set");
  auto second = lab.profile("--all -o " + q(out));
  REQUIRE(second.exit_code == 0);
  CHECK((tree(out) == before));  // byte for byte, and the old set is gone whole
  // Nothing left beside it: no temporary directory.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(lab.dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"plan", "profiles"});
}

TEST_CASE("profile/cli: --all refuses a directory that is not a profile set") {
  LabPlan lab;
  fs::path out = lab.dir / "mine";
  fs::create_directories(out);
  write_file(out / "notes.txt", "keep me");
  auto r = lab.profile("--all -o " + q(out));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "hpnctl: " + out.string() + ": exists and is not an hpnctl profile set (no index.json); "
                 "refusing to replace it\n");
  CHECK(read_file(out / "notes.txt") == "keep me");
  CHECK(lab.profile("--all -o .").exit_code == 2);
}

TEST_CASE("profile/cli: --paths puts the measured source ports into the profile") {
  LabPlan lab;
  write_file(lab.dir / "paths.json", R"({"format": "hpnctl-paths", "version": 1, "hosts": {
      "host-p0-s00-h000": [{"bond": "bond1", "destination": "host-p0-s01-h000",
                            "udp_source_ports": [49153, 49152]}]}})");
  auto r = lab.profile("host-p0-s00-h000 --paths " + q(lab.dir / "paths.json"));
  REQUIRE(r.exit_code == 0);
  auto ports = nlohmann::json::parse(r.out)["disjoint_source_ports"];
  CHECK(ports["measured"] == true);
  CHECK(ports["destinations"][0]["udp_source_ports"] == nlohmann::json{49152, 49153});
  auto none = nlohmann::json::parse(lab.profile("host-p0-s00-h000").out)["disjoint_source_ports"];
  CHECK(none["measured"] == false);
  CHECK(none["note"] == "none measured: no paths file from the verify step was given");

  write_file(lab.dir / "bad.json", R"({"format": "hpnctl-paths", "version": 1, "hosts": {"nobody": []}})");
  auto bad = lab.profile("host-p0-s00-h000 --paths " + q(lab.dir / "bad.json"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: " + (lab.dir / "bad.json").string() + ": hosts.nobody: no such host in the blueprint\n");
}

}  // namespace

TEST_CASE("profile/cli: HOST -o DIR writes all of --all's files for that host, and the port names, all or nothing") {
  LabPlan lab;
  fs::path out = lab.dir / "h0";
  auto r = lab.profile("host-p0-s00-h000 -o " + q(out));
  REQUIRE(r.exit_code == 0);
  // --all's 11 files, 4 .link templates and the RDMA rules.
  CHECK(r.out == "wrote the profile of host-p0-s00-h000 (16 files) to " + out.string() + "/\n");
  CHECK(r.err == "hpnctl: note: no --nic-map: " + out.string() + "/link/*.link.in and " + out.string() +
                     "/udev/*.rules.in are templates; fill in their @placeholders@, or give the host's "
                     "`ip -j -d link` with --nic-map\n");
  fs::path all = lab.dir / "all";
  REQUIRE(lab.profile("--all -o " + q(all)).exit_code == 0);
  auto one = tree(out), every = tree(all / "host-p0-s00-h000");
  for (const auto& [name, content] : every) {
    INFO(name);
    REQUIRE(one.count(name));
    CHECK(one[name] == content);  // the same bytes as --all gives that host
  }
  CHECK(one.count("link/10-hpnctl-nic2p2.link.in"));
  CHECK(one.count("udev/60-hpnctl-rdma.rules.in"));

  // With the host's own `ip -j link`: real files, and the match in profile.json.
  nlohmann::json links = nlohmann::json::array();
  const char* names[] = {"enp59s0f0np0", "enp59s0f1np1", "enp94s0f0np0", "enp94s0f1np1"};
  for (int i = 0; i < 4; ++i) {
    links.push_back({{"ifname", names[i]}, {"link_type", "ether"}, {"address", fmt::format("02:aa:00:00:00:0{}", i + 1)}});
  }
  write_file(lab.dir / "ip.json", links.dump());
  auto mapped = lab.profile("host-p0-s00-h000 --nic-map " + q(lab.dir / "ip.json") + " -o " + q(out));
  REQUIRE(mapped.exit_code == 0);
  CHECK(mapped.err.empty());
  auto now = tree(out);
  CHECK_FALSE(now.count("link/10-hpnctl-nic2p2.link.in"));  // the old set is gone whole
  CHECK_THAT(now["link/10-hpnctl-nic2p2.link"], Catch::Contains("MACAddress=02:aa:00:00:00:04\n"));
  auto profile = nlohmann::json::parse(now["profile.json"]);
  CHECK(profile["bonds"][1]["members"][1]["match"]["ifname"] == "enp94s0f1np1");

  // Not onto something else, nor half-written on a bad map.
  fs::path mine = lab.dir / "mine";
  fs::create_directories(mine);
  write_file(mine / "notes.txt", "keep me");
  auto refused = lab.profile("host-p0-s00-h000 -o " + q(mine));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err == "hpnctl: " + mine.string() + ": exists and is not one host's hpnctl profile (no profile.json); "
                       "refusing to replace it\n");
  write_file(lab.dir / "short.json", nlohmann::json::array({links[0]}).dump());
  auto bad = lab.profile("host-p0-s00-h000 --nic-map " + q(lab.dir / "short.json") + " -o " + q(lab.dir / "new"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "hpnctl: " + (lab.dir / "short.json").string() +
                       ": the plan has 4 ports to map by order, and this host 1 Ethernet ports (enp59s0f0np0); map "
                       "them in a YAML file (nic1p1: IFNAME)\n");
  CHECK_FALSE(fs::exists(lab.dir / "new"));
  auto dir = lab.profile("host-p0-s00-h000 --nic-map " + q(lab.dir.path()));
  CHECK(dir.exit_code == 2);
  CHECK(dir.err == "hpnctl: " + lab.dir.path().string() + ": is a directory, not a NIC map\n");
}
