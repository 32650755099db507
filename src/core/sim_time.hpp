#pragma once

#include <cmath>
#include <cstdint>

namespace distsim {

//! Simulated time: an integer count of nanoseconds, so ordering and output are exact.
using SimTime = std::int64_t;

//! Converts a duration in seconds to nanoseconds, rounding to the nearest nanosecond.
inline SimTime seconds_to_time(double seconds) { return static_cast<SimTime>(std::llround(seconds * 1e9)); }

//! Converts nanoseconds to seconds.
inline double time_to_seconds(SimTime time) { return static_cast<double>(time) * 1e-9; }

}  // namespace distsim
