#include "profile/profile_record.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "profile_test_support.hpp"

namespace distsim::profile {

namespace {

using testing::record;

}  // namespace

TEST(CheckRecord, RefusesNonPositiveDurationsAndBadOrder) {
  auto error = [](const ProfileRecord& r) -> std::string {
    try {
      check_record(r);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  ProfileRecord r = record("gemm m=1 n=2 k=3 bf16", 0);
  EXPECT_EQ(error(r), "median_us must be a positive duration up to 9.2e+12 us (292 years, the range of distsim's clock), got 0");
  r = record("gemm m=1 n=2 k=3 bf16", 5);
  r.min_us = -1;
  EXPECT_EQ(error(r), "min_us must be a positive duration up to 9.2e+12 us (292 years, the range of distsim's clock), got -1");
  r = record("gemm m=1 n=2 k=3 bf16", 5);
  r.max_us = 4;
  EXPECT_EQ(error(r), "median_us (5) must not exceed max_us (4)");
  r = record("gemm m=1 n=2 k=3 bf16", 5);
  r.samples = 0;
  EXPECT_EQ(error(r), "samples must be at least 1, got 0");
  r = record("gemm m=1 n=2 k=3 bf16", 5);
  r.measured_at = "2026-11-22 21:30";
  EXPECT_EQ(error(r), "measured_at must be an ISO 8601 UTC time like '2026-11-22T21:30:00Z', got '2026-11-22 21:30'");
  EXPECT_EQ(error(record("gemm m=1 n=2 k=3 bf16", 5)), "no error");
}

TEST(IsUtcTimestamp, AcceptsFractionalSecondsAndNeedsZ) {
  EXPECT_TRUE(is_utc_timestamp("2026-11-22T21:30:00Z"));
  EXPECT_TRUE(is_utc_timestamp("2026-11-22T21:30:00.125Z"));
  EXPECT_FALSE(is_utc_timestamp("2026-11-22T21:30:00+01:00"));
  EXPECT_FALSE(is_utc_timestamp("2026-11-22T21:30:00.Z"));
}

}  // namespace distsim::profile
