// A thin RAII layer over the SQLite C API: the blueprint store's only door to it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blueprint/result.h"

namespace hpn::sql {

class Db {
 public:
  Db() = default;
  ~Db();
  Db(Db&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  static Result<Db> open(const std::string& path, int flags);
  Status exec(std::string_view sql);
  sqlite3* raw() const { return db_; }
  std::string last_error() const { return db_ ? sqlite3_errmsg(db_) : "no database"; }

 private:
  sqlite3* db_ = nullptr;
};

// A prepared statement. What it reads is outside input (a file anyone may
// have edited with sqlite3), so every value is checked as it is read: step()
// refuses a row with text that is not UTF-8, and the integer reads refuse a
// value that is not an integer or lies outside the range the caller keeps.
// The first such value ends the statement: step() returns false from then
// on, failed() is true, and error() names the value by table, row and
// column ("cables row 12, column media: text that is not UTF-8 ('mm\xff')").
class Stmt {
 public:
  Stmt(const Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  // Binding is 1-based like SQLite; values must outlive step() (SQLITE_STATIC).
  Stmt& bind(int index, std::string_view text);
  Stmt& bind(int index, int64_t value);
  Stmt& bind_null(int index);
  Stmt& bind_or_null(int index, int64_t value, int64_t none);
  // SQLITE_ROW with every value well-formed -> true; SQLITE_DONE, an error
  // or a bad value -> false (failed() tells them apart).
  bool step();
  void reset();
  bool failed() const { return bad_.has_value() || (rc_ != SQLITE_OK && rc_ != SQLITE_ROW && rc_ != SQLITE_DONE); }
  int rc() const { return rc_; }
  // Why failed(): the bad value, located, or SQLite's message.
  std::string error() const;

  std::string text(int column) const;
  // The same bytes without a copy, valid until the next step() or reset().
  std::string_view view(int column) const;
  // NULL reads as 0 (integer) or `none` (integer_or). A value of another
  // type, or outside [lo, hi], is a bad value: it reads as 0 or `none`.
  int64_t integer(int column, int64_t lo = std::numeric_limits<int64_t>::min(),
                  int64_t hi = std::numeric_limits<int64_t>::max()) const;
  int64_t integer_or(int column, int64_t none, int64_t lo = std::numeric_limits<int64_t>::min(),
                     int64_t hi = std::numeric_limits<int64_t>::max()) const;
  // An `int` of the model: the range of int.
  int int32(int column) const;
  int int32_or(int column, int none) const;
  // Text that names a device, rack or panel and so becomes a file name
  // (blueprint/names.h's rule); any other, '..' say, is a bad value.
  std::string name(int column) const;

 private:
  // Names a bad value (of the current row) and ends the statement.
  void refuse(int column, std::string_view why) const;
  std::string where(int column) const;

  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  mutable std::optional<std::string> bad_;
};

// Bulk insertion: rows are bound into one multi-row INSERT of `batch` rows,
// which costs SQLite far less per row than one statement per row. Text is
// bound without copying: it must stay alive until flush() (the blueprint
// being written does).
class BatchInsert {
 public:
  BatchInsert(const Db& db, std::string table, int columns, int batch = 64);
  BatchInsert& text(std::string_view value);
  BatchInsert& text_or_null(std::string_view value);  // empty -> NULL
  BatchInsert& integer(int64_t value);
  BatchInsert& integer_or_null(int64_t value, int64_t none);
  // Ends a row; runs the batch when it is full. False after an error.
  bool end_row();
  // Runs the rows still pending. False after an error.
  bool flush();

 private:
  int next_index();
  bool run(Stmt& stmt);
  std::string sql_for(int rows) const;

  const Db& db_;
  std::string table_;
  int columns_;
  int batch_;
  Stmt full_;
  int rows_ = 0;
  int column_ = 0;
  bool ok_ = true;
  // Values of the rows not yet run, for the smaller statement at flush().
  struct Value {
    enum { text, integer, null } kind;
    std::string_view s;
    int64_t i;
  };
  std::vector<Value> pending_;
};

}  // namespace hpn::sql
