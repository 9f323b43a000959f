#include "blueprint/store.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "blueprint/input_file.h"

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
  auto rack_of = [&](int device) -> std::string_view {
    int rack = bp.devices[device].rack;
    return rack == kNone ? std::string_view() : std::string_view(bp.racks[rack].name);
  };
  const std::string schema_version = std::to_string(kBlueprintSchemaVersion);
  {
    sql::BatchInsert meta(db, "meta", 2, 1);
    const std::array<std::pair<std::string_view, std::string_view>, 5> rows{{
        {"format", kBlueprintFormat},
        {"schema_version", schema_version},
        {"tool_version", bp.tool_version},
        {"spec_name", bp.spec_name},
        {"spec_yaml", bp.spec_yaml},
    }};
    for (const auto& [k, v] : rows) meta.text(k).text(v).end_row();
    if (!meta.flush()) return fail(db, "meta");
  }
  {
    sql::BatchInsert racks(db, "racks", 5);
    for (const auto& r : bp.racks) {
      racks.text(r.name).integer(r.hall).integer(r.row).integer(r.position).text(r.purpose).end_row();
    }
    if (!racks.flush()) return fail(db, "racks");
  }
  {
    sql::BatchInsert devices(db, "devices", 12);
    for (const auto& d : bp.devices) {
      devices.text(d.name).text(to_string(d.role)).integer_or_null(d.pod, kNone);
      devices.integer_or_null(d.segment, kNone).integer_or_null(d.plane, kNone);
      devices.integer_or_null(d.rail, kNone).integer(d.node_id);
      devices.text_or_null(d.rack == kNone ? std::string_view() : bp.racks[d.rack].name);
      devices.integer_or_null(d.ru, kNone).text(to_string(d.state)).integer_or_null(d.asn, kNone);
      devices.text(bp.panels[d.panel].name);
      if (!devices.end_row()) return fail(db, "devices");
    }
    if (!devices.flush()) return fail(db, "devices");
  }
  {
    sql::BatchInsert panels(db, "panels", 8);
    for (const auto& panel : bp.panels) {
      int seq = 0;
      for (const auto& p : panel.ports) {
        panels.text(panel.name).integer(seq++).text(p.name).integer(p.port_id).integer(p.speed_gbps);
        panels.integer_or_null(p.nic, kNone).text_or_null(p.breakout_of).text(to_string(p.use));
        if (!panels.end_row()) return fail(db, "panels");
      }
    }
    if (!panels.flush()) return fail(db, "panels");
  }
  {
    constexpr int kBatch = 64;
    sql::BatchInsert cables(db, "cables", 20, kBatch);
    // Labels and panel ports are made here; bound without copying, they
    // must outlive the batch.
    std::vector<std::string> labels(4 * kBatch);
    size_t row = 0;
    for (const auto& c : bp.cables) {
      std::string& label_a = labels[4 * (row % kBatch)];
      std::string& label_z = labels[4 * (row % kBatch) + 1];
      std::string& panel_a = labels[4 * (row % kBatch) + 2];
      std::string& panel_z = labels[4 * (row % kBatch) + 3];
      ++row;
      label_a = cable_label(bp, c, true);
      label_z = cable_label(bp, c, false);
      panel_a = end_panel(bp, c, true);
      panel_z = end_panel(bp, c, false);
      cables.text(c.id).text(to_string(c.kind)).text(name_of(c.a_device)).text(c.a_port);
      cables.text(name_of(c.z_device)).text(c.z_port).integer(c.speed_gbps).text(to_string(c.state));
      cables.integer(c.length_m).integer_or_null(c.stock_length_m, 0).text(c.media);
      cables.text(rack_of(c.a_device)).integer(bp.devices[c.a_device].ru);
      cables.text(rack_of(c.z_device)).integer(bp.devices[c.z_device].ru);
      cables.text(label_a).text(label_z).integer(c.patched() ? c.legs : 1);
      cables.text_or_null(panel_a).text_or_null(panel_z);
      if (!cables.end_row()) return fail(db, "cables");
    }
    if (!cables.flush()) return fail(db, "cables");
  }
  {
    sql::BatchInsert panels(db, "patch_panels", 4);
    for (const auto& p : bp.patch_panels) panels.text(p.name).integer(p.hall).integer_or_null(p.row, kNone).integer(p.ports).end_row();
    if (!panels.flush()) return fail(db, "patch_panels");
  }
  {
    sql::BatchInsert trunks(db, "trunks", 10);
    for (const auto& t : bp.trunks) {
      trunks.text(t.id).text(bp.patch_panels[t.a_panel].name).text(bp.patch_panels[t.z_panel].name);
      trunks.text(t.media).text(t.fibre).text(t.connector).text(t.polarity).integer(t.lanes);
      trunks.integer(t.length_m).integer(t.stock_length_m);
      if (!trunks.end_row()) return fail(db, "trunks");
    }
    if (!trunks.flush()) return fail(db, "trunks");
  }
  {
    sql::BatchInsert legs(db, "legs", 10);
    auto panel = [&](int p) { return p == kNone ? std::string_view() : std::string_view(bp.patch_panels[p].name); };
    for (const auto& c : bp.cables) {
      for (int i = 0; i < c.legs; ++i) {
        const RunLeg& l = bp.legs[c.first_leg + i];
        legs.text(c.id).integer(i + 1).text_or_null(panel(l.from_panel)).integer_or_null(l.from_port, kNone);
        legs.text_or_null(panel(l.to_panel)).integer_or_null(l.to_port, kNone);
        legs.text_or_null(l.trunk == kNone ? std::string_view() : std::string_view(bp.trunks[l.trunk].id));
        legs.integer_or_null(l.lane, kNone).integer(l.length_m).integer(l.stock_length_m);
        if (!legs.end_row()) return fail(db, "legs");
      }
    }
    if (!legs.flush()) return fail(db, "legs");
  }
  {
    sql::BatchInsert rules(db, "core_rules", 6);
    for (const auto& r : bp.core_rules) {
      rules.text(name_of(r.core)).text(r.in_port).integer(r.dst_pod).text(r.out_port);
      rules.text(r.fallback).text(r.status);
      if (!rules.end_row()) return fail(db, "core_rules");
    }
    if (!rules.flush()) return fail(db, "core_rules");
  }
  {
    sql::BatchInsert interfaces(db, "interfaces", 9);
    for (const auto& i : bp.interfaces) {
      interfaces.text(name_of(i.device)).text(i.name).text(to_string(i.purpose)).integer_or_null(i.nic, kNone);
      interfaces.text_or_null(i.ipv4).integer_or_null(i.ipv4_len, 0);
      interfaces.text_or_null(i.ipv6).integer_or_null(i.ipv6_len, 0).text_or_null(i.mac);
      if (!interfaces.end_row()) return fail(db, "interfaces");
    }
    if (!interfaces.flush()) return fail(db, "interfaces");
  }
  {
    sql::BatchInsert links(db, "links", 7);
    for (const auto& l : bp.links) {
      links.text(bp.cables[l.cable].id).text(l.a_ipv4).text(l.z_ipv4).integer(l.ipv4_len);
      links.text(l.a_ipv6).text(l.z_ipv6).integer(l.ipv6_len);
      if (!links.end_row()) return fail(db, "links");
    }
    if (!links.flush()) return fail(db, "links");
  }
  {
    sql::BatchInsert bom(db, "bom", 8);
    for (const auto& b : bp.bom) {
      bom.text(b.category).text(b.part).text_or_null(b.media).integer_or_null(b.length_m, 0);
      bom.integer(b.count).text_or_null(b.fibre).text_or_null(b.connector).text_or_null(b.polarity).end_row();
    }
    if (!bom.flush()) return fail(db, "bom");
  }
  {
    sql::BatchInsert warnings(db, "warnings", 3);
    for (const auto& w : bp.warnings) warnings.text_or_null(w.cable).text(w.cause).text(w.message).end_row();
    if (!warnings.flush()) return fail(db, "warnings");
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

// A file: URI for `path`: the characters URIs give a meaning are escaped.
std::string sqlite_uri(const std::string& path, std::string_view query) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      uri += fmt::format("%{:02X}", c);
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?" + std::string(query);
}

bool is_corrupt(const sql::Db& db) {
  const int code = sqlite3_errcode(db.raw());
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

// Every table and view of this build's schema, with every column, must be
// in the file: a file that lost one fails here with its name, not halfway
// through a command. The expected columns come from the embedded schema
// itself, created in an in-memory database.
Status check_tables(const sql::Db& db, const std::string& path) {
  auto reference = sql::Db::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY);
  if (!reference) return reference.error();
  if (auto st = reference->exec(std::string(embedded::blueprint_sql)); !st) {
    return Error{"internal error: schemas/blueprint.sql: " + st.error().message};
  }
  auto columns_of = [](const sql::Db& d, const std::string& table) {
    std::vector<std::string> columns;
    sql::Stmt s(d, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
    s.bind(1, table);
    while (s.ok() && s.step()) columns.push_back(s.text(0));
    return columns;
  };
  sql::Stmt tables(reference.value(),
                   "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY rowid");
  while (tables.step()) {
    const std::string name = tables.text(0), type = tables.text(1);
    sql::Stmt present(db, "SELECT 1 FROM sqlite_schema WHERE name = ? AND type = ?");
    present.bind(1, name).bind(2, type);
    if (!present.ok() || !present.step()) {
      if (present.failed() || !present.ok()) {
        return Error{fmt::format("{}: unreadable database: {}", path, db.last_error())};
      }
      return Error{fmt::format("{}: not a complete blueprint: {} '{}' is missing", path, type, name)};
    }
    const std::vector<std::string> have = columns_of(db, name);
    for (const auto& column : columns_of(reference.value(), name)) {
      if (std::find(have.begin(), have.end(), column) == have.end()) {
        if (is_corrupt(db)) return Error{fmt::format("{}: corrupt database: {}", path, db.last_error())};
        return Error{fmt::format("{}: not a complete blueprint: {} '{}' has no column '{}'", path, type,
                                 name, column)};
      }
    }
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
                                     " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-16384;"
                                     " PRAGMA temp_store=MEMORY; PRAGMA page_size=16384;"),
                    std::string_view("BEGIN"), tables}) {
    if (auto st = db.exec(step); !st) return Error{"writing blueprint: " + st.error().message};
  }
  if (auto st = write_rows(bp, db); !st) return st;
  for (auto step : {indexes, std::string_view("COMMIT")}) {
    if (auto st = db.exec(step); !st) return Error{"writing blueprint: " + st.error().message};
  }
  // The file leaves here in WAL mode (header bytes 18-19 = 2), so that a
  // writer working on it in place never blocks its readers nor they it. No
  // -wal or -shm file is left beside it: in exclusive locking mode the WAL
  // index lives in memory, and the close checkpoints and deletes the WAL.
  // How readers open it is in BlueprintStore::open.
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
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("{}: not a regular file, not a blueprint database", path)};
  if (auto h = check_header(path); !h) return h.error();
  // hpnctl never changes a committed blueprint.db in place (a re-plan swaps
  // in a new directory), so it is read as immutable: no locks, no -shm or
  // -wal files created beside it, and a user who may not write the
  // directory (a root-owned plan, a read-only mount) reads it as well as
  // root does. Only when a -wal file is there has something written it in
  // place (or died doing so): then SQLite's locking and WAL recovery are
  // needed, with a busy timeout so a concurrent writer's checkpoint is
  // waited for, not reported.
  struct stat wal {};
  const bool in_place_writer = stat((path + "-wal").c_str(), &wal) == 0;
  const std::string uri = sqlite_uri(path, in_place_writer ? "mode=ro" : "immutable=1");
  // NOMUTEX: a store is read by one thread at a time, so SQLite's lock
  // around every call (a fifth of loading the default pod's rows) guards
  // nothing.
  auto opened = sql::Db::open(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX);
  if (!opened) {
    return Error{fmt::format("{}: cannot open: {}", path, opened.error().message.substr(uri.size() + 2))};
  }
  BlueprintStore store;
  store.path_ = path;
  store.db_ = std::move(opened.value());
  sqlite3_busy_timeout(store.db_.raw(), kBlueprintBusyTimeoutMs);

  sql::Stmt version(store.db_, "PRAGMA user_version");
  if (!version.ok() || !version.step()) {
    return Error{fmt::format("{}: unreadable database: {}", path, store.db_.last_error())};
  }
  // The meta table and its format record are kept in every schema version,
  // so a blueprint is told from another SQLite file before versions matter.
  auto format = store.meta("format");
  if (!format || format.value() != kBlueprintFormat) {
    if (!format && is_corrupt(store.db_)) {
      return Error{fmt::format("{}: corrupt database: {}", path, store.db_.last_error())};
    }
    return Error{fmt::format("{}: not an hpnctl blueprint (no '{}' format record)", path,
                             kBlueprintFormat)};
  }
  if (version.integer(0) != kBlueprintSchemaVersion) {
    return Error{fmt::format("{} was written by schema version {}; this hpnctl reads version {}: "
                             "re-run hpnctl plan",
                             path, version.integer(0), kBlueprintSchemaVersion)};
  }
  if (auto complete = check_tables(store.db_, path); !complete) return complete.error();
  return store;
}

Result<std::string> BlueprintStore::meta(const std::string& key) const {
  sql::Stmt s(db_, "SELECT value FROM meta WHERE key = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, key);
  if (s.step()) return s.text(0);
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return Error{fmt::format("{}: no meta record '{}'", path_, key)};
}

namespace {

// The ranges schemas/blueprint.sql gives: a 24-bit telemetry node ID (all
// ones is "unavailable", RFC 9197 §4.4.2.1), a 16-bit interface ID (§4.4.2.2)
// and a 4-octet AS number (RFC 6793).
constexpr int64_t kMaxNodeId = 0xFFFFFE;
constexpr int64_t kMaxPortId = 0xFFFE;
constexpr int64_t kMaxAsn = 0xFFFFFFFF;

constexpr const char* kDeviceColumns =
    "SELECT name, role, pod, segment, plane, rail, node_id, rack, ru, state, asn FROM devices";

DeviceRow read_device(const sql::Stmt& s) {
  DeviceRow d;
  d.name = s.name(0);
  d.role = s.text(1);
  d.pod = s.int32_or(2, kNone);
  d.segment = s.int32_or(3, kNone);
  d.plane = s.int32_or(4, kNone);
  d.rail = s.int32_or(5, kNone);
  d.node_id = s.integer(6, 0, kMaxNodeId);
  d.rack = s.text(7);
  d.ru = s.int32_or(8, kNone);
  d.state = s.text(9);
  d.asn = s.integer_or(10, kNone, 0, kMaxAsn);
  return d;
}

}  // namespace

Result<std::vector<DeviceRow>> BlueprintStore::devices(const DeviceFilter& f) const {
  std::string sql = kDeviceColumns;
  sql += " WHERE (?1 IS NULL OR role = ?1) AND (?2 IS NULL OR state = ?2)"
         " AND (?3 IS NULL OR pod = ?3) AND (?4 IS NULL OR segment = ?4)"
         " AND (?5 IS NULL OR plane = ?5) AND (?6 IS NULL OR rail = ?6) AND (?7 IS NULL OR rack = ?7)"
         " ORDER BY rowid";
  sql::Stmt s(db_, sql);
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  if (f.role) s.bind(1, *f.role);
  if (f.state) s.bind(2, *f.state);
  if (f.pod) s.bind(3, *f.pod);
  if (f.segment) s.bind(4, *f.segment);
  if (f.plane) s.bind(5, *f.plane);
  if (f.rail) s.bind(6, *f.rail);
  if (f.rack) s.bind(7, *f.rack);
  std::vector<DeviceRow> rows;
  while (s.step()) rows.push_back(read_device(s));
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return rows;
}

Result<std::optional<DeviceRow>> BlueprintStore::device(const std::string& name) const {
  sql::Stmt s(db_, std::string(kDeviceColumns) + " WHERE name = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, name);
  if (s.step()) return std::optional<DeviceRow>(read_device(s));
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return std::optional<DeviceRow>();
}

namespace {

// A cable with where each end is: the devices' racks and units.
constexpr const char* kCableColumns =
    "SELECT c.cable_id, c.kind, c.a_device, c.a_port, c.z_device, c.z_port, c.speed_gbps, c.state, c.length_m,"
    " c.media, c.label_a, c.label_z, da.rack, da.ru, dz.rack, dz.ru, c.stock_length_m, lg.cords, lg.via FROM cables c"
    " LEFT JOIN devices da ON da.name = c.a_device LEFT JOIN devices dz ON dz.name = c.z_device"
    // A patched run's cords (leg order: the inner ORDER BY feeds group_concat) and trunk lanes.
    " LEFT JOIN (SELECT cable_id, group_concat(CASE WHEN trunk_id IS NULL THEN stock_length_m END) AS cords,"
    "   group_concat(CASE WHEN trunk_id IS NOT NULL THEN trunk_id || ' lane ' || lane END, ', ') AS via"
    "   FROM (SELECT * FROM legs ORDER BY cable_id, leg) GROUP BY cable_id) lg ON lg.cable_id = c.cable_id";

// A cable row, or the bad value that ended the statement; `cords` is
// computed (group_concat), so its numbers are checked here.
std::optional<CableRow> cable_row(const sql::Stmt& s, std::string& error) {
  CableRow c;
  c.cable_id = s.text(0);
  c.kind = s.text(1);
  c.a_device = s.text(2);
  c.a_port = s.text(3);
  c.z_device = s.text(4);
  c.z_port = s.text(5);
  c.speed_gbps = s.int32(6);
  c.state = s.text(7);
  c.length_m = s.int32(8);
  c.media = s.text(9);
  c.label_a = s.text(10);
  c.label_z = s.text(11);
  c.a_rack = s.text(12);
  c.a_ru = s.int32_or(13, kNone);
  c.z_rack = s.text(14);
  c.z_ru = s.int32_or(15, kNone);
  c.stock_length_m = s.int32(16);
  const std::string cords = s.text(17);
  for (size_t at = 0; at < cords.size();) {
    size_t end = cords.find(',', at);
    if (end == std::string::npos) end = cords.size();
    int metres = 0;
    const auto [stop, ec] = std::from_chars(cords.data() + at, cords.data() + end, metres);
    if (ec != std::errc() || stop != cords.data() + end) {
      error = fmt::format("cable {}: legs: a patch cord's stock_length_m is not an integer ('{}')", c.cable_id,
                          printable(cords.substr(at, end - at)));
      return std::nullopt;
    }
    c.cords_m.push_back(metres);
    at = end + 1;
  }
  c.via = s.text(18);
  if (s.failed()) return std::nullopt;
  return c;
}

}  // namespace

Result<std::vector<CableRow>> BlueprintStore::cables_of(
    const std::string& device, const std::optional<std::string>& port) const {
  sql::Stmt s(db_, std::string(kCableColumns) +
                       " WHERE (c.a_device = ?1 AND (?2 IS NULL OR c.a_port = ?2))"
                       "    OR (c.z_device = ?1 AND (?2 IS NULL OR c.z_port = ?2)) ORDER BY c.rowid");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, device);
  if (port) s.bind(2, *port);
  std::vector<CableRow> rows;
  std::string error;
  while (s.step()) {
    auto row = cable_row(s, error);
    if (!row) break;
    rows.push_back(std::move(*row));
  }
  if (!error.empty()) return Error{fmt::format("{}: {}", path_, error)};
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return rows;
}

Result<std::vector<CableRow>> BlueprintStore::cables(const CableFilter& f) const {
  // An end matches when its device is in the pod, segment and rack asked for.
  constexpr const char* kEnd = "(?3 IS NULL OR {0}.pod = ?3) AND (?4 IS NULL OR {0}.segment = ?4)"
                               " AND (?5 IS NULL OR {0}.rack = ?5)";
  sql::Stmt s(db_, fmt::format("{} WHERE (?1 IS NULL OR c.kind = ?1) AND (?2 IS NULL OR c.state = ?2)"
                               " AND (({}) OR ({})) ORDER BY c.rowid",
                               kCableColumns, fmt::format(kEnd, "da"), fmt::format(kEnd, "dz")));
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  if (f.kind) s.bind(1, *f.kind);
  if (f.state) s.bind(2, *f.state);
  if (f.pod) s.bind(3, *f.pod);
  if (f.segment) s.bind(4, *f.segment);
  if (f.rack) s.bind(5, *f.rack);
  std::vector<CableRow> rows;
  std::string error;
  while (s.step()) {
    auto row = cable_row(s, error);
    if (!row) break;
    rows.push_back(std::move(*row));
  }
  if (!error.empty()) return Error{fmt::format("{}: {}", path_, error)};
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return rows;
}

Result<std::vector<Rack>> BlueprintStore::racks() const {
  sql::Stmt s(db_, "SELECT name, hall, row, position, purpose FROM racks ORDER BY hall, row, position, name");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  std::vector<Rack> racks;
  while (s.step()) {
    racks.push_back({s.text(0), s.int32(1), s.int32(2),
                     s.int32(3), s.text(4)});
  }
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return racks;
}

Result<std::optional<CableRow>> BlueprintStore::cable(const std::string& cable_id) const {
  sql::Stmt s(db_, std::string(kCableColumns) + " WHERE c.cable_id = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, cable_id);
  std::optional<CableRow> row;
  std::string error;
  if (s.step()) row = cable_row(s, error);
  if (!error.empty()) return Error{fmt::format("{}: {}", path_, error)};
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return row;
}

Result<std::vector<std::string>> BlueprintStore::lanes_of(const std::string& device, const std::string& cage) const {
  sql::Stmt s(db_, "SELECT port FROM ports WHERE device = ? AND port GLOB ? ORDER BY port");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  const std::string pattern = cage + "[a-z]";  // bound SQLITE_STATIC: it must outlive step()
  s.bind(1, device).bind(2, pattern);
  std::vector<std::string> lanes;
  while (s.step()) lanes.push_back(s.text(0));
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return lanes;
}

Result<std::optional<PortInfo>> BlueprintStore::port_info(const std::string& device, const std::string& port) const {
  sql::Stmt s(db_, "SELECT speed_gbps, breakout_of FROM ports WHERE device = ? AND port = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, device).bind(2, port);
  std::optional<PortInfo> info;
  if (s.step()) info = PortInfo{s.int32(0), s.text(1)};
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return info;
}

Result<Blueprint> BlueprintStore::load() const {
  Blueprint bp;
  auto failed = [&](const sql::Stmt& s, const char* what) {
    return Error{fmt::format("{}: reading {}: {}", path_, what, s.ok() ? s.error() : db_.last_error())};
  };
  for (auto [key, out] : {std::pair{"spec_name", &bp.spec_name}, {"spec_yaml", &bp.spec_yaml},
                          {"tool_version", &bp.tool_version}}) {
    auto value = meta(key);
    if (!value) return value.error();
    *out = value.value();
  }
  std::unordered_map<std::string, int> rack_index, panel_index;
  NameIndex device_index;
  {
    sql::Stmt s(db_, "SELECT name, hall, row, position, purpose FROM racks ORDER BY rowid");
    while (s.step()) {
      rack_index.emplace(s.name(0), static_cast<int>(bp.racks.size()));
      bp.racks.push_back({s.name(0), s.int32(1), s.int32(2),
                          s.int32(3), s.text(4)});
    }
    if (!s.ok() || s.failed()) return failed(s, "racks");
  }
  {
    sql::Stmt s(db_, "SELECT panel, port, port_id, speed_gbps, nic, breakout_of, use FROM panels"
                     " ORDER BY panel, seq");
    while (s.step()) {
      auto [it, fresh] = panel_index.emplace(s.name(0), static_cast<int>(bp.panels.size()));
      if (fresh) bp.panels.push_back({s.name(0), {}});
      PanelPort p;
      p.name = s.text(1);
      p.port_id = static_cast<uint16_t>(s.integer(2, 0, kMaxPortId));
      p.speed_gbps = s.int32(3);
      p.nic = s.int32_or(4, kNone);
      p.breakout_of = s.text(5);
      if (!parse_port_use(s.text(6), p.use)) return Error{fmt::format("{}: unknown port use '{}'", path_, s.text(6))};
      bp.panels[it->second].ports.push_back(std::move(p));
    }
    if (!s.ok() || s.failed()) return failed(s, "panels");
  }
  {
    sql::Stmt s(db_, "SELECT name, role, pod, segment, plane, rail, node_id, rack, ru, state, asn, panel"
                     " FROM devices ORDER BY rowid");
    while (s.step()) {
      DeviceRow row = read_device(s);
      Device d;
      d.name = row.name;
      if (!parse_role(row.role, d.role)) return Error{fmt::format("{}: unknown role '{}'", path_, row.role)};
      d.pod = row.pod;
      d.segment = row.segment;
      d.plane = row.plane;
      d.rail = row.rail;
      d.node_id = static_cast<uint32_t>(row.node_id);
      auto rack = rack_index.find(row.rack);
      d.rack = rack == rack_index.end() ? kNone : rack->second;
      d.ru = row.ru;
      d.state = row.state == "backup" ? State::backup : State::active;
      d.asn = row.asn;
      auto panel = panel_index.find(s.text(11));
      if (panel == panel_index.end()) return Error{fmt::format("{}: device {} has no panel", path_, d.name)};
      d.panel = panel->second;
      device_index.emplace(d.name, static_cast<int>(bp.devices.size()));
      bp.devices.push_back(std::move(d));
    }
    if (!s.ok() || s.failed()) return failed(s, "devices");
  }
  // Rows come grouped by device (a core's rules, a device's interfaces),
  // so the last device found is asked for again most of the time.
  std::string last_name;
  int last_device = -1;
  auto device_of = [&](std::string_view name, int& out) {
    if (last_device < 0 || name != last_name) {
      auto it = device_index.find(name);
      if (it == device_index.end()) return false;
      last_name = name;
      last_device = it->second;
    }
    out = last_device;
    return true;
  };
  NameIndex cable_index;
  {
    sql::Stmt s(db_, "SELECT cable_id, kind, a_device, a_port, z_device, z_port, speed_gbps, state,"
                     " length_m, media, stock_length_m FROM cables ORDER BY rowid");
    while (s.step()) {
      Cable c;
      c.id = s.text(0);
      if (!parse_cable_kind(s.view(1), c.kind)) return Error{fmt::format("{}: cable {}: unknown kind '{}'", path_, c.id, s.text(1))};
      if (!device_of(s.view(2), c.a_device) || !device_of(s.view(4), c.z_device)) {
        return Error{fmt::format("{}: cable {} names a device the blueprint does not have", path_, c.id)};
      }
      c.a_port = s.text(3);
      c.z_port = s.text(5);
      c.speed_gbps = s.int32(6);
      c.state = s.view(7) == "backup" ? State::backup : State::active;
      c.length_m = s.int32(8);
      c.media = s.text(9);
      c.stock_length_m = s.int32(10);
      cable_index.emplace(c.id, static_cast<int>(bp.cables.size()));
      bp.cables.push_back(std::move(c));
    }
    if (!s.ok() || s.failed()) return failed(s, "cables");
  }
  {
    sql::Stmt s(db_, "SELECT core, in_port, dst_pod, out_port, fallback, status FROM core_rules ORDER BY rowid");
    while (s.step()) {
      CoreRule r;
      if (!device_of(s.view(0), r.core)) return Error{fmt::format("{}: core rule of unknown device {}", path_, s.text(0))};
      r.in_port = s.text(1);
      r.dst_pod = s.int32(2);
      r.out_port = s.text(3);
      r.fallback = s.text(4);
      r.status = s.text(5);
      bp.core_rules.push_back(std::move(r));
    }
    if (!s.ok() || s.failed()) return failed(s, "core_rules");
  }
  {
    sql::Stmt s(db_, "SELECT device, interface, purpose, nic, ipv4, ipv4_len, ipv6, ipv6_len, mac FROM interfaces"
                     " ORDER BY rowid");
    while (s.step()) {
      Interface i;
      if (!device_of(s.view(0), i.device)) return Error{fmt::format("{}: interface of unknown device {}", path_, s.text(0))};
      i.name = s.text(1);
      if (!parse_interface_purpose(s.view(2), i.purpose)) {
        return Error{fmt::format("{}: interface {} of {}: unknown purpose '{}'", path_, i.name, s.text(0), s.text(2))};
      }
      i.nic = s.int32_or(3, kNone);
      i.ipv4 = s.text(4);
      i.ipv4_len = s.int32_or(5, 0);
      i.ipv6 = s.text(6);
      i.ipv6_len = s.int32_or(7, 0);
      i.mac = s.text(8);
      bp.interfaces.push_back(std::move(i));
    }
    if (!s.ok() || s.failed()) return failed(s, "interfaces");
  }
  {
    sql::Stmt s(db_, "SELECT cable_id, a_ipv4, z_ipv4, ipv4_len, a_ipv6, z_ipv6, ipv6_len FROM links ORDER BY rowid");
    while (s.step()) {
      auto it = cable_index.find(s.view(0));
      if (it == cable_index.end()) return Error{fmt::format("{}: link of unknown cable {}", path_, s.text(0))};
      bp.links.push_back({it->second, s.text(1), s.text(2), s.int32(3), s.text(4),
                          s.text(5), s.int32(6)});
    }
    if (!s.ok() || s.failed()) return failed(s, "links");
  }
  if (auto plant = load_plant(bp, cable_index); !plant) return plant.error();
  return bp;
}

Status BlueprintStore::load_plant(Blueprint& bp, const NameIndex& cable_index) const {
  auto failed = [&](const sql::Stmt& s, const char* what) {
    return Error{fmt::format("{}: reading {}: {}", path_, what, s.ok() ? s.error() : db_.last_error())};
  };
  std::unordered_map<std::string, int> panel_index, trunk_index;
  {
    sql::Stmt s(db_, "SELECT name, hall, row, ports FROM patch_panels ORDER BY rowid");
    while (s.step()) {
      panel_index.emplace(s.text(0), static_cast<int>(bp.patch_panels.size()));
      bp.patch_panels.push_back({s.text(0), s.int32(1), s.int32_or(2, kNone),
                                 s.int32(3)});
    }
    if (!s.ok() || s.failed()) return failed(s, "patch_panels");
  }
  auto panel_of = [&](const std::string& name, int& out) {
    if (name.empty()) return true;  // NULL: a device end
    auto it = panel_index.find(name);
    if (it == panel_index.end()) return false;
    out = it->second;
    return true;
  };
  {
    sql::Stmt s(db_, "SELECT trunk_id, a_panel, z_panel, media, fibre, connector, polarity, lanes, length_m,"
                     " stock_length_m FROM trunks ORDER BY rowid");
    while (s.step()) {
      Trunk t;
      t.id = s.text(0);
      if (!panel_of(s.text(1), t.a_panel) || !panel_of(s.text(2), t.z_panel)) {
        return Error{fmt::format("{}: trunk {} names a panel the blueprint does not have", path_, t.id)};
      }
      t.media = s.text(3);
      t.fibre = s.text(4);
      t.connector = s.text(5);
      t.polarity = s.text(6);
      t.lanes = s.int32(7);
      t.length_m = s.int32(8);
      t.stock_length_m = s.int32(9);
      trunk_index.emplace(t.id, static_cast<int>(bp.trunks.size()));
      bp.trunks.push_back(std::move(t));
    }
    if (!s.ok() || s.failed()) return failed(s, "trunks");
  }
  {
    sql::Stmt s(db_, "SELECT cable_id, from_panel, from_port, to_panel, to_port, trunk_id, lane, length_m,"
                     " stock_length_m FROM legs ORDER BY rowid");
    while (s.step()) {
      auto cable = cable_index.find(s.view(0));
      RunLeg l;
      bool known = cable != cable_index.end() && panel_of(s.text(1), l.from_panel) && panel_of(s.text(3), l.to_panel);
      if (known && !s.text(5).empty()) {
        auto trunk = trunk_index.find(s.text(5));
        known = trunk != trunk_index.end();
        if (known) l.trunk = trunk->second;
      }
      if (!known) return Error{fmt::format("{}: leg of cable {} names what the blueprint does not have", path_, s.text(0))};
      l.cable = cable->second;
      l.from_port = s.int32_or(2, kNone);
      l.to_port = s.int32_or(4, kNone);
      l.lane = s.int32_or(6, kNone);
      l.length_m = s.int32(7);
      l.stock_length_m = s.int32(8);
      Cable& c = bp.cables[l.cable];
      if (c.first_leg == kNone) c.first_leg = static_cast<int>(bp.legs.size());
      ++c.legs;
      bp.legs.push_back(l);
    }
    if (!s.ok() || s.failed()) return failed(s, "legs");
  }
  return {};
}

Result<BlueprintStore::Ranges> BlueprintStore::ranges() const {
  // Row by row rather than MIN()/MAX(): a value that is no integer is then
  // named by its row (a plan has a few thousand devices).
  sql::Stmt s(db_, "SELECT pod, segment, plane, rail FROM devices");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  Ranges r;
  auto widen = [](std::pair<int, int>& range, int v) {
    if (v == kNone) return;
    if (range.first == kNone || v < range.first) range.first = v;
    if (range.second == kNone || v > range.second) range.second = v;
  };
  while (s.step()) {
    widen(r.pod, s.int32_or(0, kNone));
    widen(r.segment, s.int32_or(1, kNone));
    widen(r.plane, s.int32_or(2, kNone));
    widen(r.rail, s.int32_or(3, kNone));
  }
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return r;
}

Result<bool> BlueprintStore::has_port(const std::string& device, const std::string& port) const {
  sql::Stmt s(db_, "SELECT 1 FROM ports WHERE device = ? AND port = ?");
  if (!s.ok()) return Error{fmt::format("{}: {}", path_, db_.last_error())};
  s.bind(1, device).bind(2, port);
  bool found = s.step();
  if (s.failed()) return Error{fmt::format("{}: {}", path_, s.error())};
  return found;
}

}  // namespace hpn
