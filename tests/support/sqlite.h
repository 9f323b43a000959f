// blueprint.db as tests read and edit it: through SQLite itself, not the
// store (blueprint/store.h), so that what the plan wrote is checked by
// another reader, and bad inputs are made by another writer. Link
// SQLite::SQLite3.
#pragma once

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace hpn::test {

using Rows = std::vector<std::vector<std::string>>;

// A read-only view of a database file for the tests' own queries.
// immutable=1 keeps SQLite from creating -shm or -wal files next to it.
class SqliteReader {
 public:
  explicit SqliteReader(const std::filesystem::path& path) {
    const std::string uri = "file:" + path.string() + "?immutable=1";
    INFO(path.string());
    REQUIRE(sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK);
  }
  ~SqliteReader() { sqlite3_close(db_); }
  SqliteReader(const SqliteReader&) = delete;
  SqliteReader& operator=(const SqliteReader&) = delete;

  // Every row of `sql`, each column as text ("" for NULL).
  Rows rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK);
    Rows out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const unsigned char* text = sqlite3_column_text(stmt, c);
        row.push_back(text ? reinterpret_cast<const char*>(text) : "");
      }
      out.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    REQUIRE(rc == SQLITE_DONE);
    return out;
  }
  // The first column of the first row of `sql`, which must give one.
  std::string value(const std::string& sql) {
    const Rows r = rows(sql);
    INFO(sql);
    REQUIRE(!r.empty());
    return r[0].at(0);
  }
  long number(const std::string& sql) { return std::stol(value(sql)); }

 private:
  sqlite3* db_ = nullptr;
};

// Every row of `sql` on the database at `path` (SqliteReader::rows).
inline Rows sql_rows(const std::filesystem::path& path, const std::string& sql) {
  return SqliteReader(path).rows(sql);
}

// Runs SQL against a database file with write access (made if missing),
// for making bad inputs; SQLite's error, if any, is the failure's message.
inline void sql_exec(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  INFO(sql);
  INFO(message);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace hpn::test
