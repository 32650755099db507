#include "program/device_groups.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distsim::program {

namespace {

using strategy::ParallelDim;
using strategy::RankCoord;

// tp = cp = dp = pp = 2 in Megatron's order, rank = tp + 2·(cp + 2·(dp + 2·pp)), on 2-GPU hosts.
strategy::RankLayout two_of_each() {
  return strategy::RankLayout({{ParallelDim::tp, 2}, {ParallelDim::cp, 2}, {ParallelDim::dp, 2}, {ParallelDim::pp, 2}},
                              {2, 2});
}

using Groups = std::vector<std::vector<int>>;

}  // namespace

// Every rank is a device. Tensor pairs are consecutive ranks; a pass group is the four tensor and
// context ranks of one (dp, pp), context-major; a gradient group the four cp and dp ranks of one
// (tp, pp): tp + {0, 2, 4, 6} + 8·pp.
TEST(DeviceGroups, BuildsEveryRanksGroupsFromTheLayout) {
  const strategy::RankLayout layout = two_of_each();
  const DeviceGroups groups(layout, SimulatedRanks::every_rank_alone);
  EXPECT_EQ(groups.num_devices(), 16);
  EXPECT_EQ(groups.tensor_groups(), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(groups.pass_groups(), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
  EXPECT_EQ(groups.gradient_groups(), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(groups.on_stage(5, 1), 13);
  // Members 0-3 of a pass group are (tp, cp) = (0, 0), (1, 0), (0, 1), (1, 1): a tensor
  // collective joins 0-1 and 2-3, a context exchange 0-2 and 1-3.
  const std::vector<int> pass = {4, 5, 6, 7};
  EXPECT_EQ(groups.step_groups(pass, events::StreamKind::tp_comm), (std::vector<std::vector<size_t>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(groups.step_groups(pass, events::StreamKind::cp_comm), (std::vector<std::vector<size_t>>{{0, 2}, {1, 3}}));
}

// One device per stage, the rank with every other coordinate 0: ranks 0 and 8.
TEST(DeviceGroups, SymmetricModeSimulatesOneRankPerStage) {
  const strategy::RankLayout layout = two_of_each();
  const DeviceGroups groups(layout, SimulatedRanks::one_per_stage);
  EXPECT_EQ(groups.num_devices(), 2);
  EXPECT_EQ(groups.coord(1), (RankCoord{{ParallelDim::pp, 1}}));
  EXPECT_EQ(groups.tensor_groups(), (Groups{{0}, {1}}));
  EXPECT_EQ(groups.pass_groups(), (Groups{{0}, {1}}));
  EXPECT_EQ(groups.gradient_groups(), (Groups{{0}, {1}}));
  EXPECT_EQ(groups.device_of(RankCoord{{ParallelDim::tp, 1}}), -1);
  EXPECT_EQ(groups.on_stage(0, 1), 1);
}

// Symmetric mode finds a group's simulated devices without walking the group: the same devices
// as walking it and keeping the members that lead their stage, for every rank's every group.
TEST(DeviceGroups, SymmetricGroupsAreTheStageLeadersAmongTheMembers) {
  const strategy::RankLayout layout = two_of_each();
  const DeviceGroups groups(layout, SimulatedRanks::one_per_stage);
  const std::vector<std::vector<ParallelDim>> kinds = {{ParallelDim::tp},
                                                       {ParallelDim::cp},
                                                       {ParallelDim::dp},
                                                       {ParallelDim::pp},
                                                       {ParallelDim::cp, ParallelDim::dp},
                                                       {ParallelDim::tp, ParallelDim::cp, ParallelDim::dp},
                                                       {ParallelDim::dp, ParallelDim::pp}};
  const auto group_of = [&](const RankCoord& coord, const std::vector<ParallelDim>& dims) {
    switch (dims.size()) {
      case 1: return groups.group_of(coord, {dims[0]});
      case 2: return groups.group_of(coord, {dims[0], dims[1]});
      default: return groups.group_of(coord, {dims[0], dims[1], dims[2]});
    }
  };
  const auto members_of = [&](const RankCoord& coord, const std::vector<ParallelDim>& dims) {
    switch (dims.size()) {
      case 1: return layout.group_members(coord, {dims[0]});
      case 2: return layout.group_members(coord, {dims[0], dims[1]});
      default: return layout.group_members(coord, {dims[0], dims[1], dims[2]});
    }
  };
  int nonempty = 0;
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    for (const auto& dims : kinds) {
      const RankCoord coord = layout.coord_of(rank);
      std::vector<int> expected;
      for (const int member : members_of(coord, dims)) {
        const int device = groups.device_of(layout.coord_of(member));
        if (device >= 0) expected.push_back(device);
      }
      EXPECT_EQ(group_of(coord, dims), expected) << "rank " << rank;
      nonempty += expected.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(nonempty, 0);
}

}  // namespace distsim::program
