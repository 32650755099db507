#include <gtest/gtest.h>

#include <vector>

#include "core/input_error.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::strategy {

namespace {

// tp = cp = dp = pp = 2 in Megatron's order: rank = tp + 2·(cp + 2·(dp + 2·pp)).
std::vector<DimSize> two_by_two_by_two_by_two() {
  return {{ParallelDim::tp, 2}, {ParallelDim::cp, 2}, {ParallelDim::dp, 2}, {ParallelDim::pp, 2}};
}

// Rank 13 = 1 + 2·(0 + 2·(1 + 2·1)): tp 1, cp 0, dp 1, pp 1.
const RankCoord kRank13{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}, {ParallelDim::pp, 1}};

//! Every group of these tests either stays in one domain (all its members in it) or spans one-host
//! domains (as many members in a domain as on a host).
GroupPlacement placed(int size, int hosts, int domains, int ranks_per_host) {
  GroupPlacement placement;
  placement.size = size;
  placement.hosts = hosts;
  placement.domains = domains;
  placement.ranks_per_host = ranks_per_host;
  placement.ranks_per_domain = domains == 1 ? size : ranks_per_host;
  return placement;
}

}  // namespace

TEST(LayoutQuery, AddressesCoordinatesByDimension) {
  const RankLayout layout(two_by_two_by_two_by_two(), {2, 2});
  EXPECT_EQ(layout.world_size(), 16);
  EXPECT_EQ(layout.coord_of(13), kRank13);
  EXPECT_EQ(layout.rank_of(kRank13), 13);
  EXPECT_EQ(layout.coord_of(13)[ParallelDim::dp], 1);
  EXPECT_EQ(layout.rank_of(kRank13.with(ParallelDim::cp, 1)), 15);
}

// Each group of rank 13, its members worked out from the formula above: tp varies 12-13; cp adds
// 2 (13, 15); dp adds 4 (9, 13); pp adds 8 (5, 13).
TEST(LayoutQuery, ListsTheMembersAlongAnySetOfDimensions) {
  const RankLayout layout(two_by_two_by_two_by_two(), {2, 2});
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::tp}), (std::vector<int>{12, 13}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::cp}), (std::vector<int>{13, 15}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::dp}), (std::vector<int>{9, 13}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::pp}), (std::vector<int>{5, 13}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::cp, ParallelDim::dp}), (std::vector<int>{9, 11, 13, 15}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::tp, ParallelDim::cp}), (std::vector<int>{12, 13, 14, 15}));
  EXPECT_EQ(layout.group_members(kRank13, {}), (std::vector<int>{13}));
  EXPECT_EQ(layout.group_members(kRank13, {ParallelDim::tp, ParallelDim::cp, ParallelDim::dp, ParallelDim::pp}).size(),
            16U);
}

// Hosts of 2 GPUs that are also the domains: host h holds ranks 2h and 2h+1. Only the tensor
// pair 12-13 shares a host; every other group of rank 13 has one member per host.
TEST(LayoutQuery, PlacesGroupsOnTwoGpuHosts) {
  const RankLayout layout(two_by_two_by_two_by_two(), {2, 2});
  EXPECT_EQ(layout.tensor_group(kRank13), placed(2, 1, 1, 2));                               // host 6
  EXPECT_EQ(layout.context_group(kRank13), placed(2, 2, 2, 1));                              // hosts 6, 7
  EXPECT_EQ(layout.data_group(kRank13), placed(2, 2, 2, 1));                                 // hosts 4, 6
  EXPECT_EQ(layout.gradient_group(kRank13), placed(4, 4, 4, 1));                             // hosts 4, 5, 6, 7
  EXPECT_EQ(layout.group(kRank13, {ParallelDim::pp}), placed(2, 2, 2, 1));                   // hosts 2, 6
  EXPECT_EQ(layout.group(kRank13, {ParallelDim::tp, ParallelDim::cp}), placed(4, 2, 2, 2));  // hosts 6, 7
  EXPECT_TRUE(layout.tensor_group(kRank13).within_domain());
  EXPECT_FALSE(layout.context_group(kRank13).within_domain());
  EXPECT_TRUE(layout.is_uniform());
}

// The same grid on a 72-GPU scale-up domain of 4-GPU hosts (GB200 NVL72's shape): host h holds
// ranks 4h..4h+3 and all 16 ranks share domain 0, so every group stays on NVLink; the tensor pair
// and the context pair (13, 15) share host 3, the data pair (9, 13) spans hosts 2 and 3, the
// gradient group 9, 11 | 13, 15 has two members on each, the pipeline pair (5, 13) hosts 1 and 3.
TEST(LayoutQuery, PlacesGroupsInASeventyTwoGpuDomain) {
  const RankLayout layout(two_by_two_by_two_by_two(), {4, 72});
  EXPECT_EQ(layout.tensor_group(kRank13), placed(2, 1, 1, 2));
  EXPECT_EQ(layout.context_group(kRank13), placed(2, 1, 1, 2));
  EXPECT_EQ(layout.data_group(kRank13), placed(2, 2, 1, 1));
  EXPECT_EQ(layout.gradient_group(kRank13), placed(4, 2, 1, 2));
  EXPECT_EQ(layout.group(kRank13, {ParallelDim::pp}), placed(2, 2, 1, 1));
  EXPECT_TRUE(layout.data_group(kRank13).within_domain());
  EXPECT_FALSE(layout.data_group(kRank13).within_host());
}

// 144 ranks, tp 4, cp 2, dp 9, pp 2, on the 72-GPU domains: rank = tp + 4·(cp + 2·(dp + 9·pp)),
// so stage 0 fills domain 0 (ranks 0-71) and stage 1 domain 1. Rank 0's tensor group is host 0;
// its context pair 0, 4 spans hosts 0 and 1; its data group 0, 8, ..., 64 nine even hosts 0-16,
// all in domain 0; its pipeline pair 0, 72 crosses the network (hosts 0 and 18, domains 0 and 1).
TEST(LayoutQuery, FindsTheGroupsThatSpanTheNetwork) {
  const RankLayout layout({{ParallelDim::tp, 4}, {ParallelDim::cp, 2}, {ParallelDim::dp, 9}, {ParallelDim::pp, 2}},
                          {4, 72});
  const RankCoord first;
  EXPECT_EQ(layout.tensor_group(first), placed(4, 1, 1, 4));
  EXPECT_EQ(layout.context_group(first), placed(2, 2, 1, 1));
  EXPECT_EQ(layout.data_group(first), placed(9, 9, 1, 1));
  EXPECT_EQ(layout.group_members(first, {ParallelDim::pp}), (std::vector<int>{0, 72}));
  EXPECT_EQ(layout.pipeline_link(first), placed(2, 2, 2, 1));
  EXPECT_FALSE(layout.pipeline_link(first).within_domain());
  EXPECT_EQ(layout.host_of(72), 18);
  EXPECT_EQ(layout.domain_of(72), 1);
  EXPECT_TRUE(layout.is_uniform());
}

// The group query follows the order it is given: with dp varying fastest, rank = dp + 2·tp, the
// tensor pair of rank 0 is 0 and 2.
TEST(LayoutQuery, FollowsTheGivenDimensionOrder) {
  const RankLayout layout({{ParallelDim::dp, 2}, {ParallelDim::tp, 2}}, {2, 2});
  EXPECT_EQ(layout.group_members(RankCoord{}, {ParallelDim::tp}), (std::vector<int>{0, 2}));
  EXPECT_EQ(layout.size(ParallelDim::cp), 1);
  EXPECT_EQ(layout.coord_of(3), (RankCoord{{ParallelDim::dp, 1}, {ParallelDim::tp, 1}}));
}

TEST(LayoutQuery, RefusesADomainThatSplitsAHost) {
  EXPECT_THROW(RankLayout(two_by_two_by_two_by_two(), {4, 6}), InternalError);
}

}  // namespace distsim::strategy
