#include "blueprint/store.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string_view>

namespace hpn {

namespace embedded {
extern const std::string_view blueprint_sql;
}

namespace {

// The schema file has the tables first and the indexes after this marker.
std::pair<std::string_view, std::string_view> split_schema() {
  std::string_view sql = embedded::blueprint_sql;
  size_t at = sql.find("-- @indexes");
  return {sql.substr(0, at), sql.substr(at)};
}

Status fail(const sql::Db& db, std::string_view what) {
  return Error{fmt::format("writing blueprint: {}: {}", what, db.last_error())};
}

Status write_rows(const Blueprint& bp, const sql::Db& db) {
  auto name_of = [&](int device) -> const std::string& { return bp.devices[device].name; };
  {
    sql::Stmt s(db, "INSERT INTO meta VALUES (?, ?)");
    const std::array<std::pair<std::string_view, std::string>, 5> rows{{
        {"format", kBlueprintFormat},
        {"schema_version", std::to_string(kBlueprintSchemaVersion)},
        {"tool_version", bp.tool_version},
        {"spec_name", bp.spec_name},
        {"spec_yaml", bp.spec_yaml},
    }};
    for (const auto& [k, v] : rows) {
      s.bind(1, k).bind(2, v);
      s.step();
      if (s.failed()) return fail(db, "meta");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO racks VALUES (?, ?, ?, ?, ?)");
    for (const auto& r : bp.racks) {
      s.bind(1, r.name).bind(2, r.hall).bind(3, r.row).bind(4, r.position).bind(5, r.purpose);
      s.step();
      if (s.failed()) return fail(db, "racks");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& d : bp.devices) {
      s.bind(1, d.name).bind(2, to_string(d.role));
      s.bind_or_null(3, d.pod, kNone).bind_or_null(4, d.segment, kNone);
      s.bind_or_null(5, d.plane, kNone).bind_or_null(6, d.rail, kNone);
      s.bind(7, static_cast<int64_t>(d.node_id));
      if (d.rack == kNone) s.bind_null(8); else s.bind(8, bp.racks[d.rack].name);
      s.bind_or_null(9, d.ru, kNone).bind(10, to_string(d.state)).bind_or_null(11, d.asn, kNone);
      s.step();
      if (s.failed()) return fail(db, "devices");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO ports VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (const auto& p : bp.ports) {
      s.bind(1, name_of(p.device)).bind(2, p.name).bind(3, p.port_id).bind(4, p.speed_gbps);
      s.bind_or_null(5, p.nic, kNone);
      if (p.breakout_of.empty()) s.bind_null(6); else s.bind(6, p.breakout_of);
      s.bind(7, to_string(p.use));
      s.step();
      if (s.failed()) return fail(db, "ports");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO cables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& c : bp.cables) {
      s.bind(1, c.id).bind(2, to_string(c.kind)).bind(3, name_of(c.a_device)).bind(4, c.a_port);
      s.bind(5, name_of(c.z_device)).bind(6, c.z_port).bind(7, c.speed_gbps);
      s.bind(8, to_string(c.state)).bind(9, c.length_m).bind(10, c.media);
      std::string label_a = cable_label(bp, c, true), label_z = cable_label(bp, c, false);
      s.bind(11, label_a).bind(12, label_z);
      s.step();
      if (s.failed()) return fail(db, "cables");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO core_rules VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto& r : bp.core_rules) {
      s.bind(1, name_of(r.core)).bind(2, r.in_port).bind(3, r.dst_pod).bind(4, r.out_port);
      s.bind(5, r.fallback).bind(6, r.status);
      s.step();
      if (s.failed()) return fail(db, "core_rules");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO interfaces VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& i : bp.interfaces) {
      s.bind(1, name_of(i.device)).bind(2, i.name).bind(3, i.purpose).bind_or_null(4, i.nic, kNone);
      if (i.ipv4.empty()) s.bind_null(5).bind_null(6); else s.bind(5, i.ipv4).bind(6, i.ipv4_len);
      if (i.ipv6.empty()) s.bind_null(7).bind_null(8); else s.bind(7, i.ipv6).bind(8, i.ipv6_len);
      s.step();
      if (s.failed()) return fail(db, "interfaces");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (const auto& l : bp.links) {
      s.bind(1, bp.cables[l.cable].id).bind(2, l.a_ipv4).bind(3, l.z_ipv4).bind(4, l.ipv4_len);
      s.bind(5, l.a_ipv6).bind(6, l.z_ipv6).bind(7, l.ipv6_len);
      s.step();
      if (s.failed()) return fail(db, "links");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO bom VALUES (?, ?, ?, ?, ?)");
    for (const auto& b : bp.bom) {
      s.bind(1, b.category).bind(2, b.part);
      if (b.media.empty()) s.bind_null(3); else s.bind(3, b.media);
      s.bind_or_null(4, b.length_m, 0).bind(5, b.count);
      s.step();
      if (s.failed()) return fail(db, "bom");
      s.reset();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO warnings VALUES (?, ?)");
    for (const auto& w : bp.warnings) {
      if (w.cable.empty()) s.bind_null(1); else s.bind(1, w.cable);
      s.bind(2, w.message);
      s.step();
      if (s.failed()) return fail(db, "warnings");
      s.reset();
    }
  }
  return {};
}

// SQLite's own header (https://sqlite.org/fileformat2.html §1.3): the magic
// string, the page size at offset 16 and the page count at offset 28. A file
// shorter than page size x page count was cut off.
Status check_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 100> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  if (in.gcount() == 0) return Error{fmt::format("{}: empty file, not a blueprint database", path)};
  if (in.gcount() < 100 || std::string_view(reinterpret_cast<const char*>(h.data()), 16) !=
                               std::string_view("SQLite format 3\0", 16)) {
    return Error{fmt::format("{}: not an SQLite database (is this a blueprint.db?)", path)};
  }
  uint32_t page_size = (h[16] << 8) | h[17];
  if (page_size == 1) page_size = 65536;
  uint64_t pages = (uint64_t{h[28]} << 24) | (h[29] << 16) | (h[30] << 8) | h[31];
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && pages > 0 &&
      static_cast<uint64_t>(st.st_size) < pages * page_size) {
    return Error{fmt::format("{}: truncated database ({} bytes, the header says {})", path,
                             st.st_size, pages * page_size)};
  }
  return {};
}

}  // namespace

Status write_blueprint_db(const Blueprint& bp, const std::string& path) {
  auto opened = sql::Db::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!opened) return opened.error();
  sql::Db db = std::move(opened.value());
  // The file is written into a temporary directory that is renamed into place
  // only when complete, so no journal is needed while it is filled.
  auto [tables, indexes] = split_schema();
  for (auto step : {std::string_view("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                     " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-200000;"),
                    std::string_view("BEGIN"), tables}) {
    if (auto st = db.exec(step); !st) return Error{"writing blueprint: " + st.error().message};
  }
  if (auto st = write_rows(bp, db); !st) return st;
  for (auto step : {indexes, std::string_view("COMMIT")}) {
    if (auto st = db.exec(step); !st) return Error{"writing blueprint: " + st.error().message};
  }
  // Readers and later writers share the file: WAL lets them run side by side.
  std::string tail = fmt::format("PRAGMA user_version={}; PRAGMA journal_mode=WAL;",
                                 kBlueprintSchemaVersion);
  if (auto st = db.exec(tail); !st) return Error{"writing blueprint: " + st.error().message};
  return {};
}

Result<BlueprintStore> BlueprintStore::open(const std::string& dir) {
  struct stat st {};
  std::string path = dir;
  if (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) path = dir + "/blueprint.db";
  if (stat(path.c_str(), &st) != 0) {
    return Error{fmt::format("{}: no blueprint here (run `hpnctl plan -o {}` first)", path, dir)};
  }
  if (auto h = check_header(path); !h) return h.error();
  auto opened = sql::Db::open(path, SQLITE_OPEN_READONLY);
  if (!opened) return opened.error();
  BlueprintStore store;
  store.path_ = path;
  store.db_ = std::move(opened.value());
  sqlite3_busy_timeout(store.db_.raw(), 5000);

  sql::Stmt version(store.db_, "PRAGMA user_version");
  if (!version.ok() || !version.step()) {
    return Error{fmt::format("{}: unreadable database: {}", path, store.db_.last_error())};
  }
  auto format = store.meta("format");
  if (!format || format.value() != kBlueprintFormat) {
    return Error{fmt::format("{}: not an hpnctl blueprint (no '{}' format record)", path,
                             kBlueprintFormat)};
  }
  if (version.integer(0) != kBlueprintSchemaVersion) {
    return Error{fmt::format("{}: blueprint schema version {}, this hpnctl reads version {}; "
                             "re-run `hpnctl plan` with this version",
                             path, version.integer(0), kBlueprintSchemaVersion)};
  }
  return store;
}

Result<std::string> BlueprintStore::meta(const std::string& key) const {
  sql::Stmt s(db_, "SELECT value FROM meta WHERE key = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, key);
  if (s.step()) return s.text(0);
  if (s.failed()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  return Error{fmt::format("{}: no meta record '{}'", path_, key)};
}

namespace {

constexpr const char* kDeviceColumns =
    "SELECT name, role, pod, segment, plane, rail, node_id, rack, ru, state, asn FROM devices";

DeviceRow read_device(const sql::Stmt& s) {
  DeviceRow d;
  d.name = s.text(0);
  d.role = s.text(1);
  d.pod = static_cast<int>(s.integer_or(2, kNone));
  d.segment = static_cast<int>(s.integer_or(3, kNone));
  d.plane = static_cast<int>(s.integer_or(4, kNone));
  d.rail = static_cast<int>(s.integer_or(5, kNone));
  d.node_id = s.integer(6);
  d.rack = s.text(7);
  d.ru = static_cast<int>(s.integer_or(8, kNone));
  d.state = s.text(9);
  d.asn = s.integer_or(10, kNone);
  return d;
}

}  // namespace

Result<std::vector<DeviceRow>> BlueprintStore::devices(const DeviceFilter& f) const {
  std::string sql = kDeviceColumns;
  sql += " WHERE (?1 IS NULL OR role = ?1) AND (?2 IS NULL OR state = ?2)"
         " AND (?3 IS NULL OR pod = ?3) AND (?4 IS NULL OR segment = ?4)"
         " AND (?5 IS NULL OR plane = ?5) AND (?6 IS NULL OR rail = ?6) ORDER BY rowid";
  sql::Stmt s(db_, sql);
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  if (f.role) s.bind(1, *f.role);
  if (f.state) s.bind(2, *f.state);
  if (f.pod) s.bind(3, *f.pod);
  if (f.segment) s.bind(4, *f.segment);
  if (f.plane) s.bind(5, *f.plane);
  if (f.rail) s.bind(6, *f.rail);
  std::vector<DeviceRow> rows;
  while (s.step()) rows.push_back(read_device(s));
  if (s.failed()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  return rows;
}

Result<std::optional<DeviceRow>> BlueprintStore::device(const std::string& name) const {
  sql::Stmt s(db_, std::string(kDeviceColumns) + " WHERE name = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, name);
  if (s.step()) return std::optional<DeviceRow>(read_device(s));
  if (s.failed()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  return std::optional<DeviceRow>();
}

Result<std::vector<CableRow>> BlueprintStore::cables_of(
    const std::string& device, const std::optional<std::string>& port) const {
  sql::Stmt s(db_,
              "SELECT cable_id, kind, a_device, a_port, z_device, z_port, speed_gbps, state,"
              " length_m, media, label_a, label_z FROM cables"
              " WHERE (a_device = ?1 AND (?2 IS NULL OR a_port = ?2))"
              "    OR (z_device = ?1 AND (?2 IS NULL OR z_port = ?2)) ORDER BY rowid");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, device);
  if (port) s.bind(2, *port);
  std::vector<CableRow> rows;
  while (s.step()) {
    CableRow c;
    c.cable_id = s.text(0);
    c.kind = s.text(1);
    c.a_device = s.text(2);
    c.a_port = s.text(3);
    c.z_device = s.text(4);
    c.z_port = s.text(5);
    c.speed_gbps = static_cast<int>(s.integer(6));
    c.state = s.text(7);
    c.length_m = static_cast<int>(s.integer(8));
    c.media = s.text(9);
    c.label_a = s.text(10);
    c.label_z = s.text(11);
    rows.push_back(std::move(c));
  }
  if (s.failed()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  return rows;
}

Result<bool> BlueprintStore::has_port(const std::string& device, const std::string& port) const {
  sql::Stmt s(db_, "SELECT 1 FROM ports WHERE device = ? AND port = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, device).bind(2, port);
  bool found = s.step();
  if (s.failed()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  return found;
}

}  // namespace hpn
