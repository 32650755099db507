#include <gtest/gtest.h>

#include <tuple>
#include <utility>
#include <vector>

#include "schedule/pipeline_schedule.hpp"
#include "schedule_test_jobs.hpp"

namespace distsim::schedule {

// The V (Qi et al., "Pipeline Parallelism with Controllable Memory", NeurIPS'24, Fig. 3): 2p
// chunks of l/(2p) layers; stage s holds chunk s and chunk 2p − 1 − s. p = 4, 16 layers: 2 each.
TEST(VShapeSchedule, PlacesTwoChunksPerStageInAV) {
  const ZeroBubbleVSchedule schedule;
  EXPECT_EQ(schedule.chunks_per_stage(1), 2);
  const std::vector<std::tuple<int, int, int>> expected{{0, 0, 0},  {0, 1, 14}, {1, 0, 2},
                                                        {1, 1, 12}, {3, 0, 6},  {3, 1, 8}};
  for (const auto& [stage, chunk, first] : expected) {
    const auto layers = schedule.chunk_layers(16, 4, 2, stage, chunk);
    EXPECT_EQ(layers.first, first) << "stage " << stage << " chunk " << chunk;
    EXPECT_EQ(layers.count, 2);
  }
}

// Down the V on chunk 0, a local hand-off at its bottom, back up on chunk 1, which ends on
// stage 0.
TEST(VShapeSchedule, HopsDownThenBackUp) {
  const DualPipeVSchedule schedule;
  const auto down = schedule.next_chunk({1, 0}, 4, 2);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->peer, (ChunkSlot{2, 0}));
  EXPECT_TRUE(down->downstream);
  const auto bottom = schedule.next_chunk({3, 0}, 4, 2);
  ASSERT_TRUE(bottom);
  EXPECT_EQ(bottom->peer, (ChunkSlot{3, 1}));
  const auto up = schedule.next_chunk({2, 1}, 4, 2);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->peer, (ChunkSlot{1, 1}));
  EXPECT_FALSE(up->downstream);
  EXPECT_FALSE(schedule.next_chunk({0, 1}, 4, 2));
  EXPECT_FALSE(schedule.previous_chunk({0, 0}, 4, 2));
  const auto into_bottom = schedule.previous_chunk({3, 1}, 4, 2);
  ASSERT_TRUE(into_bottom);
  EXPECT_EQ(into_bottom->peer, (ChunkSlot{3, 0}));
}

// Stage 0 sends chunk 0's activations to stage 1 and receives chunk 1's from it; the last stage
// receives on chunk 0 and sends on chunk 1, both to stage p − 2, and hands off locally between.
TEST(VShapeSchedule, PlacesEachChunksNeighbours) {
  const auto job = pipeline_job("zbv", 4, 8);
  const ZeroBubbleVSchedule schedule;
  const auto first = schedule.stage_chunk_placements(job, 0);
  ASSERT_EQ(first.size(), 2U);
  EXPECT_EQ(first[0].receives_from, std::nullopt);
  EXPECT_EQ(first[0].sends_to, 1);
  EXPECT_EQ(first[1].receives_from, 1);
  EXPECT_EQ(first[1].sends_to, std::nullopt);
  const auto last = schedule.stage_chunk_placements(job, 3);
  EXPECT_EQ(last[0].receives_from, 2);
  EXPECT_EQ(last[0].sends_to, std::nullopt);
  EXPECT_EQ(last[1].receives_from, std::nullopt);
  EXPECT_EQ(last[1].sends_to, 2);
}

// p = 2, m = 2, worked slot by slot with T_F = T_B = T_W = 1 and the rule of
// ZeroBubbleVSchedule (B first, oldest micro-batch then chunk 1; else F, chunk 1 first, below
// 2p = 4 held chunk activations; else the oldest owed W). Chunk c micro-batch k is (c, k).
// Stage 0: F(0,0) F(0,1) at 0-1; idle at 2 (F(1,0) waits for stage 1's chunk 1); F(1,0) 3,
// B(1,0) 4, F(1,1) 5, B(1,1) 6, B(0,0) 7 (stage 1's B(0,0) ends at 7), W(1,0) 8 (B(0,1) waits
// for stage 1), B(0,1) 9, then W(1,1) W(0,0) W(0,1). Stage 1: idle at 0, F(0,0) 1, F(1,0) 2,
// F(0,1) 3, F(1,1) 4, B(1,0) 5, B(0,0) 6, B(1,1) 7, B(0,1) 8, then its four W in B order.
// Both end at 13 = 6m + (p − 1): one unit of idle time each, the stagger of the start.
TEST(ZeroBubbleVSchedule, FollowsTheHandWorkedOrderOnTwoStages) {
  const ZeroBubbleVSchedule schedule;
  const std::vector<Step> stage0{{F, 0, 0}, {F, 1, 0}, {F, 0, 1}, {B, 0, 1}, {F, 1, 1}, {B, 1, 1},
                                 {B, 0, 0}, {W, 0, 1}, {B, 1, 0}, {W, 1, 1}, {W, 0, 0}, {W, 1, 0}};
  const std::vector<Step> stage1{{F, 0, 0}, {F, 0, 1}, {F, 1, 0}, {F, 1, 1}, {B, 0, 1}, {B, 0, 0},
                                 {B, 1, 1}, {B, 1, 0}, {W, 0, 1}, {W, 0, 0}, {W, 1, 1}, {W, 1, 0}};
  EXPECT_EQ(schedule.steps(0, 2, 2, 2), stage0);
  EXPECT_EQ(schedule.steps(1, 2, 2, 2), stage1);
}

// Every pass once, and the paper's memory claim (ZB paper §6, NeurIPS'24 Table 1 V-ZB): no stage
// holds more than 2p chunk activations, p micro-batches, 1F1B's peak; stage 0 reaches it.
TEST(ZeroBubbleVSchedule, RunsEachPassOnceWithinOneFOneBsPeak) {
  const ZeroBubbleVSchedule schedule;
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}, {4, 9}, {4, 16}, {8, 16}}) {
    for (int stage = 0; stage < p; ++stage) {
      expect_each_pass_once_in_order(schedule.steps(stage, p, m, 2), 2 * m);
      EXPECT_LE(schedule.microbatches_in_flight(stage, p, m, 2), p) << "p " << p << " m " << m << " stage " << stage;
    }
    EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(0, p, m, 2), p) << "p " << p << " m " << m;
  }
}

TEST(ZeroBubbleVSchedule, RunsTwoChunksPerStage) {
  EXPECT_THROW(ZeroBubbleVSchedule().steps(0, 2, 4, 1), InternalError);
}

// dualpipev.py's eight phases for n = 2 ranks, m = 4 (deepseek-ai/DualPipe). Rank 0: 2(n − 1) = 2
// F0; one pair F0 F1; one round B1 W F1 (W deferred, then run); m − 2n + 1 = 1 main round F0 B1
// F1 B0 (full backwards); one round B1 F1 B0; one pair B1 B0, W deferred from the B0 on (rank
// even: from the second half); one round W B0 (deferred); the last W.
// Rank 1: two pairs F0 F1; m − 2n + 2 = 2 main rounds; two pairs B1 B0, the second deferring
// both W (rank odd: B1 of the second half defers too); the two W.
// Each F&B of the main rounds and of the round B1 F1&B0 (dualpipev.py's
// _forward_backward_chunk) marks its B and W as overlapping the F before them (`true`).
TEST(DualPipeVSchedule, FollowsDualPipeVsPhasesOnTwoRanks) {
  const DualPipeVSchedule schedule;
  const std::vector<Step> rank0{{F, 0, 0},
                                {F, 1, 0},
                                {F, 2, 0},
                                {F, 0, 1},
                                {B, 0, 1},
                                {W, 0, 1},
                                {F, 1, 1},
                                {F, 3, 0},
                                {B, 1, 1, Overlap::communication},
                                {W, 1, 1, Overlap::communication},
                                {F, 2, 1},
                                {B, 0, 0, Overlap::communication},
                                {W, 0, 0, Overlap::communication},
                                {B, 2, 1},
                                {W, 2, 1},
                                {F, 3, 1},
                                {B, 1, 0, Overlap::communication},
                                {W, 1, 0, Overlap::communication},
                                {B, 3, 1},
                                {W, 3, 1},
                                {B, 2, 0},
                                {W, 2, 0},
                                {B, 3, 0},
                                {W, 3, 0}};
  const std::vector<Step> rank1{{F, 0, 0},
                                {F, 0, 1},
                                {F, 1, 0},
                                {F, 1, 1},
                                {F, 2, 0},
                                {B, 0, 1, Overlap::communication},
                                {W, 0, 1, Overlap::communication},
                                {F, 2, 1},
                                {B, 0, 0, Overlap::communication},
                                {W, 0, 0, Overlap::communication},
                                {F, 3, 0},
                                {B, 1, 1, Overlap::communication},
                                {W, 1, 1, Overlap::communication},
                                {F, 3, 1},
                                {B, 1, 0, Overlap::communication},
                                {W, 1, 0, Overlap::communication},
                                {B, 2, 1},
                                {W, 2, 1},
                                {B, 2, 0},
                                {W, 2, 0},
                                {B, 3, 1},
                                {B, 3, 0},
                                {W, 3, 1},
                                {W, 3, 0}};
  EXPECT_EQ(schedule.steps(0, 2, 4, 2), rank0);
  EXPECT_EQ(schedule.steps(1, 2, 4, 2), rank1);
}

// The README's table (deepseek-ai/DualPipe): PP + 1 chunk activations per device, PP = 2n
// stages on n ranks, so (2n + 1)/2 micro-batches of the rank's two chunks. For n = 2 rank 0 by
// hand: F0 F0 F0 F1 hold 4, W of (1, 0) drops to 3, F1 F0 reach 5.
TEST(DualPipeVSchedule, HoldsPPPlusOneChunkActivations) {
  const DualPipeVSchedule schedule;
  for (const auto& [n, m] : std::vector<std::pair<int, int>>{{2, 4}, {2, 7}, {4, 8}, {4, 10}, {8, 20}}) {
    for (int rank = 0; rank < n; ++rank) {
      expect_each_pass_once_in_order(schedule.steps(rank, n, m, 2), 2 * m);
      EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(rank, n, m, 2), (2.0 * n + 1) / 2)
          << "n " << n << " m " << m << " rank " << rank;
    }
  }
}

TEST(VShapeValidation, NeedsTwoVirtualStages) {
  auto job = pipeline_job("zbv", 4, 8);
  EXPECT_EQ(error_of(job), "");
  job.strategy.virtual_stages = 1;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'zbv' places two model chunks on each pipeline stage in a V and needs "
            "virtual_stages 2, got 1");
  job.strategy.virtual_stages = 3;
  EXPECT_EQ(error_of(job),
            "invalid job: schedule 'zbv' places two model chunks on each pipeline stage in a V and needs "
            "virtual_stages 2, got 3");
}

TEST(VShapeValidation, NeedsTwoStagesAndEqualChunks) {
  auto one_stage = pipeline_job("dualpipev", 1, 8);
  EXPECT_EQ(error_of(one_stage),
            "invalid job: schedule 'dualpipev' needs a pipeline parallel size of at least 2, got 1");
  // 20 layers into 2 x 4 = 8 chunks.
  EXPECT_EQ(error_of(pipeline_job("zbv", 4, 8, 2, 20)),
            "invalid job: schedule 'zbv' splits the 20 layers of model 'gpt2-345m' into 2 x pipeline = 8 equal "
            "chunks placed in a V, but 8 does not divide 20");
}

// dualpipev.py asserts num_chunks >= num_ranks * 2.
TEST(VShapeValidation, DualPipeVNeedsTwoMicrobatchesPerRank) {
  EXPECT_EQ(error_of(pipeline_job("dualpipev", 4, 8)), "");
  EXPECT_EQ(error_of(pipeline_job("dualpipev", 4, 7)),
            "invalid job: schedule 'dualpipev' needs at least 2 x pipeline = 8 micro-batches, got 7");
  EXPECT_EQ(error_of(pipeline_job("zbv", 4, 7)), "");
}

}  // namespace distsim::schedule
