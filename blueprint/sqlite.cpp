#include "blueprint/sqlite.h"

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
  rc_ = sqlite3_step(stmt_);
  return rc_ == SQLITE_ROW;
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Stmt::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

int64_t Stmt::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

int64_t Stmt::integer_or(int column, int64_t none) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL ? none : integer(column);
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
