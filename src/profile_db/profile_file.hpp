#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile_record.hpp"

namespace distsim::profile_db {

//! The interchange file the profiler writes, `distsim db import` reads and `distsim db export`
//! writes: one hardware, who measured and when, and the measured events (docs/profile_db.md).
struct ProfileFile {
  static constexpr const char* kFormat = "distsim-profile";
  static constexpr int kVersion = 1;

  std::string hardware;
  std::string profiler;
  std::string library;
  std::string measured_at;
  double device_seconds = 0;  //!< device time the profiler spent measuring these events
  //! Each record's hardware, profiler, library and measured_at are filled in from the file's top
  //! level unless the event names its own.
  std::vector<profile::ProfileRecord> records;
};

//! Parses an interchange file's text. `source` names it in errors. Checks the structure (format,
//! version, required fields, types, no unknown fields) and throws InputError naming the source,
//! the event's index and its key; profile::check_record() checks the values.
ProfileFile parse_profile_file(const std::string& text, const std::string& source);

//! Checks the values: the hardware names, every record (profile::check_record) and that no key
//! appears twice. Throws InputError naming `source`, the record's index and its key.
void check_profile_records(const ProfileFile& file, const std::string& source);

//! Reads and parses the file at `path`; InputError when it cannot be read.
ProfileFile read_profile_file(const std::string& path);

//! The file as JSON, events in the order given. An event names its own profiler, library or
//! measured_at only where it differs from the top level, so a file re-reads to the same records.
nlohmann::ordered_json profile_file_json(const ProfileFile& file);

//! "profile 'f.json': events[3] ('gemm m=1 n=2 k=3 bf16')": where a record's error lies.
std::string record_place(const std::string& source, size_t index, const std::string& key);

//! Throws InputError unless `name` is a usable hardware name: not empty, no spaces or quotes.
void check_hardware_name(const std::string& name);

}  // namespace distsim::profile_db
