// `hpnctl verify --lldp` against real lldpd: the lab pod brought up from a
// wiring file, one lldpd per namespace (the device's name as system name, a
// 1 s transmit interval), every device's neighbour table dumped with
// `lldpcli -f json0 show neighbors details`, the daemons and the lab taken
// down, and the dumps diffed. Each wiring must give the findings the probe
// path (`verify --lab` on the same wiring) gives: same kinds, same cables.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "blueprint/csv.h"
#include "lab_verify.h"
#include "test_util.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using hpn::test::TempDir;
using json = nlohmann::json;

// Skips the test unless a lab can come up and lldpd run in it.
void require_lldpd() {
  hpn::test::require_lab();
  if (std::system("lldpd -v >/dev/null 2>&1") != 0 || std::system("lldpcli -v >/dev/null 2>&1") != 0) {
    hpn::test::skip("lldpd is not installed (Debian package lldpd)");
  }
  // lldpd drops privileges to this user and chroots into /run/lldpd.
  if (std::system("getent passwd _lldpd >/dev/null") != 0) {
    hpn::test::skip("no _lldpd user for lldpd's privilege separation (install the lldpd package)");
  }
}

// The lab pod's plan and its cabling sheet, to edit into a wiring file.
class LldpLab {
 public:
  LldpLab() {
    // lldpd's lldpcli reads the -O file as the _lldpd user.
    fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
    auto r = hpnctl("plan '" + hpn::test::source_path("examples/lab-pod.yaml").string() + "' -q -o plan");
    REQUIRE(r.exit_code == 0);
    std::istringstream in(hpn::test::read_file(dir_ / "plan" / "cabling.csv"));
    std::string line;
    std::vector<std::string> fields;
    std::getline(in, line);
    REQUIRE(hpn::parse_csv_line(line, header_));
    header_.push_back("fault");
    while (std::getline(in, line)) {
      REQUIRE(hpn::parse_csv_line(line, fields));
      fields.resize(header_.size());
      rows_.push_back(fields);
    }
  }

  hpn::test::RunResult hpnctl(const std::string& args) const { return hpn::test::run_hpnctl(args, dir_.path()); }
  const TempDir& dir() const { return dir_; }

  // The value of `column` in the row of the cable from device:port; editable.
  std::string& at(const std::string& device, const std::string& port, const std::string& column) {
    size_t c = column_of(column);
    for (auto& r : rows_) {
      if (r[column_of("a_device")] == device && r[column_of("a_port")] == port) return r[c];
    }
    FAIL("no cable from " << device << ":" << port);
    return rows_.front()[c];
  }
  void remove(const std::string& cable_id) {
    size_t c = column_of("cable_id");
    rows_.erase(std::remove_if(rows_.begin(), rows_.end(), [&](const auto& r) { return r[c] == cable_id; }),
                rows_.end());
  }

  void write_wiring() const {
    std::ostringstream out;
    {
      hpn::CsvWriter w(out);
      for (const auto& h : header_) w.field(h);
      w.end_row();
      for (const auto& r : rows_) {
        for (const auto& f : r) w.field(f);
        w.end_row();
      }
    }
    hpn::test::write_file(dir_ / "wiring.csv", out.str());
  }

 private:
  size_t column_of(const std::string& name) const {
    auto it = std::find(header_.begin(), header_.end(), name);
    REQUIRE(it != header_.end());
    return static_cast<size_t>(it - header_.begin());
  }

  TempDir dir_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// One lldpd per lab namespace, stopped (SIGTERM, reaped) when it goes.
class LldpDaemons {
 public:
  struct Daemon {
    std::string device, netns, socket, log;
    std::set<std::string> ports;  // interfaces that are up
    pid_t pid = -1;
  };

  LldpDaemons(const json& status, const fs::path& dir) {
    fs::create_directories("/run/lldpd");  // the privilege-separation chroot the Debian unit would make
    fs::create_directories(dir / "lldpd");
    for (const auto& d : status["devices"]) {
      Daemon daemon;
      daemon.device = d["name"];
      daemon.netns = d["netns"];
      daemon.socket = (dir / "lldpd" / (daemon.device + ".sock")).string();
      daemon.log = (dir / "lldpd" / (daemon.device + ".log")).string();
      std::string ifaces;
      for (const auto& p : d["ports"]) {
        if (p["state"] != "up") continue;
        daemon.ports.insert(p["ifname"].get<std::string>());
        ifaces += (ifaces.empty() ? "" : ",") + p["ifname"].get<std::string>();
      }
      const std::string conf = (dir / "lldpd" / (daemon.device + ".conf")).string();
      // The chassis ID a switch sends is its own (its base MAC); the lab's
      // ToR ports all carry the pair's gateway MAC, from which lldpd would
      // otherwise take one chassis ID for every ToR.
      hpn::test::write_file(conf, "configure system hostname " + daemon.device + "\nconfigure system chassisid " +
                                      daemon.device + "\nconfigure lldp tx-interval 1\n");
      daemon.pid = spawn({"ip", "netns", "exec", daemon.netns, "lldpd", "-d", "-M4", "-u", daemon.socket, "-I",
                          ifaces.empty() ? "none" : ifaces, "-O", conf},
                         daemon.log);
      REQUIRE(daemon.pid > 0);
      daemons_.push_back(daemon);
    }
  }
  ~LldpDaemons() {
    for (const auto& d : daemons_) kill(d.pid, SIGTERM);
    for (const auto& d : daemons_) waitpid(d.pid, nullptr, 0);
  }
  LldpDaemons(const LldpDaemons&) = delete;
  LldpDaemons& operator=(const LldpDaemons&) = delete;

  // Waits until every up port but those in `deaf` ("device:port") hears a
  // neighbour that names itself as a lab device, then writes each device's
  // dump to out/DEVICE.json. Returns the seconds it took.
  double dump(const fs::path& out, const std::set<std::string>& deaf, const std::set<std::string>& devices) {
    fs::create_directories(out);
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::seconds(30);
    for (;;) {
      std::string pending;
      for (const auto& d : daemons_) {
        auto file = out / (d.device + ".json");
        std::string cmd = "lldpcli -u '" + d.socket + "' -f json0 show neighbors details >'" + file.string() + "' 2>/dev/null";
        if (std::system(cmd.c_str()) != 0) {
          pending = d.device + " (lldpcli failed)";
          continue;
        }
        auto j = json::parse(hpn::test::read_file(file), nullptr, false);
        std::set<std::string> heard;
        if (!j.is_discarded()) {
          for (const auto& e : j["lldp"][0].value("interface", json::array())) {
            // chassis[0].name[0].value, the system name lldpd was given
            if (e.contains(json::json_pointer("/chassis/0/name/0/value")) &&
                devices.count(e.at(json::json_pointer("/chassis/0/name/0/value")).get<std::string>())) {
              heard.insert(e.at("name").get<std::string>());
            }
          }
        }
        for (const auto& p : d.ports) {
          if (!heard.count(p) && !deaf.count(d.device + ":" + p)) pending = d.device + ":" + p;
        }
      }
      const auto now = std::chrono::steady_clock::now();
      if (pending.empty()) return std::chrono::duration<double>(now - start).count();
      if (now > deadline) {
        FAIL("after 30 s " << pending << " still hears no lab device; " << daemons_.front().log << ":\n"
                           << hpn::test::read_file(daemons_.front().log));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }

 private:
  static pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    // `ip netns exec` execs the command in place: the pid is lldpd's.
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
  }

  std::vector<Daemon> daemons_;
};

struct Outcome {
  json lldp, probes;
};

// The lab up on the sheet's wiring with lldpd everywhere, dumped, down;
// then verify --lldp on the dumps and, with `probes`, verify --lab on the
// same wiring (a lab of its own: a bring-up more).
Outcome run(LldpLab& lab, int expect_exit, const std::set<std::string>& deaf = {}, bool probes = true) {
  lab.write_wiring();
  const fs::path dumps = lab.dir() / "dumps";
  {
    auto up = lab.hpnctl("lab up --blueprint plan --wiring wiring.csv");
    INFO(up.err);
    REQUIRE(up.exit_code == 0);
    struct Down {
      LldpLab& lab;
      ~Down() { lab.hpnctl("lab down"); }
    } down{lab};
    auto status = lab.hpnctl("lab status --format json");
    REQUIRE(status.exit_code == 0);
    auto s = json::parse(status.out);
    std::set<std::string> devices;
    for (const auto& d : s["devices"]) devices.insert(d["name"].get<std::string>());
    LldpDaemons daemons(s, lab.dir().path());
    double seconds = daemons.dump(dumps, deaf, devices);
    WARN("lldpd: every neighbour heard after " << seconds << " s");
  }
  std::string files;
  for (const auto& e : fs::directory_iterator(dumps)) files += " '" + e.path().string() + "'";
  Outcome o;
  auto lldp = lab.hpnctl("verify --blueprint plan --format json --lldp" + files);
  INFO(lldp.err);
  INFO(lldp.out);
  REQUIRE(lldp.exit_code == expect_exit);
  o.lldp = json::parse(lldp.out);
  if (!probes) return o;
  auto probe_run = lab.hpnctl("verify --lab --blueprint plan --wiring wiring.csv --format json");
  INFO(probe_run.err);
  REQUIRE(probe_run.exit_code == expect_exit);
  o.probes = json::parse(probe_run.out);
  return o;
}

}  // namespace

TEST_CASE("verify/lldp: real lldpd on the planned wiring gives no finding") {
  require_lldpd();
  LldpLab lab;
  // The probes' verdict on the planned wiring is verify/lab's to check.
  auto o = run(lab, 0, {}, false);
  INFO(o.lldp.dump(2));
  CHECK(o.lldp["findings"].empty());
  CHECK(o.lldp["summary"]["cables_verified"] == 112);  // every cable, the core's too
  CHECK(o.lldp["summary"]["unreadable_hops"] == 0);
}

// Five faults on cables apart, in one lab (each a bring-up of its own cost
// a minute of CI): LLDP is per link, and the probes' diagnosis names each
// fault on its own among others (verify/lab fault mixes).
TEST_CASE("verify/lldp: real lldpd names two swaps, a missing, a dark and a one-way cable as the probes do") {
  require_lldpd();
  LldpLab lab;
  // Two host cables swapped at their ToR.
  std::swap(lab.at("host-p0-s00-h000", "nic1p1", "z_port"), lab.at("host-p0-s00-h001", "nic1p1", "z_port"));
  const std::string swapped_a = lab.at("host-p0-s00-h000", "nic1p1", "cable_id");
  const std::string swapped_b = lab.at("host-p0-s00-h001", "nic1p1", "cable_id");
  // Two ToR uplinks swapped.
  std::swap(lab.at("tor-p0-s00-r1a", "etp5", "z_device"), lab.at("tor-p0-s00-r1a", "etp6", "z_device"));
  std::swap(lab.at("tor-p0-s00-r1a", "etp5", "z_port"), lab.at("tor-p0-s00-r1a", "etp6", "z_port"));
  const std::string uplink_a = lab.at("tor-p0-s00-r1a", "etp5", "cable_id");
  const std::string uplink_b = lab.at("tor-p0-s00-r1a", "etp6", "cable_id");
  // A cable that is not there, and a dark one: missing to LLDP as to the probes.
  const std::string missing = lab.at("host-p0-s01-h002", "nic2p2", "cable_id");
  lab.remove(missing);
  lab.at("host-p0-s00-h003", "nic1p2", "fault") = "down";
  const std::string dark = lab.at("host-p0-s00-h003", "nic1p2", "cable_id");
  // One direction dropped at the NIC's egress, before the wire: the ToR's
  // lldpd hears nothing from it while the NIC still hears the ToR.
  lab.at("host-p0-s00-h004", "nic2p1", "fault") = "drop-a-z";
  const std::string one_way = lab.at("host-p0-s00-h004", "nic2p1", "cable_id");
  const std::string deaf_tor = lab.at("host-p0-s00-h004", "nic2p1", "z_device");
  const std::string deaf_port = lab.at("host-p0-s00-h004", "nic2p1", "z_port");

  auto o = run(lab, 1, {deaf_tor + ":" + deaf_port});
  INFO(o.lldp.dump(2));
  INFO(o.probes.dump(2));
  const auto lldp = hpn::test::finding_lines(o.lldp, false);
  CHECK(lldp.count("swapped " + std::min(swapped_a, swapped_b) + " " + std::max(swapped_a, swapped_b)) == 1);
  CHECK(lldp.count("missing " + missing) == 1);
  CHECK(lldp.count("missing " + dark) == 1);
  CHECK(lldp.count("unidirectional " + one_way) == 1);
  // The uplink swap is one finding naming both cables, whatever its kind.
  CHECK(std::count_if(lldp.begin(), lldp.end(), [&](const std::string& line) {
          return line.find(" " + std::min(uplink_a, uplink_b) + " " + std::max(uplink_a, uplink_b)) != std::string::npos;
        }) == 1);
  CHECK(lldp.size() == 5);
  CHECK(hpn::test::finding_lines(o.lldp, true) == hpn::test::finding_lines(o.probes, true));
  for (const auto& f : o.lldp["findings"]) {
    if (f["kind"] != "unidirectional") continue;
    const auto& e = f["evidence"][one_way];
    CHECK(e["a_to_z"] == json({{"sent", 1}, {"received", 0}}));
    CHECK(e["z_to_a"] == json({{"sent", 1}, {"received", 1}}));
  }
  // The swapped host cables' finding says the same words in both.
  auto message_of = [](const json& report, std::set<std::string> cables) {
    for (const auto& f : report["findings"]) {
      if (std::set<std::string>(f["cables"].begin(), f["cables"].end()) == cables) return f["message"].get<std::string>();
    }
    return std::string();
  };
  CHECK_FALSE(message_of(o.lldp, {swapped_a, swapped_b}).empty());
  CHECK(message_of(o.lldp, {swapped_a, swapped_b}) == message_of(o.probes, {swapped_a, swapped_b}));
}
