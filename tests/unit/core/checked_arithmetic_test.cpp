#include "core/checked_arithmetic.hpp"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "core/sim_time.hpp"

namespace distsim {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(CheckedProduct, MultipliesWhatFits) {
  // 65536 x 65536 x 2 = 2^33.
  EXPECT_EQ(checked_product({65536, 65536, 2}), std::int64_t{1} << 33);
  EXPECT_EQ(checked_product({}), 1);
  EXPECT_EQ(checked_product({-3, 4}), -12);
}

TEST(CheckedProduct, ReportsOverflowInsteadOfWrapping) {
  // 2^31 x 2^31 x 2 = 2^63, one past the largest int64.
  EXPECT_FALSE(checked_product({std::int64_t{1} << 31, std::int64_t{1} << 31, 2}).has_value());
  EXPECT_EQ(checked_product({std::int64_t{1} << 31, std::int64_t{1} << 31}), std::int64_t{1} << 62);
  EXPECT_FALSE(checked_product({kMax, 2}).has_value());
}

TEST(CheckedSum, ReportsOverflow) {
  EXPECT_EQ(checked_sum(kMax - 1, 1), kMax);
  EXPECT_FALSE(checked_sum(kMax, 1).has_value());
}

TEST(ProductText, ListsTheFactors) { EXPECT_EQ(product_text({65536, 65536, 2}), "65536 x 65536 x 2"); }

TEST(CheckedSecondsToTime, ConvertsAndRefusesWhatTheClockCannotHold) {
  EXPECT_EQ(checked_seconds_to_time(1.5, "event"), 1'500'000'000);
  // 292 years = 9.2e9 s is the clock's end; 1e10 s is past it.
  try {
    checked_seconds_to_time(1e10, "event 'gemm'");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "event 'gemm' would last 1e+10 s, outside the range of distsim's nanosecond clock (0 to 292 years); "
                 "the job's sizes are beyond what it can simulate");
  }
  EXPECT_THROW(checked_seconds_to_time(std::numeric_limits<double>::infinity(), "x"), InputError);
  EXPECT_THROW(checked_seconds_to_time(std::numeric_limits<double>::quiet_NaN(), "x"), InputError);
  EXPECT_THROW(checked_seconds_to_time(-1.0, "x"), InputError);
}

}  // namespace
}  // namespace distsim
