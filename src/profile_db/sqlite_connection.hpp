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
  enum class Access { read_only, read_write_create };

  SqliteConnection(std::string path, Access access);

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
  std::unique_ptr<sqlite3, Closer> handle_;
};

}  // namespace distsim::profile_db
