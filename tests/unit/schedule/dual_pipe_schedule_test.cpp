#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/input_error.hpp"
#include "schedule/dual_pipe_schedule.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "schedule_test_jobs.hpp"

namespace distsim::schedule {

// dualpipe.py's eight phases for n = 4 ranks, m = 8 (deepseek-ai/DualPipe): chunk 0 runs
// micro-batches 0-3 from rank 0 to rank 3, chunk 1 runs 4-7 from rank 3 to rank 0.
// Rank 0 (h = 0, own chunk 0, n/2 − h − 1 = 1): two F0; one pair F0 F1; one round B1 W F1 (W
// deferred, then run); m/2 − n + h + 1 = 1 main round F0 B1 F1 B0 (full backwards); one round B1
// F1 B0; one pair B1 B0 (one round, odd: B1 keeps its W, B0 defers it); one round W B0 (deferred);
// the last W.
// Rank 1 (h = 1, own chunk 0, no ramp): two pairs F0 F1; 4 − 4 + 1 + 1 = 2 main rounds; two pairs
// B1 B0, the second (even count: from its B1 on) deferring W; the two W in the order of their B.
// Ranks 2 and 3 run ranks 1 and 0's orders with the chunks swapped (own chunk 1).
// Each F&B of the main rounds and of the rounds B1 F1&B0 (dualpipe.py's _forward_backward_chunk)
// marks its B and W as overlapping the F before them (`true`).
TEST(DualPipeSchedule, FollowsDualPipesPhasesOnFourRanks) {
  const DualPipeSchedule schedule;
  const std::vector<Step> rank0{{F, 0, 0},
                                {F, 1, 0},
                                {F, 2, 0},
                                {F, 4, 1},
                                {B, 4, 1},
                                {W, 4, 1},
                                {F, 5, 1},
                                {F, 3, 0},
                                {B, 5, 1, Overlap::communication},
                                {W, 5, 1, Overlap::communication},
                                {F, 6, 1},
                                {B, 0, 0, Overlap::communication},
                                {W, 0, 0, Overlap::communication},
                                {B, 6, 1},
                                {W, 6, 1},
                                {F, 7, 1},
                                {B, 1, 0, Overlap::communication},
                                {W, 1, 0, Overlap::communication},
                                {B, 7, 1},
                                {W, 7, 1},
                                {B, 2, 0},
                                {W, 2, 0},
                                {B, 3, 0},
                                {W, 3, 0}};
  const std::vector<Step> rank1{{F, 0, 0},
                                {F, 4, 1},
                                {F, 1, 0},
                                {F, 5, 1},
                                {F, 2, 0},
                                {B, 4, 1, Overlap::communication},
                                {W, 4, 1, Overlap::communication},
                                {F, 6, 1},
                                {B, 0, 0, Overlap::communication},
                                {W, 0, 0, Overlap::communication},
                                {F, 3, 0},
                                {B, 5, 1, Overlap::communication},
                                {W, 5, 1, Overlap::communication},
                                {F, 7, 1},
                                {B, 1, 0, Overlap::communication},
                                {W, 1, 0, Overlap::communication},
                                {B, 6, 1},
                                {W, 6, 1},
                                {B, 2, 0},
                                {W, 2, 0},
                                {B, 7, 1},
                                {B, 3, 0},
                                {W, 7, 1},
                                {W, 3, 0}};
  const auto swapped = [](std::vector<Step> steps) {
    for (auto& step : steps) {
      step.chunk = 1 - step.chunk;
      step.microbatch = step.microbatch < 4 ? step.microbatch + 4 : step.microbatch - 4;
    }
    return steps;
  };
  EXPECT_EQ(schedule.steps(0, 4, 8, 2), rank0);
  EXPECT_EQ(schedule.steps(1, 4, 8, 2), rank1);
  EXPECT_EQ(schedule.steps(2, 4, 8, 2), swapped(rank1));
  EXPECT_EQ(schedule.steps(3, 4, 8, 2), swapped(rank0));
}

// Each direction's micro-batches run F, B, W once each, in that order, on their own chunk only.
TEST(DualPipeSchedule, RunsHalfTheMicrobatchesEachWay) {
  const DualPipeSchedule schedule;
  for (const auto& [n, m] : std::vector<std::pair<int, int>>{{2, 4}, {2, 6}, {4, 8}, {4, 12}, {8, 16}, {8, 20}}) {
    for (int rank = 0; rank < n; ++rank) {
      const auto steps = schedule.steps(rank, n, m, 2);
      for (const auto& step : steps) {
        EXPECT_EQ(step.chunk, step.microbatch < m / 2 ? 0 : 1) << "micro-batch " << step.microbatch;
      }
      SCOPED_TRACE("n " + std::to_string(n) + " m " + std::to_string(m) + " rank " + std::to_string(rank));
      expect_each_pass_once_in_order(steps, m);
    }
  }
}

// The README's table (deepseek-ai/DualPipe): PP + 1 activations of a stage per device. A rank's
// chunk is one stage, so n + 1 chunks, (n + 1)/2 micro-batches of the rank's two chunks. Every
// rank gets there: phases 1 and 2 run 2(n/2 − h − 1) + 2(h + 1) = n forwards before any backward,
// phase 3 keeps n (B W then F), and the first main round's F takes it to n + 1; after that every
// F follows a completed backward. n = 4, rank 0 above: F0 F1 F2 F4′ (4), B W F5′ (4), F3 (5).
TEST(DualPipeSchedule, HoldsPPPlusOneStageActivations) {
  const DualPipeSchedule schedule;
  for (const auto& [n, m] : std::vector<std::pair<int, int>>{{2, 4}, {2, 8}, {4, 8}, {4, 10}, {8, 16}, {8, 20}}) {
    for (int rank = 0; rank < n; ++rank) {
      EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(rank, n, m, 2), (n + 1) / 2.0)
          << "n " << n << " m " << m << " rank " << rank;
    }
  }
}

// Chunk 0 of rank r holds stage r, chunk 1 stage n − 1 − r: 8 layers on 4 ranks, 2 per stage.
// Activations of chunk 0 go to the next rank, of chunk 1 to the previous; rank 3's chunk 0 and
// rank 0's chunk 1 hold the head and end their direction's pipeline.
TEST(DualPipeSchedule, PlacesOneCopyOfAStagePerDirection) {
  const DualPipeSchedule schedule;
  const auto job = pipeline_job("dualpipe", 4, 8, 2, 8);
  const auto rank1 = schedule.stage_chunk_placements(job, 1);
  ASSERT_EQ(rank1.size(), 2U);
  EXPECT_EQ(rank1[0].layers.first, 2);
  EXPECT_EQ(rank1[0].layers.count, 2);
  EXPECT_EQ(rank1[1].layers.first, 4);
  EXPECT_EQ(rank1[1].layers.count, 2);
  EXPECT_EQ(rank1[0].receives_from, 0);
  EXPECT_EQ(rank1[0].sends_to, 2);
  EXPECT_EQ(rank1[1].receives_from, 2);
  EXPECT_EQ(rank1[1].sends_to, 0);
  const auto rank0 = schedule.stage_chunk_placements(job, 0);
  EXPECT_TRUE(rank0[0].embedding);
  EXPECT_FALSE(rank0[0].head);
  EXPECT_TRUE(rank0[1].head);
  EXPECT_EQ(rank0[1].sends_to, std::nullopt);
  const auto rank3 = schedule.stage_chunk_placements(job, 3);
  EXPECT_TRUE(rank3[0].head);
  EXPECT_TRUE(rank3[1].embedding);
  EXPECT_EQ(rank3[0].sends_to, std::nullopt);
  EXPECT_THROW(schedule.steps(0, 4, 8, 1), InternalError);
}

// dualpipe.py asserts an even number of ranks and an even number of at least 2n micro-batches.
TEST(DualPipeValidation, NeedsEvenRanksAndMicrobatches) {
  EXPECT_EQ(error_of(pipeline_job("dualpipe", 4, 8)), "");
  EXPECT_EQ(error_of(pipeline_job("dualpipe", 4, 7)),
            "invalid job: schedule 'dualpipe' sends half the micro-batches each way and needs an even number of at "
            "least 2 x pipeline = 8 micro-batches, got 7");
  EXPECT_EQ(error_of(pipeline_job("dualpipe", 4, 10)), "");
  EXPECT_EQ(error_of(pipeline_job("dualpipe", 4, 9)),
            "invalid job: schedule 'dualpipe' sends half the micro-batches each way and needs an even number of at "
            "least 2 x pipeline = 8 micro-batches, got 9");
  EXPECT_EQ(error_of(pipeline_job("dualpipe", 3, 12)),
            "invalid job: schedule 'dualpipe' runs micro-batches from both ends of the pipeline and needs an even "
            "pipeline parallel size of at least 2, got 3");
  auto one_chunk = pipeline_job("dualpipe", 2, 4);
  one_chunk.strategy.virtual_stages = 1;
  EXPECT_EQ(error_of(one_chunk),
            "invalid job: schedule 'dualpipe' holds two model chunks on each pipeline rank, one per direction, and "
            "needs virtual_stages 2, got 1");
}

}  // namespace distsim::schedule
