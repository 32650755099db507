#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile_record.hpp"
#include "profile_db/profile_file.hpp"
#include "profile_db/sqlite_connection.hpp"

namespace distsim::profile_db {

//! What one import did.
struct ImportResult {
  std::int64_t imported = 0;  //!< events written
  std::int64_t replaced = 0;  //!< of those, how many replaced a stored measurement of the same key
};

//! The measured-event database: one SQLite file holding, per (hardware, event key), the latest
//! measurement, plus one row per imported profiling run with the device time it took. The schema
//! carries a version (PRAGMA user_version) and an application id; a file from a newer or unknown
//! schema, a foreign SQLite file, or a corrupt one is refused on open. Not thread-safe: open one
//! per thread, or load the rows once into a ProfileCostModel, which is.
class ProfileDatabase {
 public:
  static constexpr int kSchemaVersion = 1;
  //! Marks the file as a distsim profile database ("dsdb").
  static constexpr int kApplicationId = 0x64736462;

  //! `read` needs an existing distsim database; `read_allowing_empty` also accepts an empty file,
  //! which then reads as holding no events; `create` also accepts a missing file (the schema is
  //! written by the first import).
  enum class Access { read, read_allowing_empty, create };

  //! Opens `path`. Any access rolls back an import that a killed process left unfinished. Throws
  //! InputError naming the file.
  ProfileDatabase(const std::string& path, Access access);

  //! Checks every record (check_profile_records) before touching the file, then writes them all in
  //! one transaction that waits for other writers. A stored (hardware, key) is replaced by the new
  //! measurement. The schema is created inside the transaction when the file has none yet, so
  //! imports started together into a new file all land.
  ImportResult import(const ProfileFile& file, const std::string& source);

  //! Hardware names with stored events, sorted.
  std::vector<std::string> hardware_names() const;
  //! Stored records sorted by hardware then key; all hardware when none is given.
  std::vector<profile::ProfileRecord> records(const std::optional<std::string>& hardware = std::nullopt) const;
  //! Device time spent by the profiling runs imported for `hardware`, in seconds. A run imported
  //! again (same hardware, profiler, library, measured_at) counts once.
  double device_seconds(const std::string& hardware) const;

  const std::string& path() const { return connection_.path(); }

 private:
  //! Reads the schema's marks and refuses a file that is not a current distsim database; false
  //! when the file holds no schema at all yet.
  bool holds_schema() const;
  void check_integrity() const;
  void create_schema();
  ImportResult write_records(const ProfileFile& file);

  SqliteConnection connection_;
  bool has_schema_ = false;
};

}  // namespace distsim::profile_db
