#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profile_db/sqlite_connection.hpp"

struct sqlite3_stmt;

namespace distsim::profile_db {

//! One prepared SQL statement: bind parameters (1-based), step through rows, read columns
//! (0-based). Failures go through the connection, so they name the database file.
class SqliteStatement {
 public:
  SqliteStatement(const SqliteConnection& connection, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::int64_t value);
  //! Advances to the next row; false when there are no more.
  bool step();
  //! Makes the statement ready to run again with new bindings.
  void reset();

  std::string text(int column) const;
  double real(int column) const;
  //! Whether the column holds a number (an integer or a real), not text, a blob or NULL.
  bool holds_number(int column) const;
  std::int64_t integer(int column) const;

 private:
  void check(int code, std::string_view doing) const;

  const SqliteConnection& connection_;
  std::string sql_;
  sqlite3_stmt* statement_ = nullptr;
};

}  // namespace distsim::profile_db
