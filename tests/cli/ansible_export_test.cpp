// hpnctl export ansible: the inventory writer on a blueprint built by hand
// (byte for byte), and the real binary's inventory of real plans read back
// by Ansible itself (ansible-inventory --list, ansible --list-hosts) and
// compared with what blueprint.db says, queried with SQLite.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "blueprint/export_ansible.h"
#include "planned_pod.h"
#include "support/sqlite.h"
#include "test_util.h"

namespace {

using namespace hpn::test;
using nlohmann::json;
using Names = std::set<std::string>;


// The first column of a query on blueprint.db, as a set.
Names column(const fs::path& db_path, const std::string& sql) {
  Names out;
  for (const auto& row : sql_rows(db_path, sql)) out.insert(row.at(0));
  return out;
}

void need_ansible() {
  if (std::system("command -v ansible-inventory >/dev/null 2>&1") != 0) {
    skip("ansible-inventory is missing (Debian ansible-core; tools/deps.sh installs it)");
  }
}

// `ansible-inventory -i DIR --list`, parsed; no warning on stderr.
json inventory_list(const fs::path& dir) {
  TempDir scratch;
  RunResult r = run_command("ANSIBLE_LOCAL_TEMP=" + q(scratch.path()) + " ansible-inventory -i " + q(dir) +
                            " --list 2>" + q(scratch / "err"));
  std::string err = read_file(scratch / "err");
  INFO("ansible-inventory: " << err);
  REQUIRE(r.exit_code == 0);
  CHECK(err.empty());
  return json::parse(r.out);
}

Names group(const json& list, const std::string& name) {
  Names out;
  if (list.contains(name)) {
    for (const auto& h : list[name].value("hosts", json::array())) out.insert(h.get<std::string>());
  }
  return out;
}

// The hosts Ansible runs on for `--limit PATTERN`, as `ansible --list-hosts` prints them.
Names limited(const fs::path& dir, const std::string& pattern) {
  TempDir scratch;
  RunResult r = run_command("ANSIBLE_LOCAL_TEMP=" + q(scratch.path()) + " ansible all -i " + q(dir) +
                            " --limit " + q(pattern) + " --list-hosts 2>&1");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  Names out;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);  // "  hosts (N):"
  while (std::getline(in, line)) out.insert(line.substr(line.find_first_not_of(' ')));
  return out;
}


// Two hosts (one a backup) in one rack, a ToR and a core switch in another.
hpn::Blueprint small_blueprint() {
  using namespace hpn;
  Blueprint bp;
  bp.spec_name = "tiny";
  bp.tool_version = "9.9.9";
  bp.racks = {{"H0-R00-00", 0, 0, 0, "hosts"}, {"H0-R00-01", 0, 0, 1, "network"}, {"H0-R09-00", 0, 9, 0, "core"}};
  auto device = [](std::string name, Role role, int pod, int segment, int plane, int rail, int rack) {
    Device d;
    d.name = std::move(name);
    d.role = role;
    d.pod = pod;
    d.segment = segment;
    d.plane = plane;
    d.rail = rail;
    d.rack = rack;
    return d;
  };
  bp.devices = {device("host-a", Role::host, 0, 0, kNone, kNone, 0),
                device("host-b", Role::host, 0, 0, kNone, kNone, 0),
                device("tor-1a", Role::tor, 0, 0, 1, 1, 1),
                device("core-1-00", Role::core, kNone, kNone, 1, kNone, 2)};
  bp.interfaces = {{0, "bond1", InterfacePurpose::host, 1, "10.0.0.16", 24, "", 0, ""},
                   {0, "bond0", InterfacePurpose::host, 0, "10.16.0.16", 25, "", 0, ""},
                   {1, "bond0", InterfacePurpose::host, 0, "10.16.0.17", 25, "", 0, ""},
                   {2, "Vlan1000", InterfacePurpose::gateway, kNone, "10.0.0.1", 24, "", 0, ""},
                   {2, "Loopback0", InterfacePurpose::loopback, kNone, "10.255.0.2", 32, "", 0, ""},
                   {3, "Loopback0", InterfacePurpose::loopback, kNone, "10.255.0.1", 32, "", 0, ""}};
  return bp;
}

}  // namespace

TEST_CASE("ansible/inventory: a small blueprint's groups and variables, byte for byte", "[ansible]") {
  auto inventory = hpn::build_inventory(small_blueprint());
  REQUIRE(inventory);
  std::ostringstream out;
  hpn::write_inventory_yaml(*inventory, out);
  CHECK(out.str() ==
        "# Ansible inventory of the plan 'tiny', written by hpnctl 9.9.9 (hpnctl export ansible).\n"
        "# ansible_host: a host's front-end address (bond0), a switch's Loopback0.\n"
        "# hpn_profile: the host's profile as `hpnctl profile --all -o profiles` writes it.\n"
        "# Groups: role_*, pod_P, segment_P_S, plane_N, rail_R, rack_*; see hpnctl-export(1).\n"
        "all:\n"
        "  children:\n"
        "    role_host:\n"
        "      hosts:\n"
        "        host-a:\n"
        "          ansible_host: 10.16.0.16\n"
        "          hpn_profile: profiles/host-a/profile.json\n"
        "        host-b:\n"
        "          ansible_host: 10.16.0.17\n"
        "          hpn_profile: profiles/host-b/profile.json\n"
        "    role_tor:\n"
        "      hosts:\n"
        "        tor-1a:\n"
        "          ansible_host: 10.255.0.2\n"
        "    role_core:\n"
        "      hosts:\n"
        "        core-1-00:\n"
        "          ansible_host: 10.255.0.1\n"
        "    pod_0:\n"
        "      hosts:\n"
        "        host-a:\n"
        "        host-b:\n"
        "        tor-1a:\n"
        "    segment_0_0:\n"
        "      hosts:\n"
        "        host-a:\n"
        "        host-b:\n"
        "        tor-1a:\n"
        "    plane_1:\n"
        "      hosts:\n"
        "        tor-1a:\n"
        "        core-1-00:\n"
        "    rail_1:\n"
        "      hosts:\n"
        "        tor-1a:\n"
        "    rack_H0_R00_00:\n"
        "      hosts:\n"
        "        host-a:\n"
        "        host-b:\n"
        "    rack_H0_R00_01:\n"
        "      hosts:\n"
        "        tor-1a:\n"
        "    rack_H0_R09_00:\n"
        "      hosts:\n"
        "        core-1-00:\n");
}

TEST_CASE("ansible/inventory: group names keep letters, digits and '_', and two racks never share one",
          "[ansible]") {
  CHECK(hpn::ansible_group_name("rack", "H0-R02-05") == "rack_H0_R02_05");
  CHECK(hpn::ansible_group_name("rack", "hall 1/row.2") == "rack_hall_1_row_2");
  hpn::Blueprint bp = small_blueprint();
  bp.racks[1].name = "H0_R00.00";  // the group of H0-R00-00 too
  auto inventory = hpn::build_inventory(bp);
  REQUIRE_FALSE(inventory);
  CHECK(inventory.error().message ==
        "racks 'H0-R00-00' and 'H0_R00.00' would both be Ansible group 'rack_H0_R00_00'; name racks apart by "
        "letters, digits and '_'");
}

TEST_CASE("ansible/export: the default pod's inventory read by ansible-inventory, 2040 hosts and 480 switches",
          "[ansible][default-pod]") {
  need_ansible();
  Planned pod("");
  const fs::path out = pod.dir / "inventory";
  RunResult r = pod.run("export ansible -o " + q(out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json list = inventory_list(out);
  const fs::path db = pod.db();

  // Every device once, each role group what blueprint.db has of that role.
  CHECK(list["_meta"]["hostvars"].size() == 2520);
  CHECK(group(list, "role_host").size() == 2040);
  CHECK(group(list, "role_tor").size() + group(list, "role_agg").size() + group(list, "role_core").size() +
            group(list, "role_frontend").size() == 480);
  for (const char* role : {"host", "tor", "agg", "core", "frontend"}) {
    INFO(role);
    CHECK(group(list, std::string("role_") + role) ==
          column(db, std::string("SELECT name FROM devices WHERE role = '") + role + "'"));
  }
  CHECK(group(list, "role_tor").size() == 240);
  CHECK(group(list, "role_agg").size() == 120);
  CHECK(group(list, "role_core").size() == 60);
  CHECK(group(list, "role_frontend").size() == 60);

  // Pod, segments, planes and rails as the plan places the devices.
  CHECK(group(list, "pod_0") == column(db, "SELECT name FROM devices WHERE pod = 0"));
  CHECK(group(list, "pod_0").size() == 2040 + 240 + 120 + 60);  // core switches join pods, belong to none
  for (int s = 0; s < 15; ++s) {
    INFO("segment " << s);
    Names segment = group(list, "segment_0_" + std::to_string(s));
    CHECK(segment == column(db, "SELECT name FROM devices WHERE pod = 0 AND segment = " + std::to_string(s)));
    CHECK(segment.size() == 136 + 16 + 4);  // hosts, ToRs, front-end leaves
  }
  CHECK_FALSE(list.contains("segment_0_15"));
  for (int plane = 1; plane <= 2; ++plane) {
    CHECK(group(list, "plane_" + std::to_string(plane)) ==
          column(db, "SELECT name FROM devices WHERE plane = " + std::to_string(plane)));
  }
  for (int rail = 1; rail <= 8; ++rail) {
    Names tors = group(list, "rail_" + std::to_string(rail));
    CHECK(tors == column(db, "SELECT name FROM devices WHERE role = 'tor' AND rail = " + std::to_string(rail)));
    CHECK(tors.size() == 30);
  }

  // Every rack a group of exactly its devices; --limit of one picks those.
  Names racks = column(db, "SELECT DISTINCT rack FROM devices");
  // 5 roles, 1 pod, 15 segments, 2 planes, 8 rails and the racks.
  CHECK(r.out == "wrote the inventory of 2040 hosts and 480 switches in " + std::to_string(31 + racks.size()) +
                     " groups to " + out.string() + "/\n");
  for (const std::string& rack : racks) {
    std::string name = hpn::ansible_group_name("rack", rack);
    INFO(rack);
    CHECK(group(list, name) == column(db, "SELECT name FROM devices WHERE rack = '" + rack + "'"));
  }
  REQUIRE(racks.count("H0-R02-05") == 1);
  Names rack = column(db, "SELECT name FROM devices WHERE rack = 'H0-R02-05'");
  CHECK(limited(out, "rack_H0_R02_05") == rack);
  CHECK(rack.size() == 4);

  // ansible_host: a host's front-end bond, a switch's loopback.
  const json& vars = list["_meta"]["hostvars"];
  Names hosts_at = column(db,
                          "SELECT d.name || ' ' || i.ipv4 FROM devices d JOIN interfaces i ON i.device = d.name "
                          "WHERE (d.role = 'host' AND i.nic = 0) OR (d.role != 'host' AND i.purpose = 'loopback')");
  Names exported;
  for (const auto& [name, v] : vars.items()) exported.insert(name + " " + v.value("ansible_host", std::string("-")));
  CHECK(exported == hosts_at);
  CHECK(vars["host-p0-s03-h005"]["hpn_profile"] == "profiles/host-p0-s03-h005/profile.json");
  CHECK_FALSE(vars["tor-p0-s03-r4a"].contains("hpn_profile"));
}

TEST_CASE("ansible/export: hpn_profile names the file hpnctl profile --all writes for the host", "[ansible]") {
  need_ansible();
  Planned lab(q(source_path("examples/lab-pod.yaml")));
  RunResult profiles = lab.run("profile --all -o profiles");
  INFO(profiles.err);
  REQUIRE(profiles.exit_code == 0);
  REQUIRE(lab.run("export ansible -o inventory").exit_code == 0);
  const json list = inventory_list(lab.dir / "inventory");
  const Names hosts = group(list, "role_host");
  CHECK(hosts == column(lab.db(), "SELECT name FROM devices WHERE role = 'host'"));
  for (const std::string& host : hosts) {
    const json& v = list["_meta"]["hostvars"][host];
    INFO(host);
    REQUIRE(v.contains("hpn_profile"));
    const fs::path profile = lab.dir / v["hpn_profile"].get<std::string>();
    REQUIRE(fs::exists(profile));
    CHECK(json::parse(read_file(profile))["host"] == host);
    // The lab pod has no front-end NIC: Ansible is left to reach hosts by name.
    CHECK_FALSE(v.contains("ansible_host"));
  }
}

TEST_CASE("ansible/export: the same plan gives the same bytes, and an inventory replaces its own", "[ansible]") {
  Planned lab(q(source_path("examples/lab-pod.yaml")));
  REQUIRE(lab.run("export ansible -o a").exit_code == 0);
  REQUIRE(lab.run("export ansible --format ansible -o b").exit_code == 0);
  const std::string first = read_file(lab.dir / "a" / "hosts.yml");
  CHECK_FALSE(first.empty());
  CHECK(first == read_file(lab.dir / "b" / "hosts.yml"));
  CHECK(read_file(lab.dir / "a" / ".hpnctl-inventory.json") == read_file(lab.dir / "b" / ".hpnctl-inventory.json"));
  auto index = json::parse(read_file(lab.dir / "a" / ".hpnctl-inventory.json"));
  CHECK(index["format"] == "hpnctl-ansible-inventory");
  CHECK(index["hosts"] == 16);
  write_file(lab.dir / "a" / "hosts.yml", "stale\n");
  RunResult again = lab.run("export ansible -o a");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(lab.dir / "a" / "hosts.yml") == first);
  // Nothing is left beside it: the staging directory is gone.
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(lab.dir.path())) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"a", "b", "plan"});
}

TEST_CASE("ansible/export: bad input exits 2 with one located line and writes nothing", "[ansible][errors]") {
  Planned lab(q(source_path("examples/lab-pod.yaml")));
  fs::create_directory(lab.dir / "notes");
  write_file(lab.dir / "notes" / "todo.txt", "mine\n");
  write_file(lab.dir / "file", "mine\n");
  const std::string notes = (lab.dir / "notes").string();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"export ansible -o " + q(lab.dir / "notes"),
       "hpnctl: " + notes +
           ": exists and is not an hpnctl inventory (no .hpnctl-inventory.json); refusing to replace it\n"},
      {"export ansible -o " + q(lab.dir / "file"),
       "hpnctl: " + (lab.dir / "file").string() + ": exists and is not a directory; refusing to replace it\n"},
      {"export ansible", "hpnctl: ansible writes an inventory directory: give -o DIR\n"},
      {"export ansible --pod 0 -o inv",
       "hpnctl: ansible writes the inventory of the whole plan: pick devices with Ansible's --limit (pod_0, "
       "segment_0_3, rack_H0_R02_05), not --pod, --segment or --switch\n"},
      {"export ansible -o .", "hpnctl: .: name the directory to write the inventory into, not '.' or '..'\n"},
  };
  for (const auto& [args, message] : cases) {
    RunResult r = lab.run(args);
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == message);
    CHECK(r.out.empty());
  }
  RunResult missing = run_hpnctl("export ansible -o inv --blueprint " + q(lab.dir / "nowhere"), lab.dir.path());
  CHECK(missing.exit_code == 2);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
  CHECK(missing.err.find((lab.dir / "nowhere").string()) != std::string::npos);
  // What was there is as it was, and no inventory appeared.
  CHECK(read_file(lab.dir / "notes" / "todo.txt") == "mine\n");
  CHECK(read_file(lab.dir / "file") == "mine\n");
  CHECK_FALSE(fs::exists(lab.dir / "inv"));
}
