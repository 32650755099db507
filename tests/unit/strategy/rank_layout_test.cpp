#include "strategy/rank_layout.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distsim::strategy {

namespace {
Strategy make(int tp, int pp, int dp) {
  Strategy s;
  s.tensor_parallel = tp;
  s.pipeline_parallel = pp;
  s.data_parallel = dp;
  return s;
}
}  // namespace

// Megatron's docstring example (docs/reference/formats.md §5.2): 16 GPUs, t = 2, p = 4, d = 2.
// TP groups [0,1] [2,3]...; DP groups [0,2] [1,3]...; PP groups [0,4,8,12]...
TEST(RankLayout, FollowsMegatronsDefaultOrder) {
  const RankLayout layout(parallel_dims(make(2, 4, 2)), {8, 8});
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::tp, 1}}), 1);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::dp, 1}}), 2);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::pp, 1}}), 4);
  EXPECT_EQ(layout.rank_of(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}, {ParallelDim::pp, 3}}), 15);
  EXPECT_EQ(layout.coord_of(13), (RankCoord{{ParallelDim::tp, 1}, {ParallelDim::pp, 3}}));
}

TEST(RankLayout, PlacesGroupsOnNodes) {
  // 2 nodes of 8: t = 2, d = 2, p = 4. Ranks 0-7 on node 0, 8-15 on node 1.
  const RankLayout layout(parallel_dims(make(2, 4, 2)), {8, 8});
  EXPECT_TRUE(layout.tensor_group(RankCoord{}).within_host());
  EXPECT_TRUE(layout.data_group(RankCoord{{ParallelDim::pp, 3}}).within_host());      // ranks 12, 14
  EXPECT_TRUE(layout.pipeline_link(RankCoord{}).within_host());                       // 0 → 4
  EXPECT_FALSE(layout.pipeline_link(RankCoord{{ParallelDim::pp, 1}}).within_host());  // 4 → 8
  const GroupPlacement embedding = layout.embedding_group(RankCoord{});               // 0 and 12
  EXPECT_FALSE(embedding.within_host());
  EXPECT_EQ(embedding.ranks_per_host, 1);
}

TEST(RankLayout, LinksAnyTwoStages) {
  // Same layout: the interleaved schedule's link from stage 3 back to stage 0 joins ranks 12
  // and 0 (different nodes); stage 2 to 3 joins 8 and 12 (node 1); either direction is alike.
  const RankLayout layout(parallel_dims(make(2, 4, 2)), {8, 8});
  EXPECT_FALSE(layout.stage_link(RankCoord{{ParallelDim::pp, 3}}, 0).within_host());
  EXPECT_TRUE(layout.stage_link(RankCoord{{ParallelDim::pp, 2}}, 3).within_host());
  EXPECT_TRUE(layout.stage_link(RankCoord{{ParallelDim::pp, 3}}, 2).within_host());
  EXPECT_EQ(layout.stage_link(RankCoord{{ParallelDim::tp, 1}, {ParallelDim::dp, 1}, {ParallelDim::pp, 3}}, 0).hosts, 2);
}

TEST(RankLayout, CountsRanksPerNodeOfASpanningGroup) {
  // 4 nodes of 4, pure data parallel 16: each node holds 4 members of the one group.
  const RankLayout layout(parallel_dims(make(1, 1, 16)), {4, 4});
  const GroupPlacement group = layout.data_group(RankCoord{});
  EXPECT_FALSE(group.within_host());
  EXPECT_EQ(group.ranks_per_host, 4);
  EXPECT_EQ(group.hosts, 4);
}

// HSDP's groups, worked by hand for t = 2, c = 2, d = 4 on 2 hosts of 8 (rank = tp + 2·cp + 4·dp)
// with shard groups of 2 data-parallel indices (S = c·2 = 4): the shard group of rank 0 is every
// cp of dp 0 and 1 at tp 0, ranks 0, 2, 4, 6 (host 0); its replica group is cp 0, tp 0 at dp 0 and
// 2, ranks 0 and 8 (both hosts). Rank 15 (tp 1, cp 1, dp 3): shard 9, 11, 13, 15; replicas 7, 15.
TEST(RankLayout, ShardsInsideRunsOfDataParallelIndicesAndReplicatesAcross) {
  Strategy s = make(2, 1, 4);
  s.context_parallel = 2;
  const RankLayout layout(parallel_dims(s), {8, 8});
  const RankCoord first{};
  const RankCoord last = layout.coord_of(15);
  EXPECT_EQ(layout.shard_group_members(first, 2), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(layout.replica_group_members(first, 2), (std::vector<int>{0, 8}));
  EXPECT_EQ(layout.shard_group_members(last, 2), (std::vector<int>{9, 11, 13, 15}));
  EXPECT_EQ(layout.replica_group_members(last, 2), (std::vector<int>{7, 15}));
  EXPECT_TRUE(layout.shard_group(first, 2).within_host());
  EXPECT_EQ(layout.replica_group(first, 2).hosts, 2);
  // dp_per_shard = d: the shard group is the gradient group (every cp and dp), one replica.
  EXPECT_EQ(layout.shard_group(first, 4), layout.gradient_group(first));
  EXPECT_EQ(layout.replica_group_members(first, 4), (std::vector<int>{0}));
}

// tp 2, cp 4: the context ranks of tp index 0 are 0, 2, 4 and 6 (cp index 0..3). With all-to-all
// groups of 2 adjacent context indices, cp index 1 (rank 2) is grouped with cp index 0 (rank 0)
// and its ring holds cp indices 1 and 3 (ranks 2 and 6).
TEST(RankLayout, SplitsTheContextGroupIntoAllToAllGroupsAndRings) {
  Strategy strategy = make(2, 1, 1);
  strategy.context_parallel = 4;
  const RankLayout layout(parallel_dims(strategy), {8, 8});
  const RankCoord rank2 = layout.coord_of(2);
  ASSERT_EQ(rank2[ParallelDim::cp], 1);
  EXPECT_EQ(layout.context_level_members(rank2, 2, true), (std::vector<int>{0, 2}));
  EXPECT_EQ(layout.context_level_members(rank2, 2, false), (std::vector<int>{2, 6}));
}

TEST(RankLayout, DetectsNonUniformPlacement) {
  EXPECT_TRUE(RankLayout(parallel_dims(make(2, 4, 2)), {8, 8}).is_uniform());
  // t·d = 3 does not divide 4 GPUs per node: stage boundaries cross nodes for some ranks only.
  EXPECT_FALSE(RankLayout(parallel_dims(make(1, 4, 3)), {4, 4}).is_uniform());
}

//! is_uniform computes each kind of group's placement once per residue of its first rank
//! modulo the domain size, and visits along the data-parallel dimension only as many ranks as it
//! takes for that residue to come back; the ground truth compares every rank's groups with its
//! stage's reference directly, over many grids and packings (uniform and not; data-parallel sizes
//! larger than the residue's cycle among them).
bool uniform_by_every_rank(const RankLayout& layout) {
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    const RankCoord coord = layout.coord_of(rank);
    const int stage = coord[ParallelDim::pp];
    const RankCoord reference{{ParallelDim::pp, stage}};
    if (layout.tensor_group(coord) != layout.tensor_group(reference) ||
        layout.context_group(coord) != layout.context_group(reference) ||
        layout.gradient_group(coord) != layout.gradient_group(reference) ||
        layout.embedding_group(coord) != layout.embedding_group(reference)) {
      return false;
    }
    if (stage + 1 < layout.size(ParallelDim::pp) && layout.pipeline_link(coord) != layout.pipeline_link(reference)) {
      return false;
    }
    for (const ExpertDim dim : {ExpertDim::etp, ExpertDim::ep, ExpertDim::edp}) {
      if (layout.expert_group(coord, dim) != layout.expert_group(reference, dim)) {
        return false;
      }
    }
  }
  return true;
}

TEST(RankLayout, UniformityAgreesWithComparingEveryRanksGroups) {
  int uniform = 0;
  int checked = 0;
  for (const int tp : {1, 2, 3}) {
    for (const int cp : {1, 2}) {
      for (const int pp : {1, 2, 3}) {
        for (const int dp : {1, 2, 3, 5, 8, 13}) {
          for (const auto& packing : std::vector<RankPacking>{{2, 2}, {4, 4}, {4, 12}, {8, 8}, {3, 6}, {2, 8}}) {
            Strategy strategy = make(tp, pp, dp);
            strategy.context_parallel = cp;
            const RankLayout layout(parallel_dims(strategy), packing);
            const bool expected = uniform_by_every_rank(layout);
            EXPECT_EQ(layout.is_uniform(), expected)
                << "tp " << tp << " cp " << cp << " pp " << pp << " dp " << dp << " packing " << packing.gpus_per_host
                << "/" << packing.gpus_per_domain;
            uniform += expected ? 1 : 0;
            ++checked;
          }
        }
      }
    }
  }
  // Both answers occur, so the comparison means something either way.
  EXPECT_GT(uniform, 0);
  EXPECT_LT(uniform, checked);
}

// The same with MoE parallel folding: is_uniform checks each stage's expert groups in one pass
// over the stage, the ground truth each rank's groups against its stage's reference.
TEST(RankLayout, UniformityWithExpertsAgreesWithComparingEveryRanksGroups) {
  int uniform = 0;
  int checked = 0;
  for (const int tp : {1, 2}) {
    for (const int pp : {1, 3}) {
      for (const int dp : {2, 3, 4, 6}) {
        for (const auto& folding : std::vector<ExpertFolding>{{2, 1}, {4, 1}, {3, 1}, {2, 2}}) {
          for (const auto& packing : std::vector<RankPacking>{{2, 2}, {4, 4}, {4, 12}, {3, 6}}) {
            const RankLayout layout(parallel_dims(make(tp, pp, dp)), packing, folding);
            const bool expected = uniform_by_every_rank(layout);
            EXPECT_EQ(layout.is_uniform(), expected)
                << "tp " << tp << " pp " << pp << " dp " << dp << " ep " << folding.expert_parallel << " etp "
                << folding.expert_tensor_parallel << " packing " << packing.gpus_per_host << "/"
                << packing.gpus_per_domain;
            uniform += expected ? 1 : 0;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(uniform, 0);
  EXPECT_LT(uniform, checked);
}

}  // namespace distsim::strategy

namespace distsim::strategy {

// MoE parallel folding: a stage of tp 2 x dp 8 = 16 ranks (ranks 0-15, hosts of 8) with ETP 1,
// EP 8 numbers the stage's ranks ep + 8·edp: rank 5 sits at ep 5, edp 0, so its EP group is ranks
// 0-7 (one host) and its expert data-parallel group {5, 13} (two hosts).
TEST(ExpertFolding, GroupsFoldOverTheStagesRanks) {
  Strategy strategy;
  strategy.tensor_parallel = 2;
  strategy.data_parallel = 8;
  strategy.pipeline_parallel = 2;
  strategy.expert_parallel = 8;
  const RankLayout layout(parallel_dims(strategy), RankPacking{8, 8}, ExpertFolding{8, 1});
  const RankCoord rank5 = layout.coord_of(5);
  EXPECT_EQ(layout.expert_group_members(rank5, ExpertDim::ep), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(layout.expert_group_members(rank5, ExpertDim::edp), (std::vector<int>{5, 13}));
  EXPECT_TRUE(layout.expert_group(rank5, ExpertDim::ep).within_host());
  // Stage 1 holds ranks 16-31: rank 21's EP group is 16-23.
  EXPECT_EQ(layout.expert_group_members(layout.coord_of(21), ExpertDim::ep),
            (std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23}));
}

// An EP group of 64 on 8-GPU hosts spans 8 hosts, 8 members on each; one of 8 stays on one host.
TEST(ExpertFolding, AnEpGroupOf64CrossesTheNetwork) {
  Strategy strategy;
  strategy.data_parallel = 64;
  strategy.expert_parallel = 64;
  const RankLayout wide(parallel_dims(strategy), RankPacking{8, 8}, ExpertFolding{64, 1});
  const GroupPlacement group = wide.expert_group(RankCoord{}, ExpertDim::ep);
  EXPECT_EQ(group.size, 64);
  EXPECT_EQ(group.hosts, 8);
  EXPECT_EQ(group.ranks_per_host, 8);
  const RankLayout narrow(parallel_dims(strategy), RankPacking{8, 8}, ExpertFolding{8, 1});
  EXPECT_TRUE(narrow.expert_group(RankCoord{}, ExpertDim::ep).within_domain());
  EXPECT_EQ(narrow.expert_group(RankCoord{}, ExpertDim::edp).hosts, 8);
}

}  // namespace distsim::strategy

namespace distsim::strategy {

//! A group along adjacent dimensions is one progression of ranks, placed without listing it; the
//! placement must be the one its listed members give, for every group of every layout below:
//! strides shorter and longer than a host, hosts of 1, 3, 4 and 8 GPUs, domains of 1 to 9 hosts,
//! groups starting mid-host.
TEST(RankLayout, PlacesAProgressionAsItsListedMembers) {
  const std::vector<std::pair<int, int>> packings{{1, 1}, {3, 9}, {4, 4}, {4, 36}, {8, 8}, {8, 72}};
  for (const auto& packing : packings) {
    const int per_host = packing.first;  // named, not bound: lambdas capture them (C++20 in clang 14)
    const int per_domain = packing.second;
    for (const int tp : {1, 2, 3, 4}) {
      for (const int cp : {1, 2, 3}) {
        for (const int dp : {1, 2, 5, 12}) {
          Strategy s = make(tp, 2, dp);
          s.context_parallel = cp;
          const RankLayout layout(parallel_dims(s), {per_host, per_domain});
          for (int rank = 0; rank < layout.world_size(); ++rank) {
            const RankCoord coord = layout.coord_of(rank);
            const auto check = [&](std::initializer_list<ParallelDim> dims) {
              EXPECT_EQ(layout.group(coord, dims), layout.placement(layout.group_members(coord, dims)))
                  << per_host << "/" << per_domain << " GPUs a host/domain, tp " << tp << " cp " << cp << " dp " << dp
                  << ", rank " << rank << ", dims " << dims.size();
            };
            check({ParallelDim::tp});
            check({ParallelDim::dp});
            check({ParallelDim::pp});
            check({ParallelDim::cp, ParallelDim::dp});
            check({ParallelDim::tp, ParallelDim::cp});
            check({ParallelDim::tp, ParallelDim::dp});
          }
        }
      }
    }
  }
}

}  // namespace distsim::strategy
