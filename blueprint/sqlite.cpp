#include "blueprint/sqlite.h"

#include <fmt/format.h>

#include "blueprint/input_file.h"
#include "blueprint/names.h"
#include "blueprint/utf8.h"

namespace hpn::sql {

Db::~Db() {
  if (db_) sqlite3_close(db_);
}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close(db_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

Result<Db> Db::open(const std::string& path, int flags) {
  Db db;
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc);
    return Error{path + ": " + message};
  }
  sqlite3_extended_result_codes(db.db_, 1);
  return db;
}

Status Db::exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string m = message ? message : "unknown error";
    sqlite3_free(message);
    return Error{m};
  }
  return {};
}

Stmt::Stmt(const Db& db, std::string_view sql) {
  rc_ = sqlite3_prepare_v2(db.raw(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc_ != SQLITE_OK) stmt_ = nullptr;
}

Stmt::~Stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Stmt& Stmt::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  return *this;
}

Stmt& Stmt::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Stmt& Stmt::bind_or_null(int index, int64_t value, int64_t none) {
  return value == none ? bind_null(index) : bind(index, value);
}

bool Stmt::step() {
  if (bad_) return false;
  rc_ = sqlite3_step(stmt_);
  if (rc_ != SQLITE_ROW) return false;
  // sqlite3_column_text() hands back a TEXT value's bytes as stored: SQLite
  // never checks that they are UTF-8 (https://sqlite.org/invalidutf.html).
  for (int c = 0, n = sqlite3_column_count(stmt_); c < n; ++c) {
    const int type = sqlite3_column_type(stmt_, c);
    if (type != SQLITE_TEXT && type != SQLITE_BLOB) continue;
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
    const std::string_view value(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(stmt_, c)));
    if (!is_utf8(value)) {
      refuse(c, fmt::format("text that is not UTF-8 ('{}')", printable(value.substr(0, 40))));
      return false;
    }
  }
  return true;
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Stmt::error() const {
  if (bad_) return *bad_;
  return stmt_ ? sqlite3_errmsg(sqlite3_db_handle(stmt_)) : "no statement";
}

std::string Stmt::text(int column) const { return std::string(view(column)); }

std::string_view Stmt::view(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string_view();
}

int64_t Stmt::integer_or(int column, int64_t none, int64_t lo, int64_t hi) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_NULL: return none;
    case SQLITE_INTEGER: break;
    default: refuse(column, fmt::format("'{}' is not an integer", printable(text(column).substr(0, 40)))); return none;
  }
  const int64_t v = sqlite3_column_int64(stmt_, column);
  if (v < lo || v > hi) {
    refuse(column, fmt::format("{} is out of range ({} to {})", v, lo, hi));
    return none;
  }
  return v;
}

int64_t Stmt::integer(int column, int64_t lo, int64_t hi) const { return integer_or(column, 0, lo, hi); }

int Stmt::int32(int column) const { return int32_or(column, 0); }

int Stmt::int32_or(int column, int none) const {
  return static_cast<int>(integer_or(column, none, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

std::string Stmt::name(int column) const {
  std::string value = text(column);
  if (std::string problem = name_problem(value); !problem.empty()) refuse(column, fmt::format("'{}': {}", value, problem));
  return value;
}

void Stmt::refuse(int column, std::string_view why) const {
  if (!bad_) bad_ = fmt::format("{}: {}", where(column), why);
}

// "cables row 12, column media". SQLite knows the table and column a result
// column comes from (SQLITE_ENABLE_COLUMN_METADATA, set in Debian's build),
// through views and joins; the row is the first of that table holding the
// very same value. Only a computed column (an expression) has no origin.
std::string Stmt::where(int column) const {
  const char* table = sqlite3_column_table_name(stmt_, column);
  const char* origin = sqlite3_column_origin_name(stmt_, column);
  if (table == nullptr || origin == nullptr) {
    return fmt::format("column '{}' (computed from several tables)", sqlite3_column_name(stmt_, column));
  }
  std::string row = "?";
  sqlite3_stmt* find = nullptr;
  const std::string sql = fmt::format("SELECT rowid FROM \"{}\" WHERE \"{}\" IS ?1 LIMIT 1", table, origin);
  if (sqlite3_prepare_v2(sqlite3_db_handle(stmt_), sql.c_str(), -1, &find, nullptr) == SQLITE_OK) {
    sqlite3_bind_value(find, 1, sqlite3_column_value(stmt_, column));
    if (sqlite3_step(find) == SQLITE_ROW) row = std::to_string(sqlite3_column_int64(find, 0));
  }
  sqlite3_finalize(find);
  return fmt::format("{} row {}, column {}", table, row, origin);
}

std::string BatchInsert::sql_for(int rows) const {
  std::string one = "(";
  for (int c = 0; c < columns_; ++c) one += c ? ",?" : "?";
  one += ")";
  std::string sql = "INSERT INTO " + table_ + " VALUES ";
  for (int r = 0; r < rows; ++r) sql += (r ? "," : "") + one;
  return sql;
}

BatchInsert::BatchInsert(const Db& db, std::string table, int columns, int batch)
    : db_(db), table_(std::move(table)), columns_(columns), batch_(batch),
      full_(db, sql_for(batch)) {
  ok_ = full_.ok();
  pending_.reserve(static_cast<size_t>(columns) * batch);
}

int BatchInsert::next_index() { return rows_ * columns_ + column_++ + 1; }

BatchInsert& BatchInsert::text(std::string_view value) {
  pending_.push_back({Value::text, value, 0});
  full_.bind(next_index(), value);
  return *this;
}

BatchInsert& BatchInsert::text_or_null(std::string_view value) {
  if (value.empty()) {
    pending_.push_back({Value::null, {}, 0});
    full_.bind_null(next_index());
    return *this;
  }
  return text(value);
}

BatchInsert& BatchInsert::integer(int64_t value) {
  pending_.push_back({Value::integer, {}, value});
  full_.bind(next_index(), value);
  return *this;
}

BatchInsert& BatchInsert::integer_or_null(int64_t value, int64_t none) {
  if (value == none) {
    pending_.push_back({Value::null, {}, 0});
    full_.bind_null(next_index());
    return *this;
  }
  return integer(value);
}

bool BatchInsert::run(Stmt& stmt) {
  stmt.step();
  if (stmt.failed()) ok_ = false;
  stmt.reset();
  return ok_;
}

bool BatchInsert::end_row() {
  column_ = 0;
  if (++rows_ < batch_) return ok_;
  rows_ = 0;
  pending_.clear();
  return ok_ && run(full_);
}

bool BatchInsert::flush() {
  if (!ok_ || rows_ == 0) return ok_;
  Stmt tail(db_, sql_for(rows_));
  if (!tail.ok()) return ok_ = false;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const Value& v = pending_[i];
    int index = static_cast<int>(i) + 1;
    if (v.kind == Value::text) tail.bind(index, v.s);
    else if (v.kind == Value::integer) tail.bind(index, v.i);
    else tail.bind_null(index);
  }
  rows_ = 0;
  pending_.clear();
  return run(tail);
}

}  // namespace hpn::sql
