#include "compare/measured_group.hpp"

#include <gtest/gtest.h>

#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

strategy::Strategy job_of(int tp, int cp, int dp, int pp, int ep = 1) {
  strategy::Strategy job;
  job.tensor_parallel = tp;
  job.context_parallel = cp;
  job.data_parallel = dp;
  job.pipeline_parallel = pp;
  job.expert_parallel = ep;
  return job;
}

//! The kind of `group` on `rank` of `job`, its ranks laid out in Megatron's order.
ActivityKind kind_of(const strategy::Strategy& job, int rank, const MeasuredGroup& group) {
  const strategy::RankLayout layout(strategy::parallel_dims(job), {},
                                    strategy::ExpertFolding{job.expert_parallel, job.expert_tensor_parallel});
  return measured_communication_kind(layout, job, rank, group);
}

MeasuredGroup collective(std::vector<int> members, bool all_to_all = false) {
  MeasuredGroup group;
  group.members = std::move(members);
  group.all_to_all = all_to_all;
  return group;
}

MeasuredGroup transfer(bool sends, std::optional<int> peer, std::vector<int> members = {}) {
  MeasuredGroup group;
  group.transfer = true;
  group.sends = sends;
  group.peer = peer;
  group.members = std::move(members);
  return group;
}

}  // namespace

// 2M2P2D: rank = tp + 2 (dp + 2 pp), so rank 0 is (tp 0, dp 0, stage 0), its tensor group {0, 1},
// its data-parallel group {0, 2}, and its place on stage 1 is rank 4.
TEST(MeasuredGroup, CollectivesTakeTheStreamOfTheGroupTheirRanksAre) {
  const auto job = job_of(2, 1, 2, 2);
  EXPECT_EQ(kind_of(job, 0, collective({0, 1})), ActivityKind::tp_comm);
  EXPECT_EQ(kind_of(job, 5, collective({4, 5})), ActivityKind::tp_comm);
  EXPECT_EQ(kind_of(job, 0, collective({0, 2})), ActivityKind::dp_comm);
  EXPECT_EQ(kind_of(job, 7, collective({5, 7})), ActivityKind::dp_comm);
  // Groups that are none of rank 0's: the world, another rank's tensor group, a pair across both
  // dimensions, the rank alone, and a group the trace does not name.
  EXPECT_EQ(kind_of(job, 0, collective({0, 1, 2, 3, 4, 5, 6, 7})), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, collective({2, 3})), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, collective({0, 3})), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, collective({0})), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, collective({})), ActivityKind::collective);
}

TEST(MeasuredGroup, TransfersToTheSamePlaceOnAnAdjacentStageArePipelineTransfers) {
  const auto job = job_of(2, 1, 2, 2);
  EXPECT_EQ(kind_of(job, 0, transfer(true, 4)), ActivityKind::pp_send_next);
  EXPECT_EQ(kind_of(job, 4, transfer(false, 0)), ActivityKind::pp_recv_prev);
  EXPECT_EQ(kind_of(job, 4, transfer(true, 0)), ActivityKind::pp_send_prev);
  EXPECT_EQ(kind_of(job, 0, transfer(false, 4)), ActivityKind::pp_recv_next);
  // Without the peer, the other member of a pair; without either, the group is unknown.
  EXPECT_EQ(kind_of(job, 6, transfer(true, std::nullopt, {2, 6})), ActivityKind::pp_send_prev);
  EXPECT_EQ(kind_of(job, 6, transfer(true, std::nullopt)), ActivityKind::collective);
  // Rank 5 is stage 1 at another tensor position; rank 0 itself is no peer; 9 is no rank.
  EXPECT_EQ(kind_of(job, 0, transfer(true, 5)), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, transfer(true, 0)), ActivityKind::collective);
  EXPECT_EQ(kind_of(job, 0, transfer(true, 9)), ActivityKind::collective);
}

TEST(MeasuredGroup, TheInterleavedWrapFromTheLastStageToTheFirstIsForward) {
  // 1M4P1D: rank = stage. Stage 3 sends activations on to stage 0; stage 0 receives them from
  // the stage before it, 3; stages 0 and 2 are not adjacent.
  const auto job = job_of(1, 1, 1, 4);
  EXPECT_EQ(kind_of(job, 3, transfer(true, 0)), ActivityKind::pp_send_next);
  EXPECT_EQ(kind_of(job, 0, transfer(false, 3)), ActivityKind::pp_recv_prev);
  EXPECT_EQ(kind_of(job, 0, transfer(true, 3)), ActivityKind::pp_send_prev);
  EXPECT_EQ(kind_of(job, 0, transfer(true, 2)), ActivityKind::collective);
}

TEST(MeasuredGroup, AnAllToAllIsTheExpertGroupsWhereOneSetOfRanksIsSeveralGroups) {
  // 1M1P4D with EP 4: the expert group of rank 0 is {0, 1, 2, 3}, and so is its gradient group.
  const auto job = job_of(1, 1, 4, 1, 4);
  EXPECT_EQ(kind_of(job, 0, collective({0, 1, 2, 3}, true)), ActivityKind::ep_comm);
  EXPECT_EQ(kind_of(job, 0, collective({0, 1, 2, 3})), ActivityKind::dp_comm);
  // EP 2 makes {0, 1} the expert group alone: any collective over it is the expert group's.
  const auto ep2 = job_of(1, 1, 4, 1, 2);
  EXPECT_EQ(kind_of(ep2, 1, collective({0, 1})), ActivityKind::ep_comm);
  EXPECT_EQ(kind_of(ep2, 1, collective({0, 1}, true)), ActivityKind::ep_comm);
}

TEST(MeasuredGroup, ContextGroupsAreContextParallel) {
  // 1M1P2D with CP 2: rank = cp + 2 dp. Rank 0's context group {0, 1}; its gradient group (Megatron's
  // data parallel group with cp) {0, 1, 2, 3}; the data-parallel ranks alone, {0, 2}, are none of its groups.
  const auto job = job_of(1, 2, 2, 1);
  EXPECT_EQ(kind_of(job, 0, collective({0, 1}, true)), ActivityKind::cp_comm);
  EXPECT_EQ(kind_of(job, 0, collective({0, 1})), ActivityKind::cp_comm);
  EXPECT_EQ(kind_of(job, 3, collective({0, 1, 2, 3})), ActivityKind::dp_comm);
  EXPECT_EQ(kind_of(job, 0, collective({0, 2})), ActivityKind::collective);
}

TEST(MeasuredGroup, UnlabelledPipelineTransfersArePhasedByDirectionAndNumberedInOrder) {
  auto rank = rank_timeline(0, {},
                            {comm(ActivityKind::pp_send_next, Phase::forward, 4, 0, 1),
                             {ActivityKind::pp_send_next, std::nullopt, -1, us(2), us(3)},
                             {ActivityKind::pp_recv_next, std::nullopt, -1, us(4), us(5)},
                             {ActivityKind::pp_send_next, std::nullopt, -1, us(6), us(7)},
                             {ActivityKind::tp_comm, std::nullopt, -1, us(8), us(9)}});
  EXPECT_TRUE(label_pipeline_transfers(rank));
  const auto& activities = rank.activities;
  EXPECT_EQ(activities[0].microbatch, 4);  // labelled by its trace: kept
  EXPECT_FALSE(activities[0].microbatch_by_order);
  EXPECT_EQ(activities[1].phase, Phase::forward);
  EXPECT_EQ(activities[1].microbatch, 0);
  EXPECT_TRUE(activities[1].microbatch_by_order);
  EXPECT_EQ(activities[2].phase, Phase::backward);
  EXPECT_EQ(activities[2].microbatch, 0);
  EXPECT_EQ(activities[3].microbatch, 1);
  EXPECT_FALSE(activities[4].phase.has_value());  // not a pipeline transfer
  auto none = rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 1)});
  EXPECT_FALSE(label_pipeline_transfers(none));
}

}  // namespace distsim::compare
