#pragma once

#include <cstdint>
#include <string>

namespace distsim::profile {

//! One measured event on one piece of hardware: the summary statistics of its timed runs in
//! microseconds, and who measured it when.
struct ProfileRecord {
  std::string hardware;  //!< GPU name the event ran on, as in a cluster's `gpu.name`
  std::string key;       //!< event key exactly as `distsim events` prints it
  double median_us = 0;
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
  double stdev_us = 0;
  std::int64_t samples = 0;
  std::string profiler;     //!< profiler name and version
  std::string library;      //!< framework and communication library versions
  std::string measured_at;  //!< ISO 8601 UTC time, "2026-11-22T21:30:00Z"

  bool operator==(const ProfileRecord&) const = default;
};

//! Checks what the file's structure cannot: the key names a known operator with the right fields,
//! durations are positive with min <= median, mean <= max, the spread is not negative, there is at
//! least one sample, and the time is ISO 8601 UTC. Throws InputError naming the faulty field.
void check_record(const ProfileRecord& record);

//! Whether `text` reads "YYYY-MM-DDTHH:MM:SS" with optional fractional seconds, then "Z".
bool is_utc_timestamp(const std::string& text);

}  // namespace distsim::profile
