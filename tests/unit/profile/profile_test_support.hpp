#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "profile/profile_file.hpp"

namespace distsim::profile::testing {

//! A fresh scratch directory named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "distsim_profile_unit" /
                   (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

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

inline ProfileFile a40_file(std::vector<ProfileRecord> records) {
  ProfileFile file;
  file.hardware = "a40";
  file.profiler = "distsim-profile 0.1.0";
  file.library = "torch 1.13.1+gloo";
  file.measured_at = "2026-11-22T21:30:00Z";
  file.device_seconds = 12.5;
  file.records = std::move(records);
  return file;
}

}  // namespace distsim::profile::testing
