#include "profile_db/sqlite_connection.hpp"

#include <sqlite3.h>

#include "core/input_error.hpp"

namespace distsim::profile_db {

void SqliteConnection::Closer::operator()(sqlite3* handle) const { sqlite3_close(handle); }

SqliteConnection::SqliteConnection(std::string path, Access access, int busy_timeout_ms, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  const int flags = access == Access::existing    ? SQLITE_OPEN_READWRITE
                    : access == Access::read_only ? SQLITE_OPEN_READONLY
                                                  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(path_.c_str(), &raw, flags, nullptr);
  handle_.reset(raw);
  if (code != SQLITE_OK) {
    fail(code, "opening it");
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
}

void SqliteConnection::execute(std::string_view sql) {
  const int code = sqlite3_exec(handle(), std::string(sql).c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) {
    fail(code, sql);
  }
}

void SqliteConnection::fail(int code, std::string_view doing) const {
  const std::string says = handle() ? sqlite3_errmsg(handle()) : sqlite3_errstr(code);
  const std::string place = what_ + " '" + path_ + "'";
  if (code == SQLITE_READONLY_ROLLBACK) {
    throw InputError(place + " holds an import that was stopped before it finished ('" + path_ +
                     "-journal' is its undo log); undoing it needs write access to the file and its directory, which "
                     "this user lacks: run `distsim db stats --profile-db " +
                     path_ + "` once as a user who can write there");
  }
  switch (code & 0xff) {
    case SQLITE_NOTADB: throw InputError(place + " is not a SQLite database (SQLite: " + says + ")");
    case SQLITE_CORRUPT: throw InputError(place + " is corrupt or truncated (SQLite: " + says + ")");
    case SQLITE_CANTOPEN: throw InputError("cannot open " + place + " (SQLite: " + says + ")");
    case SQLITE_BUSY:
      throw InputError(place +
                       " stayed locked by another process (an import, most likely) for longer than distsim "
                       "waits; try again when it has finished (SQLite: " +
                       says + ")");
    case SQLITE_READONLY: throw InputError(place + " is read-only (SQLite: " + says + ")");
    default: throw InputError(place + ": " + std::string(doing) + " failed (SQLite: " + says + ")");
  }
}

}  // namespace distsim::profile_db
