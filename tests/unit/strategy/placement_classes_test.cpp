#include "strategy/placement_classes.hpp"

#include <gtest/gtest.h>

namespace distsim::strategy {

namespace {

RankLayout three_wide(int dp, int pp) {
  return RankLayout({{ParallelDim::tp, 3}, {ParallelDim::dp, dp}, {ParallelDim::pp, pp}}, RankPacking{8, 8});
}

}  // namespace

// Tensor groups of 3 on 8-GPU hosts: replica k holds ranks 3k..3k+2, so replica 2 (ranks 6-8) and
// replica 5 (ranks 15-17) straddle a host boundary, at different places (2 + 1 and 1 + 2), and
// the other six sit inside a host: three classes, led by replicas 0, 2 and 5.
TEST(PlacementClasses, GroupsReplicasByWhereTheirRanksFallOnHosts) {
  const PlacementClasses classes(three_wide(8, 1), 0);
  EXPECT_EQ(classes.block_size(), 1);
  EXPECT_EQ(classes.num_blocks(), 8);
  ASSERT_EQ(classes.num_classes(), 3);
  EXPECT_EQ(classes.simulated_indices(), 3);
  EXPECT_EQ(classes.simulated_index(0), 0);
  EXPECT_EQ(classes.simulated_index(1), 2);
  EXPECT_EQ(classes.simulated_index(2), 5);
  EXPECT_EQ(classes.simulated_position(0), 0);
  EXPECT_EQ(classes.simulated_position(1), -1);
  EXPECT_EQ(classes.simulated_position(2), 1);
  EXPECT_EQ(classes.simulated_position(5), 2);
  EXPECT_EQ(classes.standing_position(7), 0);
  EXPECT_EQ(classes.standing_position(5), 2);
  EXPECT_EQ(classes.indices_standing_for(0), 6);
  EXPECT_EQ(classes.indices_standing_for(1), 1);
  EXPECT_EQ(classes.indices_standing_for(2), 1);
}

// With two stages, replica k is ranks 3k..3k+2 and 12+3k..14+3k: hosts (0,0,0 | 1,1,1) for k = 0
// and 3, (0,0,0 | 1,2,2) for k = 1 (ranks 15-17), (0,0,1 | 2,2,2) for k = 2 (ranks 6-8).
TEST(PlacementClasses, ComparesTheWholePipelineOfAReplica) {
  const PlacementClasses classes(three_wide(4, 2), 0);
  ASSERT_EQ(classes.num_classes(), 3);
  EXPECT_EQ(classes.simulated_index(1), 1);
  EXPECT_EQ(classes.simulated_index(2), 2);
  EXPECT_EQ(classes.standing_position(3), 0);
  EXPECT_EQ(classes.indices_standing_for(0), 2);
}

// Pairs on 8-GPU hosts never straddle: one class for all 64 replicas, found from the first cycle
// of 4 (the pattern repeats every 8 / 2 replicas).
TEST(PlacementClasses, ReplicasPlacedAlikeShareOneClass) {
  const RankLayout layout({{ParallelDim::tp, 2}, {ParallelDim::dp, 64}}, RankPacking{8, 8});
  const PlacementClasses classes(layout, 0);
  EXPECT_EQ(classes.num_classes(), 1);
  EXPECT_EQ(classes.simulated_indices(), 1);
  EXPECT_EQ(classes.indices_standing_for(0), 64);
  EXPECT_EQ(classes.standing_position(63), 0);
  EXPECT_EQ(classes.simulated_position(63), -1);
}

// Hosts of 4 in domains of 72 (an NVL72 rack): replica k is host k, and which rack holds it does
// not matter, only how its ranks split: one class.
TEST(PlacementClasses, ScaleUpDomainsRepeatTheirPattern) {
  const RankLayout layout({{ParallelDim::tp, 4}, {ParallelDim::dp, 36}}, RankPacking{4, 72});
  EXPECT_EQ(PlacementClasses(layout, 0).num_classes(), 1);
}

// A block holds whole expert groups and whole shard groups: EP 4 over tp 1 spans 4 data-parallel
// indices; EP 4 over tp 2 spans 2; a shard group of 2 indices with EP 4 over tp 1 needs 4.
TEST(PlacementClasses, BlocksHoldWholeExpertAndShardGroups) {
  const auto layout = [](int tp, int ep) {
    return RankLayout({{ParallelDim::tp, tp}, {ParallelDim::dp, 8}}, RankPacking{8, 8}, ExpertFolding{ep, 1});
  };
  EXPECT_EQ(PlacementClasses(layout(1, 4), 0).block_size(), 4);
  EXPECT_EQ(PlacementClasses(layout(2, 4), 0).block_size(), 2);
  EXPECT_EQ(PlacementClasses(layout(1, 1), 2).block_size(), 2);
  EXPECT_EQ(PlacementClasses(layout(1, 4), 2).block_size(), 4);
  EXPECT_EQ(PlacementClasses(layout(1, 1), 8).num_blocks(), 1);
}

// Without merging, every block is its own class.
TEST(PlacementClasses, CanKeepEveryBlockApart) {
  const PlacementClasses classes(three_wide(8, 1), 0, false);
  EXPECT_EQ(classes.num_classes(), 8);
  EXPECT_EQ(classes.simulated_position(7), 7);
  EXPECT_EQ(classes.indices_standing_for(3), 1);
}

}  // namespace distsim::strategy
