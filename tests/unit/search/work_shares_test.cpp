#include <gtest/gtest.h>

#include <vector>

#include "search/work_shares.hpp"

namespace distsim::search {

using Shares = std::vector<std::vector<std::size_t>>;

// Costs 3, 5, 3, 4, 3 (items 0..4) on two processes, largest first: item 1 (5) to process 0,
// item 3 (4) to process 1 (load 4 < 5), item 0 (3) to process 1 (7), item 2 (3) to process 0
// (8), item 4 (3) to process 1 (10); the best split is 9 and 9, within the rule's 4/3. Costs 5,
// 1, 5, 1 split 6 and 6, where taking every other index gives one process 5 + 5 and the other 1 + 1.
TEST(BalancedShares, LargestFirstToTheLeastLoadedProcess) {
  EXPECT_EQ(balanced_shares({3, 5, 3, 4, 3}, 2), (Shares{{1, 2}, {3, 0, 4}}));
  EXPECT_EQ(balanced_shares({5, 1, 5, 1}, 2), (Shares{{0, 1}, {2, 3}}));
}

// One process runs everything, largest first, equal costs in index order.
TEST(BalancedShares, OneProcessRunsEverythingLargestFirst) {
  EXPECT_EQ(balanced_shares({2, 7, 2, 9}, 1), (Shares{{3, 1, 0, 2}}));
  EXPECT_EQ(balanced_shares({}, 3), (Shares{{}, {}, {}}));
}

// More processes than items: each item alone, the rest idle.
TEST(BalancedShares, MoreProcessesThanItems) { EXPECT_EQ(balanced_shares({1, 4}, 3), (Shares{{1}, {0}, {}})); }

}  // namespace distsim::search
