#include "search/pareto_front.hpp"

#include <gtest/gtest.h>

namespace distsim::search {

namespace {

TEST(ParetoFront, KeepsOnlyUndominatedPointsByIncreasingSecond) {
  // (time, memory): b (2, 1) and d (1, 3) are undominated; a (3, 2) is beaten by b in both;
  // c (2, 4) by d in both... c = (2, 4) vs d = (1, 3): d is faster and smaller. e (0.5, 9) is the
  // fastest, so it stays although it needs the most memory.
  const std::vector<ParetoPoint> points{{3, 2}, {2, 1}, {2, 4}, {1, 3}, {0.5, 9}};
  EXPECT_EQ(pareto_front(points), (std::vector<std::size_t>{1, 3, 4}));
}

TEST(ParetoFront, KeepsExactDuplicatesAndDropsTiesThatAreWorse) {
  // (1, 1) twice: both stay. (1, 2) ties on time but needs more memory: dominated.
  const std::vector<ParetoPoint> points{{1, 2}, {1, 1}, {1, 1}};
  EXPECT_EQ(pareto_front(points), (std::vector<std::size_t>{1, 2}));
}

TEST(ParetoFront, EmptyInputGivesEmptyFront) { EXPECT_TRUE(pareto_front({}).empty()); }

}  // namespace

}  // namespace distsim::search
