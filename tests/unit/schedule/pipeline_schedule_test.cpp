#include "schedule/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/input_error.hpp"

namespace distsim::schedule {

namespace {
constexpr StepKind F = StepKind::forward;
constexpr StepKind B = StepKind::backward;
//! Combined 1F1B's pairs hide the expert-parallel exchanges.
constexpr Overlap E = Overlap::expert_exchange;

//! Micro-batches whose forward has run and whose backward has not, at the worst point.
int max_in_flight(const std::vector<Step>& steps) {
  int in_flight = 0;
  int worst = 0;
  for (const auto& step : steps) {
    in_flight += step.kind == F ? 1 : -1;
    worst = std::max(worst, in_flight);
  }
  return worst;
}
}  // namespace

TEST(GpipeSchedule, RunsAllForwardsThenAllBackwards) {
  const auto steps = GpipeSchedule().steps(1, 4, 3);
  const std::vector<Step> expected{{F, 0}, {F, 1}, {F, 2}, {B, 0}, {B, 1}, {B, 2}};
  EXPECT_EQ(steps, expected);
  EXPECT_EQ(max_in_flight(steps), 3);
}

TEST(OneFOneBSchedule, WarmsUpThenAlternates) {
  // p = 4, m = 6, stage 1: warm-up min(4 - 1 - 1, 6) = 2 forwards.
  const auto steps = OneFOneBSchedule().steps(1, 4, 6);
  const std::vector<Step> expected{{F, 0}, {F, 1}, {F, 2}, {B, 0}, {F, 3}, {B, 1},
                                   {F, 4}, {B, 2}, {F, 5}, {B, 3}, {B, 4}, {B, 5}};
  EXPECT_EQ(steps, expected);
}

TEST(OneFOneBSchedule, KeepsAtMostPMicrobatchesInFlight) {
  for (int stage = 0; stage < 4; ++stage) {
    EXPECT_EQ(max_in_flight(OneFOneBSchedule().steps(stage, 4, 8)), 4 - stage);
  }
}

TEST(OneFOneBSchedule, HandlesFewerMicrobatchesThanStages) {
  const auto steps = OneFOneBSchedule().steps(0, 4, 2);
  const std::vector<Step> expected{{F, 0}, {F, 1}, {B, 0}, {B, 1}};
  EXPECT_EQ(steps, expected);
}

// Megatron-LM numbers a stage's passes k = 0 .. m·v − 1 in groups of p·v: forward k runs chunk
// (k mod p·v) / p on micro-batch (k / p·v)·p + k mod p; backward k visits the chunks in reverse.
// With p = 2, v = 2, m = 4 the forwards are (c0 m0) (c0 m1) (c1 m0) (c1 m1) (c0 m2) (c0 m3)
// (c1 m2) (c1 m3) and the backwards (c1 m0) (c1 m1) (c0 m0) (c0 m1) (c1 m2) (c1 m3) (c0 m2)
// (c0 m3). Warm-up: 2(p − s − 1) + (v − 1)p forwards = 4 on stage 0 and 2 on stage 1; then one
// forward, one backward; then the remaining backwards.
TEST(InterleavedSchedule, FollowsMegatronOrderOnTwoStages) {
  const InterleavedSchedule schedule;
  const std::vector<Step> stage0{{F, 0, 0}, {F, 1, 0}, {F, 0, 1}, {F, 1, 1}, {F, 2, 0}, {B, 0, 1},
                                 {F, 3, 0}, {B, 1, 1}, {F, 2, 1}, {B, 0, 0}, {F, 3, 1}, {B, 1, 0},
                                 {B, 2, 1}, {B, 3, 1}, {B, 2, 0}, {B, 3, 0}};
  const std::vector<Step> stage1{{F, 0, 0}, {F, 1, 0}, {F, 0, 1}, {B, 0, 1}, {F, 1, 1}, {B, 1, 1},
                                 {F, 2, 0}, {B, 0, 0}, {F, 3, 0}, {B, 1, 0}, {F, 2, 1}, {B, 2, 1},
                                 {F, 3, 1}, {B, 3, 1}, {B, 2, 0}, {B, 3, 0}};
  EXPECT_EQ(schedule.steps(0, 2, 4, 2), stage0);
  EXPECT_EQ(schedule.steps(1, 2, 4, 2), stage1);
}

TEST(InterleavedSchedule, RunsEveryForwardFirstWhenMicrobatchesEqualStages) {
  // m = p = 2, v = 2: Megatron-LM warms up with all m·v = 4 forwards.
  const std::vector<Step> expected{{F, 0, 0}, {F, 1, 0}, {F, 0, 1}, {F, 1, 1},
                                   {B, 0, 1}, {B, 1, 1}, {B, 0, 0}, {B, 1, 0}};
  EXPECT_EQ(InterleavedSchedule().steps(1, 2, 2, 2), expected);
}

TEST(InterleavedSchedule, RunsEachPassOnceInMicrobatchOrderPerChunk) {
  // p = 4, v = 3, m = 8 on every stage: each (chunk, micro-batch) forward and backward exactly
  // once, per chunk in micro-batch order, and a backward never before its forward.
  for (int stage = 0; stage < 4; ++stage) {
    const auto steps = InterleavedSchedule().steps(stage, 4, 8, 3);
    ASSERT_EQ(steps.size(), 2u * 8 * 3);
    std::vector<int> next_forward(3, 0);
    std::vector<int> next_backward(3, 0);
    for (const auto& step : steps) {
      auto& next = step.kind == F ? next_forward : next_backward;
      EXPECT_EQ(step.microbatch, next[static_cast<size_t>(step.chunk)]++) << "stage " << stage;
      if (step.kind == B) {
        EXPECT_LT(step.microbatch, next_forward[static_cast<size_t>(step.chunk)]);
      }
    }
    EXPECT_EQ(next_forward, std::vector<int>(3, 8));
    EXPECT_EQ(next_backward, std::vector<int>(3, 8));
  }
}

TEST(InterleavedSchedule, WarmsUpWithMoreForwardsOnEarlierStages) {
  // p = 4, v = 3, m = 8: stage s runs 2(4 − s − 1) + 2·4 forwards before its first backward.
  for (int stage = 0; stage < 4; ++stage) {
    const auto steps = InterleavedSchedule().steps(stage, 4, 8, 3);
    const auto first_backward = std::find_if(steps.begin(), steps.end(), [](const Step& s) { return s.kind == B; });
    // The first backward follows the warm-up and the first steady-state forward.
    EXPECT_EQ(first_backward - steps.begin(), 2 * (4 - stage - 1) + 8 + 1) << "stage " << stage;
  }
}

// Megatron-Core's combined 1F1B without pipelining (combined_1f1b_schedule_for_no_pipelining):
// F0, then F(i)&B(i - 1), then the last backward.
TEST(Combined1F1B, PairsEachForwardWithThePreviousBackwardWithoutPipelining) {
  const std::vector<Step> expected{{F, 0}, {F, 1}, {B, 0, 0, E}, {F, 2}, {B, 1, 0, E}, {B, 2}};
  EXPECT_EQ(combined_1f1b(OneFOneBSchedule().steps(0, 1, 3)), expected);
}

// The p = 2, v = 2, m = 4 orders of FollowsMegatronOrderOnTwoStages with one more warm-up forward
// (get_pp_rank_microbatches: 4 + 1 on stage 0, 2 + 1 on stage 1), each later forward paired with
// the backward that follows it, then the remaining backwards.
TEST(Combined1F1B, WarmsUpOneForwardMoreOnTheInterleavedSchedule) {
  const InterleavedSchedule schedule;
  const std::vector<Step> stage0{{F, 0, 0},    {F, 1, 0}, {F, 0, 1},    {F, 1, 1}, {F, 2, 0},    {F, 3, 0},
                                 {B, 0, 1, E}, {F, 2, 1}, {B, 1, 1, E}, {F, 3, 1}, {B, 0, 0, E}, {B, 1, 0},
                                 {B, 2, 1},    {B, 3, 1}, {B, 2, 0},    {B, 3, 0}};
  const std::vector<Step> stage1{{F, 0, 0},    {F, 1, 0}, {F, 0, 1},    {F, 1, 1}, {B, 0, 1, E}, {F, 2, 0},
                                 {B, 1, 1, E}, {F, 3, 0}, {B, 0, 0, E}, {F, 2, 1}, {B, 1, 0, E}, {F, 3, 1},
                                 {B, 2, 1, E}, {B, 3, 1}, {B, 2, 0},    {B, 3, 0}};
  EXPECT_EQ(combined_1f1b(schedule.steps(0, 2, 4, 2)), stage0);
  EXPECT_EQ(combined_1f1b(schedule.steps(1, 2, 4, 2)), stage1);
}

TEST(Combined1F1B, HoldsTheExtraForwardsActivations) {
  // The orders above: stage 0 holds 5 chunks after its warm-up and 6 at its first pair's forward,
  // 3 micro-batches of 2 chunks (plain interleaved: 5 chunks, 2.5); stage 1 holds 4, 2 (plain 1.5).
  strategy::Strategy s;
  s.pipeline_parallel = 2;
  s.virtual_stages = 2;
  s.micro_batch_size = 1;
  s.data_parallel = 1;
  s.global_batch_size = 4;
  s.schedule = "interleaved";
  const InterleavedSchedule schedule;
  EXPECT_DOUBLE_EQ(schedule.stage_microbatches_in_flight(s, 0), 2.5);
  s.overlap_moe_expert_parallel_comm = true;
  EXPECT_DOUBLE_EQ(schedule.stage_microbatches_in_flight(s, 0), 3.0);
  EXPECT_DOUBLE_EQ(schedule.stage_microbatches_in_flight(s, 1), 2.0);
  EXPECT_EQ(schedule.stage_steps(s, 1), combined_1f1b(schedule.steps(1, 2, 4, 2)));
}

TEST(Combined1F1B, RunsOnlyWithoutPipeliningOrInterleaved) {
  EXPECT_TRUE(OneFOneBSchedule().runs_combined_1f1b(1, 1));
  EXPECT_FALSE(OneFOneBSchedule().runs_combined_1f1b(2, 1));
  EXPECT_TRUE(InterleavedSchedule().runs_combined_1f1b(2, 2));
  EXPECT_FALSE(GpipeSchedule().runs_combined_1f1b(1, 1));
}

TEST(PipelineSchedules, RejectChunksUnlessInterleaved) {
  EXPECT_THROW(GpipeSchedule().steps(0, 2, 4, 2), InternalError);
  EXPECT_THROW(OneFOneBSchedule().steps(0, 2, 4, 2), InternalError);
}

TEST(ScheduleRegistry, FindsByNameAndSuggests) {
  EXPECT_EQ(find_schedule("gpipe").name(), "gpipe");
  EXPECT_EQ(find_schedule("interleaved").name(), "interleaved");
  try {
    find_schedule("1f1d");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "unknown schedule '1f1d'; did you mean '1f1b'? (known: gpipe, 1f1b, interleaved, zb-h1, "
                           "zb-h2, zbv, dualpipe, dualpipev)");
  }
}

}  // namespace distsim::schedule
