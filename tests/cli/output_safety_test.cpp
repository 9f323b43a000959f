// What hpnctl refuses to write, through the real binary: a name from a plan
// that would leave the output directory, a link or a FIFO planted where a
// file is to go (as root, the case that matters), output that cannot be
// written (a full disk, /dev/full), and spreadsheet formulas in CSV cells.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "support/sqlite.h"
#include "test_util.h"

namespace {

using namespace hpn::test;
namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;  // Debian's nobody:nogroup

// examples/lab-pod.yaml planned into dir/plan.
void plan_lab(const TempDir& dir, const std::string& extra = "") {
  write_file(dir / "pod.yaml", read_file(source_path("examples/lab-pod.yaml")) + extra);
  auto r = run_hpnctl("plan pod.yaml -o plan", dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// Renames `from` to `to` in every text column of every table of the plan's
// database: the device and every row that names it.
void rename_everywhere(const fs::path& db_path, const std::string& from, const std::string& to) {
  std::string sql;
  SqliteReader db(db_path);
  for (const auto& table : db.rows("SELECT name FROM sqlite_master WHERE type = 'table'")) {
    for (const auto& column : db.rows("PRAGMA table_info(" + table.at(0) + ")")) {
      sql += "UPDATE " + table.at(0) + " SET " + column.at(1) + " = '" + to + "' WHERE " + column.at(1) + " = '" +
             from + "';\n";
    }
  }
  sql_exec(db_path, sql);
}

void need_root() {
  if (geteuid() != 0) skip("needs root: the planted link matters when root writes");
}

// dir/shared: sticky and world-writable, as /tmp is; dir/victim: a 0700
// directory with a 0600 file that only root may change.
struct SharedDir {
  fs::path shared, victim_dir, victim;
  explicit SharedDir(const TempDir& dir) {
    fs::permissions(dir.path(), fs::perms(0755));
    shared = dir / "shared";
    victim_dir = dir / "private";
    victim = victim_dir / "secret";
    fs::create_directory(shared);
    fs::permissions(shared, fs::perms(01777));
    fs::create_directory(victim_dir);
    fs::permissions(victim_dir, fs::perms(0700));
    write_file(victim, "root's secret\n");
    fs::permissions(victim, fs::perms(0600));
  }
  // A symbolic link at shared/NAME to `to`, as user nobody would plant it.
  void plant_link(const std::string& name, const fs::path& to) const {
    fs::create_symlink(to, shared / name);
    REQUIRE(lchown((shared / name).c_str(), kNobody, kNobody) == 0);
  }
};

}  // namespace

TEST_CASE("output safety: a switch named '..' in a plan cannot put config --all's files outside -o") {
  TempDir dir;
  plan_lab(dir);
  // A plan edited by hand (or made by an older hpnctl that let a pattern
  // give '..', see planner/design_check_test.cpp).
  rename_everywhere(dir / "plan" / "blueprint.db", "agg-p0-1-00", "..");
  fs::create_directory(dir / "etc");
  auto r = run_hpnctl("config --all --blueprint plan -o etc/hpn-configs", dir.path());
  // A damaged plan, refused where it is read (exit 2, located), before
  // the writer's own refusal (blueprint/names.h path_under) is reached.
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("column name: '..': names start with a letter or a digit"));
  // Nothing in etc/ itself, no output directory, no staging left.
  CHECK(entries(dir / "etc").empty());
}

TEST_CASE("output safety: as root, a link planted by another user in a shared directory is not written through") {
  need_root();
  TempDir dir;
  plan_lab(dir);
  SharedDir s(dir);
  s.plant_link("nb.csv", s.victim);
  // Refused, not replaced: the link is someone else's, and what the user
  // asked for (a file at shared/nb.csv) cannot be had without removing it.
  auto r = run_hpnctl("export netbox --blueprint plan -o shared/nb.csv", dir.path());
  CHECK(r.exit_code == 3);
  CHECK(r.err == "hpnctl: shared/nb.csv: cannot write: it is a symbolic link of nobody (uid 65534); refusing to "
                 "write through or over it\n");
  CHECK(read_file(s.victim) == "root's secret\n");
  CHECK(fs::is_symlink(s.shared / "nb.csv"));
  CHECK(entries(s.victim_dir) == std::vector<std::string>{"secret"});
  CHECK(entries(s.shared) == std::vector<std::string>{"nb.csv"});

  // A planted link one directory up is not followed either.
  s.plant_link("sub", s.victim_dir);
  auto up = run_hpnctl("export netbox --blueprint plan -o shared/sub/secret", dir.path());
  CHECK(up.exit_code == 3);
  CHECK_THAT(up.err, Catch::Contains("sub is a symbolic link of nobody (uid 65534) in a directory of root (uid 0); "
                                     "refusing to follow it"));
  CHECK(read_file(s.victim) == "root's secret\n");
  CHECK(entries(s.victim_dir) == std::vector<std::string>{"secret"});
}

TEST_CASE("output safety: a FIFO planted where a file is to go is refused at once, not waited on") {
  need_root();
  TempDir dir;
  plan_lab(dir);
  SharedDir s(dir);
  REQUIRE(mkfifo((s.shared / "nb.csv").c_str(), 0666) == 0);
  REQUIRE(lchown((s.shared / "nb.csv").c_str(), kNobody, kNobody) == 0);
  auto r = run_hpnctl("export netbox --blueprint plan -o shared/nb.csv", dir.path());
  CHECK(r.exit_code == 3);
  CHECK(r.err == "hpnctl: shared/nb.csv: cannot write: it is a FIFO of nobody (uid 65534), not a file; refusing to "
                 "write into it\n");
  // One's own FIFO with no reader: an error at once, not a hang.
  REQUIRE(mkfifo((dir / "mine").c_str(), 0600) == 0);
  auto own = run_hpnctl("export netbox --blueprint plan -o mine", dir.path());
  CHECK(own.exit_code == 3);
  CHECK(own.err == "hpnctl: mine: cannot write: a FIFO with no reader\n");
}

TEST_CASE("output safety: stdout that cannot be written is exit 3, not a cut-short success") {
  TempDir dir;
  plan_lab(dir);
  auto full = run_command("cd " + q(dir.path()) + " && " + HPNCTL_BINARY + " cables --blueprint plan >/dev/full 2>err; "
                          "echo $?; cat err");
  CHECK(full.out == "3\nhpnctl: stdout: write failed: No space left on device\n");
  // A disk that fills up half-way (RLIMIT_FSIZE: write(2) fails with EFBIG
  // past 8 KiB, SIGXFSZ ignored): the CSV on stdout is cut, so the run fails.
  auto cut = run_command("cd " + q(dir.path()) + " && (trap '' XFSZ; ulimit -f 16; exec " + HPNCTL_BINARY +
                         " cables --blueprint plan --format csv >cables.csv 2>err); echo $?; cat err");
  CHECK(cut.out == "3\nhpnctl: stdout: write failed: File too large\n");
  // The same output whole where it fits.
  auto whole = run_hpnctl("cables --blueprint plan --format csv", dir.path());
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.out.size() > 8192);
  // An output file (-o) that cannot be written names it.
  auto file = run_hpnctl("export netbox --blueprint plan -o /dev/full", dir.path());
  CHECK(file.exit_code == 3);
  CHECK(file.err == "hpnctl: /dev/full: write failed: No space left on device\n");
  // -o /dev/stdout writes to the stream already open, here a pipe.
  auto piped = run_command("cd " + q(dir.path()) + " && " + HPNCTL_BINARY +
                           " export netbox --blueprint plan -o /dev/stdout | head -c 5");
  CHECK(piped.out == "side_");
}

TEST_CASE("output safety: a spec's text that a spreadsheet would run is escaped in the CSV it lands in") {
  TempDir dir;
  plan_lab(dir, "media:\n  optics:\n"
                "    - {media: mmf, speed_gbps: 200, part: '=HYPERLINK(\"http://example.com\",\"QSFP56\")', "
                "connector: MPO-12}\n"
                "    - {media: mmf, speed_gbps: 400, part: '@SUM(1+1)', connector: MPO-16}\n"
                "    - {media: smf, speed_gbps: 200, part: '-2+3+cmd', connector: LC-duplex}\n"
                "    - {media: smf, speed_gbps: 400, part: QSFP-DD-400G-DR4, connector: MPO-12}\n");
  const std::string bom = read_file(dir / "plan" / "bom.csv");
  INFO(bom);
  CHECK_THAT(bom, Catch::Contains(",\"'=HYPERLINK(\"\"http://example.com\"\",\"\"QSFP56\"\")\","));
  CHECK_THAT(bom, Catch::Contains(",'@SUM(1+1),"));
  // No cell of the sheet starts with a formula character.
  for (const auto& name : {"bom.csv", "cabling.csv", "devices.csv", "legs.csv"}) {
    std::ifstream in(dir / "plan" / name);
    std::string line;
    while (std::getline(in, line)) {
      for (size_t at = 0; at != std::string::npos; at = line.find(',', at + 1)) {
        const size_t start = at == 0 && line[0] != ',' ? 0 : at + 1;
        if (start >= line.size()) break;
        const char c = line[start] == '"' && start + 1 < line.size() ? line[start + 1] : line[start];
        INFO(name << ": " << line);
        CHECK(std::string("=@").find(c) == std::string::npos);
      }
    }
  }
}
