// blueprint.db as someone may have edited it (blueprint/store.h): the lab
// pod's real database, planned once at start-up, with the input's edits
// applied cell by cell through SQLite itself, then read through every
// reader of the store and indexed (FabricIndex) as verify does. The store
// promises an error or a blueprint whose every text is UTF-8: the JSON the
// commands write of it never throws.
//
// The input is a list of edits, each:
//   table (1 byte, of kTables), column (1 byte, of the table's), row (2
//   bytes, little-endian, of the table's rows), kind (1 byte): 0 text of
//   the next byte's length, 1 an integer of the next 8 bytes, 2 NULL, 3 the
//   row deleted, 4 a row copied onto the end.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "blueprint/fabric_index.h"
#include "blueprint/store.h"
#include "blueprint/utf8.h"
#include "planner/plan.h"
#include "planner/plan_output.h"
#include "planner/spec_loader.h"
#include "fuzz_util.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kTables[] = {"meta",  "racks",    "devices",    "panels", "cables",     "patch_panels", "trunks",
                                   "legs",  "core_rules", "interfaces", "links", "bom",        "warnings"};
std::vector<std::vector<std::string>> columns;  // by table
std::string template_db;
fs::path work, db_path;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void check_utf8(const std::string& text) { HPN_FUZZ_CHECK(hpn::is_utf8(text)); }

void exec(sqlite3* db, const std::string& sql) { sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); }

// Applies the edits of `data` to the database at db_path.
void apply_edits(const std::uint8_t* data, std::size_t size) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) std::abort();
  exec(db, "PRAGMA journal_mode=DELETE; PRAGMA ignore_check_constraints=ON; BEGIN");
  std::size_t at = 0;
  auto byte = [&]() -> std::uint8_t { return at < size ? data[at++] : 0; };
  while (at + 5 <= size) {
    const std::size_t t = byte() % std::size(kTables);
    const std::string table = kTables[t];
    const std::string column = columns[t][byte() % columns[t].size()];
    const int row = byte() | byte() << 8;
    const int kind = byte() % 5;
    // The row by its place among the table's rows.
    const std::string rowid = "(SELECT rowid FROM " + table + " LIMIT 1 OFFSET " + std::to_string(row) + ")";
    sqlite3_stmt* stmt = nullptr;
    std::string sql;
    if (kind <= 2) sql = "UPDATE " + table + " SET \"" + column + "\" = ?1 WHERE rowid = " + rowid;
    else if (kind == 3) sql = "DELETE FROM " + table + " WHERE rowid = " + rowid;
    else sql = "INSERT INTO " + table + " SELECT * FROM " + table + " WHERE rowid = " + rowid;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) std::abort();
    if (kind == 0) {
      const std::size_t length = std::min<std::size_t>(byte(), size - at);
      sqlite3_bind_text(stmt, 1, reinterpret_cast<const char*>(data + at), static_cast<int>(length), SQLITE_TRANSIENT);
      at += length;
    } else if (kind == 1) {
      std::uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= std::uint64_t{byte()} << (8 * i);
      sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(v));
    }
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
  }
  exec(db, "COMMIT");
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  work = fs::temp_directory_path() / ("fuzz_blueprint_db-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  auto spec = hpn::load_spec(read_all(HPN_SOURCE_DIR "/examples/lab-pod.yaml"), "lab-pod.yaml");
  if (!spec) std::abort();
  auto plan = hpn::make_plan(std::move(spec.value()), "fuzz");
  if (!plan) std::abort();
  if (!hpn::write_plan(plan->blueprint, plan->summary, (work / "plan").string())) std::abort();
  template_db = read_all(work / "plan" / "blueprint.db");
  db_path = work / "fuzz.db";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2((work / "plan" / "blueprint.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::abort();
  }
  for (const char* table : kTables) {
    std::vector<std::string> names;
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &stmt, nullptr);
    sqlite3_bind_text(stmt, 1, table, -1, SQLITE_STATIC);
    while (sqlite3_step(stmt) == SQLITE_ROW) names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
    if (names.empty()) std::abort();
    columns.push_back(std::move(names));
  }
  sqlite3_close(db);
  std::atexit([] { fs::remove_all(work); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(db_path, std::ios::binary | std::ios::trunc);
    out << template_db;
  }
  apply_edits(data, size);
  auto store = hpn::BlueprintStore::open(db_path.string());
  if (!store) return 0;
  if (auto rows = store->devices({}); rows) {
    for (const auto& d : *rows) check_utf8(d.name + d.role + d.rack + d.state);
    if (!rows->empty()) {
      const std::string& first = rows->front().name;
      (void)store->device(first);
      if (auto cables = store->cables_of(first, std::nullopt); cables) {
        for (const auto& c : *cables) check_utf8(c.cable_id + c.a_port + c.media + c.label_a + c.via);
      }
      (void)store->lanes_of(first, "etp1");
      (void)store->port_info(first, "etp1a");
      (void)store->has_port(first, "etp1a");
    }
  }
  if (auto cables = store->cables({}); cables) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : *cables) j.push_back({c.cable_id, c.kind, c.a_device, c.a_port, c.z_device, c.z_port,
                                               c.media, c.label_a, c.label_z, c.a_rack, c.z_rack, c.via});
    (void)j.dump();  // throws (and fails here) on text that is not UTF-8
  }
  (void)store->cable("C0H00001");
  (void)store->racks();
  (void)store->ranges();
  auto bp = store->load();
  if (!bp) return 0;
  nlohmann::json j = nlohmann::json::array();
  for (const auto& d : bp->devices) j.push_back(d.name);
  for (const auto& c : bp->cables) j.push_back({c.id, c.a_port, c.z_port, c.media});
  for (const auto& i : bp->interfaces) j.push_back({i.name, std::string(to_string(i.purpose)), i.ipv4, i.ipv6, i.mac});
  for (const auto& r : bp->racks) j.push_back(r.name);
  j.push_back(bp->spec_yaml);
  (void)j.dump();
  hpn::FabricIndex index(bp.value());
  for (std::size_t c = 0; c < bp->cables.size(); ++c) (void)index.far_end(index.end_of(static_cast<int>(c), 0));
  return 0;
}
