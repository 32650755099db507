#include "whatif/step_replay.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/input_error.hpp"
#include "whatif/straggler_analysis.hpp"

namespace distsim::whatif {

namespace {

using enum OpRole;

MeasuredOp op(int dp, int stage, OpRole role, int seq, double start, double duration) {
  return {0, dp, stage, role, seq, start, duration};
}

// Two stages, one data-parallel rank, two micro-batches in 1F1B order: stage 0 runs F0 F1 B0 B1,
// stage 1 F0 B0 F1 B1. Stage 0's forwards take 2 s and backwards 4 s, stage 1's 3 s and 6 s;
// every transfer 1 s, each optimizer 1 s. The measured starts give the computations' order; stage
// 0's optimizer starts 0.5 s late (a launch delay).
MeasuredTrace two_stage_trace() {
  MeasuredTrace trace;
  trace.ops = {
      op(0, 0, forward_compute, 0, 0, 2),   op(0, 0, forward_compute, 1, 2, 2),  op(0, 0, backward_compute, 0, 13, 4),
      op(0, 0, backward_compute, 1, 22, 4), op(0, 0, forward_send, 0, 2, 1),     op(0, 0, forward_send, 1, 6, 1),
      op(0, 0, backward_recv, 0, 12, 1),    op(0, 0, backward_recv, 1, 21, 1),   op(0, 0, optimizer, 0, 26.5, 1),
      op(0, 1, forward_compute, 0, 3, 3),   op(0, 1, backward_compute, 0, 6, 6), op(0, 1, forward_compute, 1, 12, 3),
      op(0, 1, backward_compute, 1, 15, 6), op(0, 1, forward_recv, 0, 2, 1),     op(0, 1, forward_recv, 1, 6, 1),
      op(0, 1, backward_send, 0, 12, 1),    op(0, 1, backward_send, 1, 21, 1),   op(0, 1, optimizer, 0, 21, 1),
  };
  return trace;
}

std::vector<double> durations_of(const MeasuredTrace& trace) {
  std::vector<double> durations;
  for (const auto& o : trace.ops) durations.push_back(o.duration_s);
  return durations;
}

}  // namespace

// By the rules of StepReplay, worked out by hand (s = stage):
//   s0 F0 0-2; the pair F-send/F-recv of micro-batch 0 meets at max(2, 0) = 2 and ends at 3;
//   s0 F1 2-4; s1 F0 3-6; the second pair meets at max(4, 6) = 6 (the receive waits for s1's F0)
//   and ends at 7; s1 B0 6-12; its B-send meets the receive s0 posted after F0 (the computation
//   two before its first backward) at 12 and ends at 13; s1 F1 12-15, B1 15-21; s0 B0 13-17; the
//   second backward pair meets at max(21, 17) = 21 and ends at 22; s0 B1 22-26 and its optimizer
//   26-27: the step takes 27 s (measured 27.5 s with the optimizer's late start).
TEST(StepReplay, PipelineTransfersMeetTheirPeersByHand) {
  const MeasuredTrace trace = two_stage_trace();
  const StepReplay replay(trace);
  ASSERT_EQ(replay.steps(), std::vector<int>{0});
  const auto times = replay.step_times(durations_of(trace));
  ASSERT_EQ(times.size(), 1u);
  EXPECT_DOUBLE_EQ(times[0], 27.0);
}

// Ideal: forwards at their mean 2.5 s, backwards 5 s, transfers at their median 1 s; the same rules
// give s0 F0 0-2.5, F1 2.5-5; s1 F0 3.5-6, B0 6-11, F1 11-13.5, B1 13.5-18.5; s0 B0 12-17, B1
// 19.5-24.5, optimizer 24.5-25.5: 25.5 s, a straggler slowdown of 27 / 25.5. Stage 1 alone at its
// measured times (3 s and 6 s) ends at 28.5 s, stage 0 alone (2 s and 4 s) at 24 s: the slow stage
// is the second.
TEST(StragglerAnalysis, SlowdownAndItsAttributionByHand) {
  const StragglerAnalysis a = analyze_stragglers(two_stage_trace());
  EXPECT_EQ(a.dp_size, 1);
  EXPECT_EQ(a.pp_size, 2);
  EXPECT_DOUBLE_EQ(a.measured_s, 27.5);
  EXPECT_DOUBLE_EQ(a.replayed_s, 27.0);
  EXPECT_DOUBLE_EQ(a.ideal_s, 25.5);
  EXPECT_DOUBLE_EQ(a.launch_slowdown, 27.5 / 27.0);
  EXPECT_DOUBLE_EQ(a.straggler_slowdown, 27.0 / 25.5);
  ASSERT_EQ(a.by_stage.size(), 2u);
  EXPECT_EQ(a.by_stage[0].group, "1");
  EXPECT_DOUBLE_EQ(a.by_stage[0].slowdown, 28.5 / 25.5);
  EXPECT_EQ(a.by_stage[1].group, "0");
  EXPECT_DOUBLE_EQ(a.by_stage[1].slowdown, 24.0 / 25.5);
}

// One stage on two data-parallel ranks: each gathers its parameters (1 s), computes a forward
// (rank 0 2 s, rank 1 4 s) and a backward (3 s), reduce-scatters its gradients (1 s), all-reduces
// the gradient norm for clipping (0.5 s) and steps (1 s). The gathers meet at 0 and end at 1;
// rank 0's backward ends at 6, rank 1's at 8, so both reduce-scatters meet at 8: 9, 9.5, 10.5 s.
// Ideal (forwards 3 s): 1, 4, 7, then 8, 8.5, 9.5 s. Rank 1 alone at its measured times gives
// 10.5 s again, rank 0 alone 9.5 s: the straggler is rank 1 and slows rank 0 at the reduction.
TEST(StragglerAnalysis, ACollectiveWaitsForTheSlowestRankByHand) {
  MeasuredTrace trace;
  for (int dp = 0; dp < 2; ++dp) {
    const double forward = dp == 0 ? 2 : 4;
    trace.ops.push_back(op(dp, 0, params_all_gather, 0, 0, 1));
    trace.ops.push_back(op(dp, 0, forward_compute, 0, 1, forward));
    trace.ops.push_back(op(dp, 0, backward_compute, 0, 1 + forward, 3));
    trace.ops.push_back(op(dp, 0, grads_reduce_scatter, 0, 8, 1));
    trace.ops.push_back(op(dp, 0, grad_clip, 0, 9, 0.5));
    trace.ops.push_back(op(dp, 0, optimizer, 0, 9.5, 1));
  }
  const StragglerAnalysis a = analyze_stragglers(trace);
  EXPECT_DOUBLE_EQ(a.replayed_s, 10.5);
  EXPECT_DOUBLE_EQ(a.ideal_s, 9.5);
  ASSERT_EQ(a.by_dp_rank.size(), 2u);
  EXPECT_EQ(a.by_dp_rank[0].group, "1");
  EXPECT_DOUBLE_EQ(a.by_dp_rank[0].slowdown, 10.5 / 9.5);
  EXPECT_DOUBLE_EQ(a.by_dp_rank[1].slowdown, 1.0);
  // By type: the forwards alone are the slowdown; the pipeline transfers are merged into one group.
  EXPECT_EQ(a.by_op_type[0].group, "forward-compute");
  EXPECT_DOUBLE_EQ(a.by_op_type[0].slowdown, 10.5 / 9.5);
}

// The medians of an even count are the mean of the two middle values: transfers of 1, 2, 3 and 10
// s stand at 2.5 s each, where their mean would be 4.
TEST(StragglerAnalysis, CommunicationsStandAtTheirMedian) {
  MeasuredTrace trace;
  const double transfers[] = {1, 2, 3, 10};
  for (int step = 0; step < 4; ++step) {
    trace.ops.push_back({step, 0, 0, grad_clip, 0, 0, transfers[step]});
  }
  const StragglerAnalysis a = analyze_stragglers(trace);
  EXPECT_DOUBLE_EQ(a.ideal_s, 2.5);
  EXPECT_DOUBLE_EQ(a.replayed_s, 4.0);
}

TEST(StepReplay, AnOperationTwiceOnARankIsRefused) {
  MeasuredTrace trace;
  trace.ops = {op(0, 0, forward_compute, 0, 0, 1), op(0, 0, forward_compute, 0, 1, 1)};
  try {
    StepReplay replay(trace);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "step 0, data-parallel rank 0, stage 0: two forward-compute operations of micro-batch 0");
  }
}

// Backward 1 measured before backward 0: the chain puts backward 0 after backward 1, backward 1
// waits for its receive, and that receive waits for backward 0 (the micro-batch before): a cycle.
TEST(StepReplay, DependenciesInACycleAreRefused) {
  MeasuredTrace trace;
  trace.ops = {op(0, 0, backward_compute, 1, 0, 1), op(0, 0, backward_compute, 0, 1, 1),
               op(0, 0, backward_recv, 1, 0, 1)};
  EXPECT_THROW(StepReplay{trace}, InputError);
}

// The step's end in its measured order, by hand, on one rank: F0 0-2, B0 2-6. Bucket 0's
// reduce-scatter was measured at 5 s, while B0 ran (--overlap-grad-reduce): it waits only for F0,
// the computation that had ended by then, and runs 2-3. Bucket 1 (measured at 6 s) waits for B0 and
// runs 6-7, the optimizer 7-8, and the parameter all-gather, measured after the last computation,
// follows it 8-9 (without --overlap-param-gather) instead of feeding F0. The step takes 9 s; with
// every reduction after the backward it would take 10 s.
TEST(StepReplay, StepEndRunsInItsMeasuredOrder) {
  MeasuredTrace trace;
  trace.ops = {op(0, 0, forward_compute, 0, 0, 2),
               op(0, 0, backward_compute, 0, 2, 4),
               op(0, 0, grads_reduce_scatter, 0, 5, 1),
               op(0, 0, grads_reduce_scatter, 1, 6, 1),
               op(0, 0, optimizer, 0, 7, 1),
               op(0, 0, params_all_gather, 0, 8, 1)};
  const StepReplay replay(trace);
  EXPECT_EQ(replay.step_times(durations_of(trace)), std::vector<double>{9.0});
}

}  // namespace distsim::whatif
