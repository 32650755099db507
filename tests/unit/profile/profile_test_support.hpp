#pragma once

#include <string>

#include "profile/profile_record.hpp"

namespace distsim::profile::testing {

inline ProfileRecord record(const std::string& key, double median_us) {
  ProfileRecord r;
  r.hardware = "a40";
  r.key = key;
  r.median_us = median_us;
  r.mean_us = median_us;
  r.min_us = median_us;
  r.max_us = median_us;
  r.stdev_us = 0;
  r.samples = 5;
  r.profiler = "distsim-profile 0.1.0";
  r.library = "torch 1.13.1+gloo";
  r.measured_at = "2026-11-22T21:30:00Z";
  return r;
}

}  // namespace distsim::profile::testing
