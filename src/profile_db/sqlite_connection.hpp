#pragma once

#include <memory>
#include <string>
#include <string_view>

struct sqlite3;

namespace distsim::profile_db {

//! An open SQLite database file. Every failure becomes an InputError that names the file, and says
//! so plainly when the file is not a database at all or is corrupt or truncated.
class SqliteConnection {
 public:
  //! The first two ask for write access, so that a journal left by a writer that was killed
  //! mid-transaction can be rolled back by whoever opens the file next; SQLite falls back to
  //! reading only when the file is write-protected. `existing` never creates the file.
  //! `read_only` opens a database another tool wrote (an Nsight Systems export) and changes nothing.
  enum class Access { existing, create_if_missing, read_only };

  //! `busy_timeout_ms` is how long a statement waits for another process's lock before failing.
  //! `what` names the file in messages ("profile database", "Nsight Systems export").
  SqliteConnection(std::string path, Access access, int busy_timeout_ms, std::string what = "profile database");

  //! Runs statements that return no rows.
  void execute(std::string_view sql);
  //! Throws the InputError for the connection's last failure; `doing` says what was attempted.
  [[noreturn]] void fail(int code, std::string_view doing) const;

  sqlite3* handle() const { return handle_.get(); }
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* handle) const;
  };
  std::string path_;
  std::string what_;
  std::unique_ptr<sqlite3, Closer> handle_;
};

}  // namespace distsim::profile_db
