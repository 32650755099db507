#include "profile_db/sqlite_connection.hpp"

#include <sqlite3.h>

#include "core/input_error.hpp"

namespace distsim::profile_db {

namespace {

// Waiting for another writer is better than failing a simulation outright.
constexpr int kBusyTimeoutMs = 5000;

}  // namespace

void SqliteConnection::Closer::operator()(sqlite3* handle) const { sqlite3_close(handle); }

SqliteConnection::SqliteConnection(std::string path, Access access) : path_(std::move(path)) {
  const int flags = access == Access::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(path_.c_str(), &raw, flags, nullptr);
  handle_.reset(raw);
  if (code != SQLITE_OK) {
    fail(code, "opening it");
  }
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
}

void SqliteConnection::execute(std::string_view sql) {
  const int code = sqlite3_exec(handle(), std::string(sql).c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) {
    fail(code, sql);
  }
}

void SqliteConnection::fail(int code, std::string_view doing) const {
  const std::string says = handle() ? sqlite3_errmsg(handle()) : sqlite3_errstr(code);
  const std::string place = "profile database '" + path_ + "'";
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      throw InputError(place + " is not a SQLite database (SQLite: " + says + ")");
    case SQLITE_CORRUPT:
      throw InputError(place + " is corrupt or truncated (SQLite: " + says + ")");
    case SQLITE_CANTOPEN:
      throw InputError("cannot open " + place + " (SQLite: " + says + ")");
    case SQLITE_READONLY:
      throw InputError(place + " is read-only (SQLite: " + says + ")");
    default:
      throw InputError(place + ": " + std::string(doing) + " failed (SQLite: " + says + ")");
  }
}

}  // namespace distsim::profile_db
