#include "compare/stage_error.hpp"

#include <gtest/gtest.h>

#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

TEST(StageError, StagePassSpansAllItsRanks) {
  // tp 2, pp 1: ranks 0 and 1 form stage 0. Measured forward of mb 0 runs 2-10 on rank 0 and
  // 1-12 on rank 1, so the stage's pass is [1, 12]; predicted [0, 10] on both. Errors
  // (predicted − measured): start −1 µs, end −2 µs; over 100 µs: −1 %, −2 %.
  const auto predicted = timeline(
      2, 1, 1, 0, 100,
      {rank_timeline(0, strategy::RankCoord{}, {compute(Phase::forward, 0, 0, 10)}),
       rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::tp, 1}}, {compute(Phase::forward, 0, 0, 10)})});
  const auto measured = timeline(
      2, 1, 1, 0, 100,
      {rank_timeline(0, strategy::RankCoord{}, {compute(Phase::forward, 0, 2, 10)}),
       rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::tp, 1}}, {compute(Phase::forward, 0, 1, 12)})});
  const auto stages = stage_errors(predicted, measured, same_ranks({0, 1}));
  ASSERT_TRUE(stages.available);
  ASSERT_EQ(stages.rows.size(), 1u);
  const auto& row = stages.rows[0];
  EXPECT_EQ(row.measured_start, us(1));
  EXPECT_EQ(row.measured_end, us(12));
  EXPECT_EQ(row.start_error(), us(-1));
  EXPECT_EQ(row.end_error(), us(-2));
  EXPECT_DOUBLE_EQ(stages.mean_abs_start_error, 0.01);
  EXPECT_DOUBLE_EQ(stages.mean_abs_end_error, 0.02);
  EXPECT_DOUBLE_EQ(stages.max_abs_error, 0.02);
}

TEST(StageError, RowsByStageMicroBatchAndPhase) {
  // pp 2: stage 1 (rank 1) and stage 0 (rank 0), each with fwd and bwd of mb 0 and fwd of mb 1,
  // identical on both sides. Rows: (0,0,fwd) (0,0,bwd) (0,1,fwd) (1,0,fwd) (1,0,bwd) (1,1,fwd).
  // The optimizer step and the unlabelled bwd span are not stage passes.
  const std::vector<Activity> work{compute(Phase::forward, 1, 10, 20), compute(Phase::backward, 0, 20, 30),
                                   compute(Phase::forward, 0, 0, 10), compute(Phase::optimizer, -1, 30, 40),
                                   compute(Phase::backward, -1, 40, 41)};
  const auto side = timeline(1, 2, 1, 0, 50,
                             {rank_timeline(0, strategy::RankCoord{}, work),
                              rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::pp, 1}}, work)});
  const auto stages = stage_errors(side, side, same_ranks({0, 1}));
  ASSERT_EQ(stages.rows.size(), 6u);
  const std::vector<std::tuple<int, int, Phase>> expected{{0, 0, Phase::forward},  {0, 0, Phase::backward},
                                                          {0, 1, Phase::forward},  {1, 0, Phase::forward},
                                                          {1, 0, Phase::backward}, {1, 1, Phase::forward}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(std::make_tuple(stages.rows[i].stage, stages.rows[i].microbatch, stages.rows[i].phase), expected[i]);
  }
  EXPECT_DOUBLE_EQ(stages.max_abs_error, 0);
}

TEST(StageError, PassesOnOneSideOnlyAreCounted) {
  // Predicted has fwd mb 0 and 1, measured fwd mb 0 and bwd mb 0: one row, one each side only.
  const auto predicted = timeline(
      1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10), compute(Phase::forward, 1, 10, 20)})});
  const auto measured =
      timeline(1, 1, 1, 0, 100,
               {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10), compute(Phase::backward, 0, 10, 20)})});
  const auto stages = stage_errors(predicted, measured, same_ranks({0}));
  EXPECT_EQ(stages.rows.size(), 1u);
  EXPECT_EQ(stages.predicted_only, 1);
  EXPECT_EQ(stages.measured_only, 1);
}

TEST(StageError, UnavailableWithoutPassLabels) {
  const auto predicted = timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10)})});
  auto measured = predicted;
  measured.pass_labels = false;
  const auto stages = stage_errors(predicted, measured, same_ranks({0}));
  EXPECT_FALSE(stages.available);
  EXPECT_EQ(stages.unavailable_reason,
            "the measured traces do not label forward and backward passes (a PyTorch profiler trace marks them with "
            "ranges named distsim:fwd:mb=N, with PyTorch pipelining's PP: ranges, or with Megatron's forward_step and "
            "backward_step when the profiler records stacks; see docs/compare.md)");
}

}  // namespace

}  // namespace distsim::compare
