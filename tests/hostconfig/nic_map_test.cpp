// NIC maps (hostconfig/nic_map.h): a host's own `ip -j link` and `rdma -j
// link`, or a YAML mapping, onto the plan's nicNpM; the .link files and udev
// rules made from it, checked by udev's own parser and matcher
// (link_parse.sh) and netplan generate.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "hostconfig/nic_map.h"
#include "hostconfig/profile_files.h"
#include "hostconfig/profile_json.h"
#include "profile_fixture.h"
#include "test_util.h"

namespace {

using namespace hpn;
using namespace hpn::test;
using nlohmann::json;

const std::string kTestDir = HPN_PROFILE_TEST_DIR;

struct Ran {
  int exit_code = -1;
  std::string out;
};

Ran run(const std::string& command) {
  TempDir capture;
  std::string line = command + " >'" + (capture / "out").string() + "' 2>&1";
  int status = std::system(line.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(capture / "out")};
}

// A lab host: two back-end NICs, four ports.
HostProfile lab_host() {
  const Blueprint& bp = halls_fabric().blueprint;
  return builder_for(bp).build(device_index(bp, "host-p0-s00-h000"));
}

const std::vector<std::string> kPlanned = {"nic1p1", "nic1p2", "nic2p1", "nic2p2"};

json port(const std::string& name, const std::string& mac, const std::string& pci = "") {
  json j = {{"ifindex", 2}, {"ifname", name}, {"flags", {"BROADCAST", "MULTICAST"}}, {"mtu", 1500},
            {"operstate", "DOWN"}, {"link_type", "ether"}, {"address", mac}, {"broadcast", "ff:ff:ff:ff:ff:ff"}};
  if (!pci.empty()) {
    j["parentbus"] = "pci";
    j["parentdev"] = pci;
  }
  return j;
}

// `ip -j -d link` of a host with a 1G onboard port left out of the plan by
// a mapping, listed out of PCI order as the kernel numbers them.
std::string ip_link_d() {
  json lo = {{"ifindex", 1}, {"ifname", "lo"}, {"link_type", "loopback"}, {"address", "00:00:00:00:00:00"}};
  json bond = port("bond9", "aa:00:00:00:00:09");
  bond["linkinfo"] = {{"info_kind", "bond"}};
  json links = json::array({lo, port("enp94s0f1np1", "b8:ce:f6:00:00:04", "0000:5e:00.1"),
                            port("enp59s0f0np0", "b8:ce:f6:00:00:01", "0000:3b:00.0"), bond,
                            port("enp94s0f0np0", "b8:ce:f6:00:00:03", "0000:5e:00.0"),
                            port("enp59s0f1np1", "b8:ce:f6:00:00:02", "0000:3b:00.1")});
  return links.dump(1);
}

std::string rdma_link() {
  json links = json::array();
  const char* netdevs[] = {"enp59s0f0np0", "enp59s0f1np1", "enp94s0f0np0", "enp94s0f1np1"};
  for (int i = 0; i < 4; ++i) {
    links.push_back({{"ifindex", i}, {"ifname", fmt::format("mlx5_{}", i)}, {"port", 1}, {"state", "DOWN"},
                     {"physical_state", "DISABLED"}, {"netdev", netdevs[i]}, {"netdev_index", i + 2}});
  }
  return links.dump();
}

std::string error_of(const std::vector<std::pair<std::string, std::string>>& texts) {
  auto m = parse_nic_map(texts, kPlanned);
  REQUIRE_FALSE(m.ok());
  return m.error().message;
}

}  // namespace

TEST_CASE("profile/nic-map: ip -j -d link maps ports in PCI order, rdma -j link names their RDMA devices") {
  auto m = parse_nic_map({{"ip.json", ip_link_d()}, {"rdma.json", rdma_link()}}, kPlanned);
  REQUIRE(m.ok());
  REQUIRE(m->ports.size() == 4);
  const char* expect[][4] = {{"nic1p1", "enp59s0f0np0", "0000:3b:00.0", "mlx5_0"},
                             {"nic1p2", "enp59s0f1np1", "0000:3b:00.1", "mlx5_1"},
                             {"nic2p1", "enp94s0f0np0", "0000:5e:00.0", "mlx5_2"},
                             {"nic2p2", "enp94s0f1np1", "0000:5e:00.1", "mlx5_3"}};
  for (size_t i = 0; i < 4; ++i) {
    const NicPort& p = m->ports[i];
    CHECK(p.planned == expect[i][0]);
    CHECK(p.ifname == expect[i][1]);
    CHECK(p.pci == expect[i][2]);
    CHECK(p.rdma == expect[i][3]);
    CHECK(p.permanent);
    CHECK(p.how == "PCI order");
  }
}

TEST_CASE("profile/nic-map: plain ip -j link orders by the PCI path in the names, a mapping overrides") {
  json links = json::array({port("enp94s0f0np0", "02:00:00:00:00:03"), port("enp59s0f1np1", "02:00:00:00:00:02"),
                            port("enp94s0f1np1", "02:00:00:00:00:04"), port("enp59s0f0np0", "02:00:00:00:00:01")});
  auto m = parse_nic_map({{"ip.json", links.dump()}}, kPlanned);
  REQUIRE(m.ok());
  CHECK(m->find("nic1p1")->ifname == "enp59s0f0np0");
  CHECK(m->find("nic2p2")->ifname == "enp94s0f1np1");
  CHECK(m->find("nic1p1")->how == "PCI path in its name");
  CHECK_FALSE(m->find("nic1p1")->permanent);  // no PCI device: the MAC it has now

  // The cabling says nic1's ports are the other way round: a mapping of two
  // ports, the rest by order.
  auto swapped = parse_nic_map({{"ip.json", links.dump()}, {"map.yaml", "nic1p1: enp59s0f1np1\nnic1p2: {mac: 02:00:00:00:00:01}\n"}},
                               kPlanned);
  REQUIRE(swapped.ok());
  CHECK(swapped->find("nic1p1")->ifname == "enp59s0f1np1");
  CHECK(swapped->find("nic1p1")->mac == "02:00:00:00:00:02");
  CHECK(swapped->find("nic1p1")->how == "mapping");
  CHECK(swapped->find("nic1p2")->ifname == "enp59s0f0np0");
  CHECK(swapped->find("nic2p1")->ifname == "enp94s0f0np0");

  // A mapping alone, of every port.
  auto alone = parse_nic_map({{"map.yaml", "nic1p1: eth0\nnic1p2: eth1\nnic2p1: eth2\nnic2p2: {ifname: eth3, rdma: mlx5_bond_1}\n"}},
                             kPlanned);
  REQUIRE(alone.ok());
  CHECK(alone->find("nic2p2")->rdma == "mlx5_bond_1");
}

TEST_CASE("profile/nic-map: what cannot be mapped for sure is refused with the file and what is wrong") {
  json three = json::array({port("enp59s0f0np0", "02:00:00:00:00:01"), port("enp59s0f1np1", "02:00:00:00:00:02"),
                            port("enp94s0f0np0", "02:00:00:00:00:03")});
  CHECK(error_of({{"ip.json", three.dump()}}) ==
        "ip.json: the plan has 4 ports to map by order, and this host 3 Ethernet ports (enp59s0f0np0, enp59s0f1np1, "
        "enp94s0f0np0); map them in a YAML file (nic1p1: IFNAME)");
  json unordered = three;
  unordered.push_back(port("eth0", "02:00:00:00:00:04"));
  CHECK(error_of({{"ip.json", unordered.dump()}}) ==
        "ip.json: cannot order eth0: no PCI address (give `ip -j -d link`) and no PCI path in its name; map the ports "
        "in a YAML file instead");
  CHECK(error_of({{"m.yaml", "nic1p1: eth0\nnic9p1: eth1\n"}}) ==
        "m.yaml:2: 'nic9p1' is not a port of this host (it has nic1p1, nic1p2, nic2p1, nic2p2)");
  CHECK(error_of({{"m.yaml", "nic1p1: eth0\nnic1p2: eth0\nnic2p1: eth2\nnic2p2: eth3\n"}}) ==
        "m.yaml: nic1p1 and nic1p2 are both mapped to eth0");
  CHECK(error_of({{"m.yaml", "nic1p1: {mac: zz}\n"}}) == "m.yaml:1: nic1p1: 'zz' is not a MAC address");
  CHECK(error_of({{"m.yaml", "nic1p1: eth0\n"}}) ==
        "m.yaml: nic1p2, nic2p1, nic2p2 not mapped, and no `ip -j link` output to map them by order");
  CHECK(error_of({{"b.bin", std::string("\x7f" "ELF\0\1", 6)}}) == "b.bin: binary content, not a NIC map");
  CHECK(error_of({{"j.json", "[{\"ifname\": 3"}}).rfind("j.json: byte ", 0) == 0);
  CHECK(error_of({{"j.json", "[{\"a\": 1}]"}}) == "j.json: a JSON list, but neither `ip -j link` nor `rdma -j link` output");
  // Longer than IFNAMSIZ allows: refused before its digits are read.
  json huge = json::array({port("enP99999999999999999999p1s0", "02:00:00:00:00:01")});
  CHECK(error_of({{"ip.json", huge.dump()}}) == "ip.json: /0/ifname: 'enP99999999999999999999p1s0' is not an interface name");
  // A domain needs its P: "en12p3s0" is no PCI path, so it cannot be ordered.
  json no_p = json::array({port("en12p3s0", "02:00:00:00:00:01")});
  CHECK(error_of({{"ip.json", no_p.dump()}}).find("cannot order en12p3s0") != std::string::npos);
  json bad = json::array({port("a/b", "02:00:00:00:00:01")});
  CHECK(error_of({{"ip.json", bad.dump()}}) == "ip.json: /0/ifname: 'a/b' is not an interface name");
  CHECK(error_of({{"m.yaml", "nic1p1: \"\\e[31mred\"\n"}}) ==
        "m.yaml:1: nic1p1: '\\x1b[31mred' is not an interface name hpnctl writes: names may hold letters, digits, "
        "'-', '_' and '.' only");
}

TEST_CASE("profile/nic-map: the .link files and RDMA rules name what the map found, templates without one") {
  HostProfile p = lab_host();
  REQUIRE(planned_ports(p) == kPlanned);
  {
    auto files = link_files(p);
    REQUIRE(files.size() == 5);
    CHECK(files[0].path == "link/10-hpnctl-nic1p1.link.in");
    CHECK_THAT(files[0].content, Catch::Contains("PermanentMACAddress=@nic1p1-mac@"));
    CHECK_THAT(files[0].content, Catch::Contains("# TEMPLATE"));
    CHECK(files[4].path == "udev/60-hpnctl-rdma.rules.in");
    CHECK(link_files_are_templates(p));
  }
  auto m = parse_nic_map({{"ip.json", ip_link_d()}, {"rdma.json", rdma_link()}}, kPlanned);
  REQUIRE(m.ok());
  apply_nic_map(p, m.value());
  CHECK_FALSE(link_files_are_templates(p));
  auto files = link_files(p);
  REQUIRE(files.size() == 5);
  CHECK(files[2].path == "link/10-hpnctl-nic2p1.link");
  CHECK_THAT(files[2].content, Catch::EndsWith("\n[Match]\nPermanentMACAddress=b8:ce:f6:00:00:03\n\n[Link]\nName=nic2p1\n"
                                               "AlternativeName=enp94s0f0np0\n"));
  CHECK(files[4].path == "udev/60-hpnctl-rdma.rules");
  // One rule per back-end bond, on its NIC's first PCI function, to the
  // device NCCL_IB_HCA names.
  CHECK_THAT(files[4].content, Catch::Contains("ACTION==\"add\", SUBSYSTEM==\"infiniband\", KERNELS==\"0000:3b:00.0\", "
                                               "PROGRAM=\"rdma_rename %k NAME_FIXED bond1\"\n"));
  CHECK_THAT(files[4].content, Catch::Contains("KERNELS==\"0000:5e:00.0\", PROGRAM=\"rdma_rename %k NAME_FIXED bond2\""));
  CHECK_THAT(nccl_env(p), Catch::Contains("NCCL_IB_HCA==bond1:1,bond2:1"));
  // profile.json carries the match for host apply.
  json j = json::parse(profile_json(p).dump());
  CHECK_FALSE(check_profile_shape(j));  // the one description has the match too
  CHECK(j["bonds"][0]["members"][1]["match"] ==
        json({{"ifname", "enp59s0f1np1"}, {"mac", "b8:ce:f6:00:00:02"}, {"pci", "0000:3b:00.1"}, {"rdma", "mlx5_1"},
              {"by", "PCI order"}}));
  TempDir dir;
  write_file(dir / "profile.json", profile_json(p).dump(2));
  Ran valid = run(std::string(HPN_SCHEMA_PYTHON) + " '" + kTestDir + "/validate_profiles.py' '" +
                  source_path("schemas/host-profile.schema.json").string() + "' '" + (dir / "profile.json").string() + "'");
  INFO(valid.out);
  CHECK(valid.exit_code == 0);
}

TEST_CASE("profile/nic-map: udev's own parser takes the .link files and names every port as planned") {
  // The lab host's ports as veths named and addressed as the map saw them.
  json links = json::array({port("enp59s0f0np0", "02:aa:00:00:00:01"), port("enp59s0f1np1", "02:aa:00:00:00:02"),
                            port("enp94s0f0np0", "02:aa:00:00:00:03"), port("enp94s0f1np1", "02:aa:00:00:00:04")});
  auto m = parse_nic_map({{"ip.json", links.dump()}}, kPlanned);
  REQUIRE(m.ok());
  HostProfile p = lab_host();
  apply_nic_map(p, m.value());
  TempDir dir;
  std::string args;
  for (const auto& f : link_files(p)) {
    if (f.path.rfind("link/", 0) == 0) write_file(dir / f.path.substr(5), f.content);
  }
  for (const auto& port : m->ports) args += " " + port.ifname + "=" + port.mac;
  Ran r = run("'" + kTestDir + "/link_parse.sh' '" + dir.path().string() + "'" + args);
  if (r.exit_code == 77) skip("udev cannot run here: " + r.out);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  for (const auto& port : m->ports) {
    CHECK_THAT(r.out, Catch::Contains(fmt::format("{} -> {} (/etc/systemd/network/10-hpnctl-{}.link)", port.ifname,
                                                  port.planned, port.planned)));
  }
  // The negative control: a key udev does not know is reported.
  write_file(dir / "10-hpnctl-nic1p1.link", read_file(dir / "10-hpnctl-nic1p1.link") + "Frobnicate=yes\n");
  Ran bad = run("'" + kTestDir + "/link_parse.sh' '" + dir.path().string() + "'" + args);
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.out, Catch::Contains("Unknown key 'Frobnicate'"));
}

TEST_CASE("profile/nic-map: netplan generate takes the mapped YAML and names the ports itself") {
  if (run("command -v netplan").exit_code != 0) skip("netplan is not installed (Debian package netplan.io)");
  auto m = parse_nic_map({{"ip.json", ip_link_d()}}, kPlanned);
  REQUIRE(m.ok());
  HostProfile p = lab_host();
  apply_nic_map(p, m.value());
  TempDir root;
  std::filesystem::create_directories(root / "etc/netplan");
  write_file(root / "etc/netplan/60-hpnctl.yaml", netplan_yaml(p));
  std::filesystem::permissions(root / "etc/netplan/60-hpnctl.yaml", std::filesystem::perms(0600));
  Ran r = run("netplan generate --root-dir '" + root.path().string() + "'");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  const std::string link = read_file(root / "run/systemd/network/10-netplan-nic2p1.link");
  CHECK_THAT(link, Catch::Contains("MACAddress=b8:ce:f6:00:00:03"));
  CHECK_THAT(link, Catch::Contains("Name=nic2p1"));
}

namespace {

// The lines of the [Match] section of a .link file.
std::vector<std::string> match_section(const std::string& link) {
  std::vector<std::string> lines;
  std::istringstream in(link);
  std::string line;
  bool in_match = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') in_match = line == "[Match]";
    else if (in_match && !line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

}  // namespace

// A map in the documented form "nic1p1: enp59s0f0np0" gave a file whose
// [Match] was an empty MACAddress= (which resets the list): no condition.
// systemd.link(5) as older systemd has it makes such a file match every
// interface (every NIC, management too, renamed nic1p1); Debian 12's udev
// (systemd 252) ignores it with "No valid settings found in the [Match]
// section", so the port is never named. udev's own parser and matcher
// (link_parse.sh) are the check: no complaint, each port named, and an
// interface the map does not name left as it is.
TEST_CASE("profile/nic-map: a map that gives only names matches each port by its name, and nothing else") {
  const std::string yaml = "nic1p1: enp59s0f0np0\nnic1p2: enp59s0f1np1\nnic2p1: enp94s0f0np0\nnic2p2: enp94s0f1np1\n";
  auto m = parse_nic_map({{"m.yaml", yaml}}, kPlanned);
  REQUIRE(m.ok());
  HostProfile p = lab_host();
  apply_nic_map(p, m.value());
  TempDir dir;
  for (const auto& f : link_files(p)) {
    if (f.path.rfind("link/", 0) != 0) continue;
    INFO(f.path << ":\n" << f.content);
    const auto match = match_section(f.content);
    REQUIRE(match.size() == 1);
    CHECK(match[0].rfind("OriginalName=enp", 0) == 0);
    write_file(dir / f.path.substr(5), f.content);
  }
  CHECK_THAT(link_files(p)[0].content, Catch::Contains("\n[Match]\nOriginalName=enp59s0f0np0\n\n[Link]\nName=nic1p1\n"));
  // netplan names them the same way.
  CHECK_THAT(netplan_yaml(p), Catch::Contains("      match:\n        name: \"enp59s0f0np0\"\n      set-name: nic1p1\n"));
  // udev's own matcher: the four ports get their planned names, an
  // interface the map does not name (the management port) keeps its own.
  std::string args;
  for (size_t i = 0; i < m->ports.size(); ++i) args += fmt::format(" {}=02:bb:00:00:00:{:02x}", m->ports[i].ifname, i + 1);
  args += " mgmt0=02:bb:00:00:00:99";
  Ran r = run("'" + kTestDir + "/link_parse.sh' '" + dir.path().string() + "'" + args);
  if (r.exit_code == 77) skip("udev cannot run here: " + r.out);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  for (const auto& port : m->ports) {
    CHECK_THAT(r.out, Catch::Contains(fmt::format("{} -> {} (/etc/systemd/network/10-hpnctl-{}.link)", port.ifname,
                                                  port.planned, port.planned)));
  }
  const size_t at = r.out.find("mgmt0 -> ");
  REQUIRE(at != std::string::npos);
  const std::string mgmt = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK(mgmt.find("nic") == std::string::npos);
  CHECK(mgmt.find("10-hpnctl") == std::string::npos);
}

// Names from a map land in udev rules (KERNEL=="...", a glob; PROGRAM="...",
// with %/$ substitution), .link files and netplan: anything but a safe name
// (blueprint/names.h) is refused where it stands in the map.
TEST_CASE("profile/nic-map: a name that would inject into a udev rule or a .link file is refused, located") {
  CHECK(error_of({{"m.yaml", "nic1p1: {ifname: enp59s0f0np0, rdma: 'm*\",GOTO=\"z'}\n"}}) ==
        "m.yaml:1: nic1p1: 'm*\",GOTO=\"z' is not an RDMA device name hpnctl writes: names may hold letters, digits, "
        "'-', '_' and '.' only");
  CHECK(error_of({{"m.yaml", "nic1p1: eth0\nnic1p2: 'e$(reboot)'\n"}}) ==
        "m.yaml:2: nic1p2: 'e$(reboot)' is not an interface name hpnctl writes: names may hold letters, digits, '-', "
        "'_' and '.' only");
  CHECK(error_of({{"m.yaml", "nic1p1: '1234'\n"}}) ==
        "m.yaml:1: nic1p1: '1234' is not an interface name hpnctl writes: an interface name is not digits alone");
  json star = json::array({port("enp*", "02:00:00:00:00:01")});
  CHECK(error_of({{"ip.json", star.dump()}}) ==
        "ip.json: /0/ifname: 'enp*': hpnctl does not write this name into .link files and udev rules: names may hold "
        "letters, digits, '-', '_' and '.' only; map the port by its MAC in a YAML file instead");
  json rdma = json::array({{{"ifindex", 0}, {"ifname", "mlx5_`id`"}, {"port", 1}, {"netdev", "enp59s0f0np0"}}});
  CHECK(error_of({{"rdma.json", rdma.dump()}}) ==
        "rdma.json: /0: 'mlx5_`id`' on 'enp59s0f0np0' is not an RDMA device on an interface");
}
