// blueprint.db as found on disk: another schema version, cut off, pages of
// garbage, a lost table or column, WAL mode, a reader that may not write,
// a writer working in place. Every file here is a real plan's database,
// damaged with real file operations, opened through BlueprintStore.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "blueprint/store.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"
#include "support/sqlite.h"
#include "test_util.h"

using namespace hpn;

namespace {

namespace fs = std::filesystem;

// The lab pod planned into dir/plan; returns the database's path.
fs::path plan_lab(const test::TempDir& dir) {
  auto spec = load_spec_file(test::source_path("examples/lab-pod.yaml").string());
  REQUIRE(spec.ok());
  auto plan = make_plan(std::move(spec.value()), "test");
  REQUIRE(plan.ok());
  REQUIRE(write_plan(plan->blueprint, plan->summary, (dir / "plan").string()).ok());
  return dir / "plan" / "blueprint.db";
}

// What a reader can get out of a file: the error of the first step that
// failed, or every device and cable it holds.
struct Reading {
  bool ok = false;
  std::string error;
  size_t devices = 0, cables = 0;
  std::string first_cable, last_cable;
};

Reading refused(const std::string& message) {
  Reading r;
  r.error = message;
  return r;
}

Reading read_all(const fs::path& path) {
  Reading r;
  auto store = BlueprintStore::open(path.string());
  if (!store) return refused(store.error().message);
  auto bp = store->load();
  if (!bp) return refused(bp.error().message);
  auto rows = store->devices({});
  if (!rows) return refused(rows.error().message);
  r.ok = true;
  r.devices = bp->devices.size();
  r.cables = bp->cables.size();
  if (bp->devices.empty() || bp->cables.empty()) return r;  // differs from intact, and says so
  auto cables = store->cables_of(bp->devices.front().name, std::nullopt);
  if (!cables) return refused(cables.error().message);
  r.first_cable = bp->cables.front().id + bp->cables.front().a_port;
  r.last_cable = bp->cables.back().id + bp->cables.back().z_port;
  return r;
}

bool one_line(const std::string& message) {
  return !message.empty() && message.find('\n') == std::string::npos;
}

}  // namespace

TEST_CASE("blueprint/db: a database of another schema version names both versions") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  test::sql_exec(db, "PRAGMA user_version = 7;");
  auto store = BlueprintStore::open((dir / "plan").string());
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().message == db.string() + " was written by schema version 7; this hpnctl reads version " +
                                     std::to_string(kBlueprintSchemaVersion) + ": re-run hpnctl plan");
}

TEST_CASE("blueprint/db: a database cut off anywhere is refused in one line") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  const std::string bytes = test::read_file(db);
  REQUIRE(bytes.size() > 4 * 16384);
  const std::vector<size_t> cuts{0, 1, 15, 16, 99, 100, 101, 4096, 16383, 16384, 16385,
                                 bytes.size() / 2, bytes.size() - 16384, bytes.size() - 1};
  for (size_t cut : cuts) {
    INFO("cut at " << cut << " of " << bytes.size());
    test::write_file(dir / "cut.db", bytes.substr(0, cut));
    Reading r = read_all(dir / "cut.db");
    REQUIRE_FALSE(r.ok);
    CHECK(one_line(r.error));
    const char* expected = cut == 0 ? "empty file" : cut < 100 ? "not an SQLite database" : "truncated database";
    CHECK_THAT(r.error, Catch::Contains(expected));
  }
}

TEST_CASE("blueprint/db: pages overwritten with garbage give an error or the intact data, never a crash") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  const Reading intact = read_all(db);
  REQUIRE(intact.ok);
  const std::string bytes = test::read_file(db);
  const size_t page = 16384;  // PRAGMA page_size of write_blueprint_db
  REQUIRE(bytes.size() % page == 0);
  std::mt19937 random(7);
  size_t refused = 0;
  for (size_t p = 0; p < bytes.size() / page; ++p) {
    for (size_t offset : {size_t{0}, size_t{100}, page / 2}) {
      std::string damaged = bytes;
      // Page 1 keeps its 100-byte file header when offset > 0: the damage is
      // then in the schema table itself.
      for (size_t i = p * page + offset; i < (p + 1) * page; ++i) damaged[i] = static_cast<char>(random());
      test::write_file(dir / "damaged.db", damaged);
      INFO("page " << p + 1 << " from byte " << offset);
      Reading r = read_all(dir / "damaged.db");
      if (r.ok) {
        // Whatever is read must be what was written (damage to an index a
        // query did not use is not noticed, and not misleading).
        CHECK(r.devices == intact.devices);
        CHECK(r.cables == intact.cables);
        CHECK(r.first_cable == intact.first_cable);
        CHECK(r.last_cable == intact.last_cable);
      } else {
        ++refused;
        CHECK(one_line(r.error));
      }
    }
  }
  // Most pages are table pages every full read visits.
  CHECK(refused > bytes.size() / page);
}

TEST_CASE("blueprint/db: a lost table, view or column is named when the file is opened") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  const std::string bytes = test::read_file(db);
  struct Case {
    const char* damage;
    const char* message;
  };
  const std::vector<Case> cases{
      {"DROP TABLE links;", "not a complete blueprint: table 'links' is missing"},
      {"DROP VIEW ports;", "not a complete blueprint: view 'ports' is missing"},
      {"ALTER TABLE cables DROP COLUMN label_z;", "not a complete blueprint: table 'cables' has no column 'label_z'"},
      {"DROP TABLE meta;", "not an hpnctl blueprint (no 'hpnctl-blueprint' format record)"},
  };
  for (const auto& c : cases) {
    INFO(c.damage);
    test::write_file(db, bytes);
    test::sql_exec(db, c.damage);
    auto store = BlueprintStore::open((dir / "plan").string());
    REQUIRE_FALSE(store.ok());
    CHECK(store.error().message == db.string() + ": " + c.message);
  }
}

TEST_CASE("blueprint/db: an interface's purpose is one the model knows, or the blueprint is refused") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  {
    auto store = BlueprintStore::open((dir / "plan").string());
    REQUIRE(store.ok());
    auto bp = store->load();
    REQUIRE(bp.ok());
    std::set<std::string> purposes;
    for (const auto& i : bp->interfaces) purposes.insert(std::string(to_string(i.purpose)));
    CHECK(purposes == std::set<std::string>{"gateway", "host", "loopback"});
  }
  test::sql_exec(db, "UPDATE interfaces SET purpose = 'uplink' WHERE interface = 'Loopback0' AND device = 'core-1-00';");
  auto store = BlueprintStore::open((dir / "plan").string());
  REQUIRE(store.ok());
  auto bp = store->load();
  REQUIRE_FALSE(bp.ok());
  CHECK(bp.error().message == db.string() + ": interface Loopback0 of core-1-00: unknown purpose 'uplink'");
}

TEST_CASE("blueprint/db: files that are not blueprints are refused in one line") {
  test::TempDir dir;
  std::mt19937 random(11);
  std::string noise(65536, '\0');
  for (auto& b : noise) b = static_cast<char>(random());
  const std::vector<std::pair<std::string, std::string>> files{
      {"", "empty file, not a blueprint database"},
      {noise, "not an SQLite database"},
      {"version: 1\nname: lab\n", "not an SQLite database"},
      // The right magic and then noise: SQLite's own checks refuse it.
      {std::string("SQLite format 3\0", 16) + noise, ""},
  };
  for (const auto& [bytes, message] : files) {
    test::write_file(dir / "blueprint.db", bytes);
    auto store = BlueprintStore::open(dir.path().string());
    INFO("file of " << bytes.size() << " bytes");
    REQUIRE_FALSE(store.ok());
    CHECK(one_line(store.error().message));
    CHECK_THAT(store.error().message, Catch::StartsWith((dir / "blueprint.db").string() + ": ") &&
                                          Catch::Contains(message));
  }
  fs::remove(dir / "blueprint.db");
  fs::create_directory(dir / "blueprint.db");
  auto store = BlueprintStore::open(dir.path().string());
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().message == (dir / "blueprint.db").string() + ": not a regular file, not a blueprint database");
}

TEST_CASE("blueprint/db: a plan is in WAL mode, and reading it leaves no file beside it") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  const std::string bytes = test::read_file(db);
  // File format write/read versions (https://sqlite.org/fileformat2.html §1.3): 2 = WAL.
  CHECK(bytes[18] == 2);
  CHECK(bytes[19] == 2);
  auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir / "plan")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto before = listing();
  CHECK(std::find(before.begin(), before.end(), "blueprint.db-wal") == before.end());
  CHECK(std::find(before.begin(), before.end(), "blueprint.db-shm") == before.end());
  REQUIRE(read_all(db).ok);
  CHECK(listing() == before);
  CHECK(test::read_file(db) == bytes);
}

TEST_CASE("blueprint/db: a user who may not write the directory reads the plan") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  const Reading intact = read_all(db);
  REQUIRE(intact.ok);
  // mkdtemp's 0700 would keep another user out altogether: open the path,
  // then take write permission away from everyone.
  fs::permissions(dir.path(), fs::perms(0755), fs::perm_options::replace);
  fs::permissions(dir / "plan", fs::perms(0555), fs::perm_options::replace);
  fs::permissions(db, fs::perms(0444), fs::perm_options::replace);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Root ignores permissions: become nobody first. Anyone else is already
    // kept out of the 0555 directory.
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
    if (access((dir / "plan").c_str(), W_OK) == 0) _exit(4);  // the test would prove nothing
    Reading r = read_all(db);
    _exit(!r.ok ? 1 : r.devices == intact.devices && r.cables == intact.cables ? 0 : 2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  fs::permissions(dir / "plan", fs::perms(0755), fs::perm_options::replace);
  REQUIRE(WIFEXITED(status));
  INFO("child exit: 1 = refused, 2 = wrong data, 3 = setuid failed, 4 = directory writable");
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(dir / "plan" / "blueprint.db-shm"));
}

TEST_CASE("blueprint/db: a writer working in place is read through its WAL, not past it") {
  test::TempDir dir;
  const fs::path db = plan_lab(dir);
  // A writer that committed into the WAL and keeps its connection open, so
  // nothing is checkpointed into the main file: only a reader that honours
  // the WAL sees the change.
  sqlite3* writer = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &writer, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_exec(writer, "PRAGMA wal_autocheckpoint=0; UPDATE meta SET value = 'edited' WHERE key = 'tool_version';",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  REQUIRE(fs::exists(dir / "plan" / "blueprint.db-wal"));
  auto store = BlueprintStore::open(db.string());
  REQUIRE(store.ok());
  auto version = store->meta("tool_version");
  REQUIRE(version.ok());
  CHECK(version.value() == "edited");
  // While the writer holds its write lock, a reader is not blocked (WAL).
  REQUIRE(sqlite3_exec(writer, "BEGIN IMMEDIATE; UPDATE meta SET value = 'pending' WHERE key = 'tool_version';",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  auto during = BlueprintStore::open(db.string());
  REQUIRE(during.ok());
  CHECK(during->meta("tool_version").value() == "edited");
  REQUIRE(sqlite3_exec(writer, "COMMIT;", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(writer);
}
