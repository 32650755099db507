#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "core/input_error.hpp"

namespace distsim {

//! Simulated time: an integer count of nanoseconds, so ordering and output are exact.
using SimTime = std::int64_t;

//! The longest time the nanosecond clock holds: 2^63 - 1 ns, about 292 years.
inline constexpr SimTime kLatestTime = std::numeric_limits<SimTime>::max();

//! Converts a duration in seconds to nanoseconds, rounding to the nearest nanosecond.
inline SimTime seconds_to_time(double seconds) { return static_cast<SimTime>(std::llround(seconds * 1e9)); }

//! seconds_to_time for a duration computed from the input: throws InputError naming `what` when it
//! is not a finite number of seconds in [0, 292 years], where the conversion would give garbage.
inline SimTime checked_seconds_to_time(double seconds, std::string_view what) {
  // 2^63 ns rounded down to a double that converts back exactly.
  constexpr double kLatestNanoseconds = 9.2e18;
  const double nanoseconds = seconds * 1e9;
  if (!std::isfinite(nanoseconds) || nanoseconds < 0 || nanoseconds >= kLatestNanoseconds) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.3g", seconds);
    throw InputError(std::string(what) + " would last " + shown +
                     " s, outside the range of distsim's nanosecond clock (0 to 292 years); the job's sizes are "
                     "beyond what it can simulate");
  }
  return static_cast<SimTime>(std::llround(nanoseconds));
}

//! Why a simulated time that does not fit the clock cannot be an output: `where` says which
//! (e.g. "at task 12").
inline std::string clock_overflow_message(std::string_view where) {
  return "the simulated iteration runs past the range of distsim's nanosecond clock (292 years) " + std::string(where) +
         "; the job's sizes are beyond what it can simulate";
}

//! Wall-clock units for what a run takes (hours of failures, days to train).
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86'400.0;

//! Converts nanoseconds to seconds.
inline double time_to_seconds(SimTime time) { return static_cast<double>(time) * 1e-9; }

}  // namespace distsim
