// The generated files, checked by the tools that read them: systemd-networkd's
// own parser (run in private namespaces, see networkd_parse.sh), netplan
// generate, and python3-jsonschema for profile.json.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "hostconfig/profile_files.h"
#include "hostconfig/profile_json.h"
#include "hostconfig/profile_output.h"
#include "profile_fixture.h"
#include "test_util.h"

namespace {

using namespace hpn;
using namespace hpn::test;

const std::string kTestDir = HPN_PROFILE_TEST_DIR;

struct Ran {
  int exit_code = -1;
  std::string out, err;
};

Ran run(const std::string& command) {
  TempDir capture;
  std::string line = command + " >'" + (capture / "out").string() + "' 2>'" + (capture / "err").string() + "'";
  int status = std::system(line.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(capture / "out"), read_file(capture / "err")};
}

void write_files(const std::vector<ProfileFile>& files, const fs::path& dir) {
  for (const auto& f : files) {
    fs::create_directories((dir / f.path).parent_path());
    write_file(dir / f.path, f.content);
    fs::permissions(dir / f.path, static_cast<fs::perms>(f.mode));
  }
}

std::vector<std::pair<std::string, HostProfile>> profiles_in_every_mode() {
  std::vector<std::pair<std::string, HostProfile>> out;
  for (auto [name, mode] : {std::pair{"balance-xor", BondMode::balance_xor}, {"802.3ad", BondMode::lacp},
                            {"active-backup", BondMode::active_backup}}) {
    // With a front-end bond; 802.3ad only where both ports go to one ToR.
    const Blueprint& bp = (mode == BondMode::lacp ? single_tor_pod() : default_pod()).blueprint;
    const char* host = mode == BondMode::lacp ? "host-p0-s09-h060" : "host-p0-s09-h130";
    out.push_back({name, builder_for(bp, {mode, std::nullopt, nullptr}).build(device_index(bp, host))});
  }
  return out;
}

TEST_CASE("profile/formats: systemd-networkd's own parser accepts every file, in every bond mode") {
  for (const auto& [mode, profile] : profiles_in_every_mode()) {
    TempDir dir;
    write_files(networkd_files(profile), dir.path());
    Ran r = run("'" + kTestDir + "/networkd_parse.sh' '" + (dir / "networkd").string() + "'");
    if (r.exit_code == 77) {
      hpn::test::skip(std::string("systemd-networkd cannot run here: ") + r.out);
    }
    INFO(mode << ":\n" << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
  }
}

TEST_CASE("profile/formats: the networkd check does report a key networkd does not know") {
  // The negative control: without it, a parser that never complains would pass.
  HostProfile p = profiles_in_every_mode().front().second;
  TempDir dir;
  auto files = networkd_files(p);
  for (auto& f : files) {
    if (f.path == "networkd/10-bond1.netdev") f.content += "ARPIPTarget=10.0.0.1\n";
    if (f.path == "networkd/10-bond1.network") f.content += "\n[Route]\nMultiPathRoute=nowhere@bond1\n";
  }
  write_files(files, dir.path());
  Ran r = run("'" + kTestDir + "/networkd_parse.sh' '" + (dir / "networkd").string() + "'");
  if (r.exit_code == 77) {
    hpn::test::skip(std::string("systemd-networkd cannot run here: ") + r.out);
  }
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("10-bond1.netdev") && Catch::Contains("Unknown key 'ARPIPTarget'"));
  CHECK_THAT(r.out, Catch::Contains("10-bond1.network") && Catch::Contains("nowhere"));
}

TEST_CASE("profile/formats: netplan generate accepts the YAML and renders both ToR gateways") {
  if (run("command -v netplan").exit_code != 0) {
    hpn::test::skip("netplan is not installed (Debian package netplan.io)");
  }
  for (const auto& [mode, profile] : profiles_in_every_mode()) {
    INFO(mode);
    TempDir root;
    fs::create_directories(root / "etc/netplan");
    write_file(root / "etc/netplan/60-hpnctl.yaml", netplan_yaml(profile));
    fs::permissions(root / "etc/netplan/60-hpnctl.yaml", fs::perms(0600));
    Ran r = run("netplan generate --root-dir '" + root.path().string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    const Bond& b = profile.bonds.at(1);
    REQUIRE(b.name == "bond1");
    std::string netdev = read_file(root / "run/systemd/network/10-netplan-bond1.netdev");
    std::string network = read_file(root / "run/systemd/network/10-netplan-bond1.network");
    CHECK_THAT(netdev, Catch::Contains("Mode=" + std::string(to_string(b.mode))));
    CHECK_THAT(netdev, Catch::Contains("MACAddress=" + to_string(b.mac)));
    CHECK_THAT(netdev, Catch::Contains("MTUBytes=4200"));
    if (b.mode == BondMode::lacp) {
      CHECK_THAT(netdev, Catch::Contains("MIIMonitorSec=100ms"));
      CHECK_THAT(netdev, !Catch::Contains("ARPIntervalSec"));
    } else {
      CHECK_THAT(netdev, Catch::Contains("ARPIPTargets=" + b.members[0].gateway_ipv4 + " " +
                                         b.members[1].gateway_ipv4));
      CHECK_THAT(netdev, Catch::Contains(b.mode == BondMode::active_backup ? "ARPValidate=active\n" : "ARPValidate=all\n"));
    }
    for (const auto& m : b.members) {
      CHECK_THAT(network, Catch::Contains("Gateway=" + m.gateway_ipv4));
      CHECK_THAT(network, Catch::Contains("Gateway=" + m.gateway_ipv6));
      std::string member = read_file(root / ("run/systemd/network/10-netplan-" + m.port + ".network"));
      CHECK_THAT(member, Catch::Contains("Bond=bond1"));
    }
    CHECK_THAT(network, Catch::Contains("Table=1001"));
    CHECK_THAT(network, Catch::Contains("From=" + b.ipv4->address + "/32"));
  }
}

std::string validate(const std::string& args) {
  Ran r = run(std::string(HPN_SCHEMA_PYTHON) + " '" + kTestDir + "/validate_profiles.py' '" +
              source_path("schemas/host-profile.schema.json").string() + "' " + args);
  return std::to_string(r.exit_code) + "\n" + r.out + r.err;
}

TEST_CASE("profile/formats: every profile.json validates against schemas/host-profile.schema.json") {
  TempDir dir;
  auto written = write_profiles(builder_for(halls_fabric().blueprint), (dir / "halls").string());
  REQUIRE(written.ok());
  CHECK(written->hosts == 48);
  std::string files = "'" + (dir / "halls").string() + "'/*/profile.json";
  for (const auto& [mode, profile] : profiles_in_every_mode()) {
    write_file(dir / (mode + ".json"), profile_json(profile).dump(2));
    files += " '" + (dir / (mode + ".json")).string() + "'";
  }
  CHECK(validate(files) == "0\n");
}

TEST_CASE("profile/formats: the schema rejects what hpnctl must never write") {
  const Blueprint& bp = default_pod().blueprint;
  nlohmann::ordered_json good = profile_json(builder_for(bp).build(device_index(bp, "host-p0-s00-h000")));
  std::vector<std::function<void(nlohmann::ordered_json&)>> mutations{
      [](auto& j) { j["path_classes"][0]["dqplb"]["qps"] = 129; },        // over NCCLX's QP cap
      [](auto& j) { j["path_classes"][1]["dqplb"]["max_msgs"] = 257; },   // over its message cap
      [](auto& j) { j["env"]["NCCL_CTRAN_IB_QP_CONFIG_XRACK"] = "32768,16,fast,2"; },
      [](auto& j) { j["env"]["NCCL_CTRAN_IB_MAX_QPS"] = "200"; },
      [](auto& j) { j["env"]["NCCL_IB_HCA"] = "=bond1:1 bond2:1"; },      // a space breaks EnvironmentFile=
      [](auto& j) { j["bonds"][1]["mode"] = "802.3ad"; j["bonds"][1]["lacp_rate"] = "fast"; },  // ARP in 802.3ad
      [](auto& j) { j["bonds"][1]["mac"] = "00:1b:21:00:00:01"; },        // a vendor (global) MAC
      [](auto& j) { j["bonds"][1]["monitor"]["arp_ip_targets"] = nlohmann::json::array(); },
      [](auto& j) { j["ncclx_topology"]["rtsw"] = "tor-p0-s00-r1a"; },    // NCCLX refuses su and rtsw both
      [](auto& j) { j["disjoint_source_ports"]["measured"] = true; },     // measured, but no destinations
      [](auto& j) { j["bonds"][1]["routes"][0]["via"][0] = "fd48::1"; },  // an IPv6 next hop for IPv4
  };
  TempDir dir;
  std::string files;
  for (size_t i = 0; i < mutations.size(); ++i) {
    auto j = good;
    mutations[i](j);
    fs::path f = dir / ("bad-" + std::to_string(i) + ".json");
    write_file(f, j.dump());
    files += " '" + f.string() + "'";
  }
  write_file(dir / "good.json", good.dump());
  CHECK(validate("'" + (dir / "good.json").string() + "'") == "0\n");
  CHECK(validate("--expect-invalid" + files) == "0\n");
}

}  // namespace
