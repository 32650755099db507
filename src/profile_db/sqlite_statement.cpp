#include "profile_db/sqlite_statement.hpp"

#include <sqlite3.h>

namespace distsim::profile_db {

SqliteStatement::SqliteStatement(const SqliteConnection& connection, std::string_view sql)
    : connection_(connection), sql_(sql) {
  check(sqlite3_prepare_v2(connection.handle(), sql_.c_str(), static_cast<int>(sql_.size()), &statement_, nullptr),
        sql_);
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  check(sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT), sql_);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  check(sqlite3_bind_double(statement_, index, value), sql_);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  check(sqlite3_bind_int64(statement_, index, value), sql_);
  return *this;
}

bool SqliteStatement::step() {
  const int code = sqlite3_step(statement_);
  if (code == SQLITE_ROW) {
    return true;
  }
  if (code != SQLITE_DONE) {
    connection_.fail(code, sql_);
  }
  return false;
}

void SqliteStatement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::string SqliteStatement::text(int column) const {
  const auto* bytes = sqlite3_column_text(statement_, column);
  return bytes ? std::string(reinterpret_cast<const char*>(bytes)) : std::string();
}

double SqliteStatement::real(int column) const { return sqlite3_column_double(statement_, column); }

bool SqliteStatement::holds_number(int column) const {
  const int type = sqlite3_column_type(statement_, column);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

std::int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

void SqliteStatement::check(int code, std::string_view doing) const {
  if (code != SQLITE_OK) {
    connection_.fail(code, doing);
  }
}

}  // namespace distsim::profile_db
