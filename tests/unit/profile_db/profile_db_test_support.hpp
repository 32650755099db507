#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../profile/profile_test_support.hpp"
#include "profile_db/profile_file.hpp"

namespace distsim::profile_db::testing {

using profile::testing::record;

//! A fresh scratch directory named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "distsim_profile_unit" /
                   (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline ProfileFile a40_file(std::vector<profile::ProfileRecord> records) {
  ProfileFile file;
  file.hardware = "a40";
  file.profiler = "distsim-profile 0.1.0";
  file.library = "torch 1.13.1+gloo";
  file.measured_at = "2026-11-22T21:30:00Z";
  file.device_seconds = 12.5;
  file.records = std::move(records);
  return file;
}

}  // namespace distsim::profile_db::testing
