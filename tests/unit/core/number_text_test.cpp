#include "core/number_text.hpp"

#include <gtest/gtest.h>

namespace distsim {

TEST(NumberText, ReadsAWholeFiniteNumber) {
  EXPECT_EQ(parse_finite_number("15e12"), 15e12);
  EXPECT_EQ(parse_finite_number("2.5"), 2.5);
  EXPECT_EQ(parse_finite_number("-3"), -3.0);
}

// std::stod would read "2.5" of "2.5x" and accept "nan" and "inf"; none of them is a number here.
TEST(NumberText, RefusesPrefixesWordsAndNonFiniteValues) {
  for (const char* text : {"", "2.5x", "x2", "ten", "nan", "inf", "-inf", "1e400", "10%"}) {
    EXPECT_FALSE(parse_finite_number(text).has_value()) << text;
  }
}

}  // namespace distsim
