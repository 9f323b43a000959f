// A thin RAII layer over the SQLite C API: the blueprint store's only door to it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
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
  // SQLITE_ROW -> true; SQLITE_DONE -> false; an error sets failed().
  bool step();
  void reset();
  bool failed() const { return rc_ != SQLITE_OK && rc_ != SQLITE_ROW && rc_ != SQLITE_DONE; }
  int rc() const { return rc_; }

  std::string text(int column) const;
  int64_t integer(int column) const;
  int64_t integer_or(int column, int64_t none) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
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
