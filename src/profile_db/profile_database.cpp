#include "profile_db/profile_database.hpp"

#include <filesystem>

#include "core/input_error.hpp"
#include "profile_db/sqlite_statement.hpp"

namespace distsim::profile_db {

using profile::ProfileRecord;

namespace {

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE IF NOT EXISTS events (
  hardware TEXT NOT NULL,
  key TEXT NOT NULL,
  median_us REAL NOT NULL,
  mean_us REAL NOT NULL,
  min_us REAL NOT NULL,
  max_us REAL NOT NULL,
  stdev_us REAL NOT NULL,
  samples INTEGER NOT NULL,
  profiler TEXT NOT NULL,
  library TEXT NOT NULL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (hardware, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imports (
  hardware TEXT NOT NULL,
  profiler TEXT NOT NULL,
  library TEXT NOT NULL,
  measured_at TEXT NOT NULL,
  device_seconds REAL NOT NULL,
  events INTEGER NOT NULL,
  PRIMARY KEY (hardware, profiler, library, measured_at)
) WITHOUT ROWID;
)sql";

// A reader waits a little for an import's commit; an import waits for the imports before it.
constexpr int kReadBusyTimeoutMs = 5000;
constexpr int kWriteBusyTimeoutMs = 120000;

//! Refuses, before SQLite sees it, a path that cannot be a database file: SQLite's own words
//! for these ("disk I/O error") do not say what is wrong.
void check_database_path(const std::string& path, ProfileDatabase::Access access) {
  const std::string place = "profile database '" + path + "'";
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::directory) {
    throw InputError(place + " is a directory; expected a SQLite file such as '" +
                     (std::filesystem::path(path) / "profiles.sqlite").string() + "'");
  }
  if (status.type() == std::filesystem::file_type::not_found) {
    if (access != ProfileDatabase::Access::create) {
      throw InputError(place + " does not exist; create it with `distsim db import FILE --profile-db " + path + "`");
    }
    return;
  }
  if (error) {
    throw InputError("cannot open " + place + ": " + error.message());
  }
  // SQLite keeps a journal beside the file and locks it: a device or a pipe can be neither.
  if (status.type() != std::filesystem::file_type::regular) {
    throw InputError(place + " is not a regular file (a device, a pipe or a socket); expected a SQLite file");
  }
}

std::int64_t pragma_value(const SqliteConnection& connection, const std::string& name) {
  SqliteStatement statement(connection, "PRAGMA " + name);
  return statement.step() ? statement.integer(0) : 0;
}

//! Rolls back unless committed, so an exception anywhere in an import leaves the file as it was.
class Transaction {
 public:
  explicit Transaction(SqliteConnection& connection) : connection_(connection) {
    connection_.execute("BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!committed_) {
      roll_back();
    }
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    connection_.execute("COMMIT");
    committed_ = true;
  }

 private:
  void roll_back() noexcept {
    try {
      connection_.execute("ROLLBACK");
    } catch (const InputError&) {
      // SQLite has already rolled back when a statement failed this way; nothing is left to undo.
    }
  }

  SqliteConnection& connection_;
  bool committed_ = false;
};

//! A stored measurement, checked as an import checks it: a file written by another tool, or edited
//! by hand, names the database, the row and the column.
ProfileRecord record_from_row(const SqliteStatement& row, const std::string& path) {
  ProfileRecord record;
  record.hardware = row.text(0);
  record.key = row.text(1);
  const std::string place =
      "profile database '" + path + "': event '" + record.key + "' of hardware '" + record.hardware + "'";
  const auto number = [&](int column, const char* name) {
    if (!row.holds_number(column)) {
      throw InputError(place + ": " + name + " holds '" + row.text(column) + "', not a number");
    }
    return row.real(column);
  };
  record.median_us = number(2, "median_us");
  record.mean_us = number(3, "mean_us");
  record.min_us = number(4, "min_us");
  record.max_us = number(5, "max_us");
  record.stdev_us = number(6, "stdev_us");
  if (!row.holds_number(7)) throw InputError(place + ": samples holds '" + row.text(7) + "', not a number");
  record.samples = row.integer(7);
  record.profiler = row.text(8);
  record.library = row.text(9);
  record.measured_at = row.text(10);
  try {
    profile::check_record(record);
  } catch (const InputError& error) {
    throw InputError(place + ": " + error.what());
  }
  return record;
}

}  // namespace

ProfileDatabase::ProfileDatabase(const std::string& path, Access access)
    : connection_([&] {
        check_database_path(path, access);
        return access == Access::create
                   ? SqliteConnection(path, SqliteConnection::Access::create_if_missing, kWriteBusyTimeoutMs)
                   : SqliteConnection(path, SqliteConnection::Access::existing, kReadBusyTimeoutMs);
      }()) {
  has_schema_ = holds_schema();
  if (has_schema_) {
    check_integrity();
  } else if (access == Access::read) {
    throw InputError("profile database '" + path + "' is empty; fill it with `distsim db import FILE --profile-db " +
                     path + "`");
  }
}

bool ProfileDatabase::holds_schema() const {
  const std::string place = "profile database '" + path() + "'";
  const std::int64_t application_id = pragma_value(connection_, "application_id");
  const std::int64_t version = pragma_value(connection_, "user_version");
  const std::int64_t tables = [&] {
    SqliteStatement count(connection_, "SELECT count(*) FROM sqlite_master");
    return count.step() ? count.integer(0) : 0;
  }();
  if (application_id == 0 && version == 0 && tables == 0) {
    return false;
  }
  if (application_id != kApplicationId) {
    throw InputError(place + " is a SQLite database but not a distsim profile database");
  }
  if (version > kSchemaVersion) {
    throw InputError(place + " has schema version " + std::to_string(version) + ", newer than version " +
                     std::to_string(kSchemaVersion) + " that this distsim reads; use a newer distsim");
  }
  if (version != kSchemaVersion) {
    throw InputError(place + " has unknown schema version " + std::to_string(version) +
                     "; this distsim reads version " + std::to_string(kSchemaVersion));
  }
  return true;
}

void ProfileDatabase::check_integrity() const {
  SqliteStatement check(connection_, "PRAGMA quick_check");
  if (check.step() && check.text(0) != "ok") {
    throw InputError("profile database '" + path() + "' is corrupt or truncated (SQLite: " + check.text(0) + ")");
  }
}

void ProfileDatabase::create_schema() {
  connection_.execute(kCreateSchema);
  connection_.execute("PRAGMA application_id = " + std::to_string(kApplicationId));
  connection_.execute("PRAGMA user_version = " + std::to_string(kSchemaVersion));
}

ImportResult ProfileDatabase::import(const ProfileFile& file, const std::string& source) {
  check_profile_records(file, source);
  Transaction transaction(connection_);
  // Another process may have created the schema, or filled the file, since it was opened.
  if (!holds_schema()) {
    create_schema();
  }
  const ImportResult result = write_records(file);
  SqliteStatement run(connection_, "INSERT OR REPLACE INTO imports VALUES (?, ?, ?, ?, ?, ?)");
  run.bind(1, file.hardware).bind(2, file.profiler).bind(3, file.library).bind(4, file.measured_at);
  run.bind(5, file.device_seconds).bind(6, result.imported);
  run.step();
  transaction.commit();
  has_schema_ = true;
  return result;
}

ImportResult ProfileDatabase::write_records(const ProfileFile& file) {
  SqliteStatement exists(connection_, "SELECT 1 FROM events WHERE hardware = ? AND key = ?");
  SqliteStatement insert(connection_, "INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  ImportResult result;
  for (const ProfileRecord& record : file.records) {
    exists.bind(1, record.hardware).bind(2, record.key);
    result.replaced += exists.step() ? 1 : 0;
    exists.reset();
    insert.bind(1, record.hardware).bind(2, record.key).bind(3, record.median_us).bind(4, record.mean_us);
    insert.bind(5, record.min_us).bind(6, record.max_us).bind(7, record.stdev_us).bind(8, record.samples);
    insert.bind(9, record.profiler).bind(10, record.library).bind(11, record.measured_at);
    insert.step();
    insert.reset();
    ++result.imported;
  }
  return result;
}

std::vector<std::string> ProfileDatabase::hardware_names() const {
  std::vector<std::string> names;
  if (!has_schema_) {
    return names;
  }
  SqliteStatement query(connection_, "SELECT DISTINCT hardware FROM events ORDER BY hardware");
  while (query.step()) {
    names.push_back(query.text(0));
  }
  return names;
}

std::vector<ProfileRecord> ProfileDatabase::records(const std::optional<std::string>& hardware) const {
  std::vector<ProfileRecord> list;
  if (!has_schema_) {
    return list;
  }
  const std::string columns =
      "SELECT hardware, key, median_us, mean_us, min_us, max_us, stdev_us, samples, profiler, library, measured_at "
      "FROM events";
  SqliteStatement query(connection_, columns + (hardware ? " WHERE hardware = ?" : "") + " ORDER BY hardware, key");
  if (hardware) {
    query.bind(1, *hardware);
  }
  while (query.step()) {
    list.push_back(record_from_row(query, path()));
  }
  return list;
}

double ProfileDatabase::device_seconds(const std::string& hardware) const {
  if (!has_schema_) {
    return 0;
  }
  SqliteStatement query(connection_, "SELECT total(device_seconds) FROM imports WHERE hardware = ?");
  query.bind(1, hardware);
  return query.step() ? query.real(0) : 0;
}

}  // namespace distsim::profile_db
