#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "schedule_test_jobs.hpp"

namespace distsim::schedule {

namespace {
//! At the step where the most micro-batches are held (forward run, W not yet), how many wait for
//! their B and how many have had B and wait for their W: the paper's M_B and M_W counts.
std::pair<int, int> held_at_peak(const std::vector<Step>& steps) {
  int awaiting_input = 0;
  int awaiting_weight = 0;
  std::pair<int, int> peak{0, 0};
  for (const auto& step : steps) {
    if (step.kind == F) ++awaiting_input;
    if (step.kind == B) --awaiting_input, ++awaiting_weight;
    if (step.kind == W) --awaiting_weight;
    if (awaiting_input + awaiting_weight > peak.first + peak.second) peak = {awaiting_input, awaiting_weight};
  }
  return peak;
}
}  // namespace

// p = 4, m = 8. Stage 0 defers no W: 1F1B's warm-up of 3 forwards, then F B W. Stage 3 defers 3:
// W of micro-batch k follows B of k + 3, and W 5..7 close the iteration.
TEST(ZeroBubbleH1Schedule, DefersWByTheStageIndex) {
  const ZeroBubbleH1Schedule schedule;
  const std::vector<Step> stage0{{F, 0}, {F, 1}, {F, 2}, {F, 3}, {B, 0}, {W, 0}, {F, 4}, {B, 1},
                                 {W, 1}, {F, 5}, {B, 2}, {W, 2}, {F, 6}, {B, 3}, {W, 3}, {F, 7},
                                 {B, 4}, {W, 4}, {B, 5}, {W, 5}, {B, 6}, {W, 6}, {B, 7}, {W, 7}};
  const std::vector<Step> stage3{{F, 0}, {B, 0}, {F, 1}, {B, 1}, {F, 2}, {B, 2}, {F, 3}, {B, 3},
                                 {W, 0}, {F, 4}, {B, 4}, {W, 1}, {F, 5}, {B, 5}, {W, 2}, {F, 6},
                                 {B, 6}, {W, 3}, {F, 7}, {B, 7}, {W, 4}, {W, 5}, {W, 6}, {W, 7}};
  EXPECT_EQ(schedule.steps(0, 4, 8), stage0);
  EXPECT_EQ(schedule.steps(3, 4, 8), stage3);
}

TEST(ZeroBubbleH1Schedule, RunsEveryStepOnceInOrder) {
  const ZeroBubbleH1Schedule schedule;
  for (int m : {2, 4, 9}) {
    for (int stage = 0; stage < 4; ++stage) {
      SCOPED_TRACE("stage " + std::to_string(stage));
      expect_each_pass_once_in_order(schedule.steps(stage, 4, m), m);
    }
  }
}

// The paper (§2.3) has worker i (1-based) hold (p − i + 1)·M_B + (i − 1)·M_W at its peak: with
// stage s = i − 1, p − s micro-batches waiting for B and s waiting for W, p in all (m ≥ p).
TEST(ZeroBubbleH1Schedule, HoldsPMicrobatchesAsThePaperCounts) {
  const ZeroBubbleH1Schedule schedule;
  for (int stage = 0; stage < 4; ++stage) {
    const auto steps = schedule.steps(stage, 4, 8);
    EXPECT_EQ(held_at_peak(steps), std::make_pair(4 - stage, stage)) << "stage " << stage;
    EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(stage, 4, 8, 1), 4.0);
  }
  // Stage 0 holds as many as under 1F1B, whose peak is there.
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(0, 4, 8, 1), OneFOneBSchedule().microbatches_in_flight(0, 4, 8, 1));
  // Fewer micro-batches than stages: all of them.
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(1, 4, 2, 1), 2.0);
}

TEST(ZeroBubbleH1Schedule, RunsOneChunkPerStage) {
  EXPECT_THROW(ZeroBubbleH1Schedule().steps(0, 2, 4, 2), InternalError);
  EXPECT_EQ(ZeroBubbleH1Schedule().chunks_per_stage(2), 1);
}

// p = 4, m = 8. Stage 0 warms up with 2p − 1 = 7 forwards and defers no W. Stage 3 warms up
// with one forward, then B, F alternate and W of micro-batch k follows B of k + 2·3.
TEST(ZeroBubbleH2Schedule, WarmsUpLongerAndDefersWByTwiceTheStage) {
  const ZeroBubbleH2Schedule schedule;
  const std::vector<Step> stage0{{F, 0}, {F, 1}, {F, 2}, {F, 3}, {F, 4}, {F, 5}, {F, 6}, {B, 0},
                                 {W, 0}, {F, 7}, {B, 1}, {W, 1}, {B, 2}, {W, 2}, {B, 3}, {W, 3},
                                 {B, 4}, {W, 4}, {B, 5}, {W, 5}, {B, 6}, {W, 6}, {B, 7}, {W, 7}};
  const std::vector<Step> stage3{{F, 0}, {B, 0}, {F, 1}, {B, 1}, {F, 2}, {B, 2}, {F, 3}, {B, 3},
                                 {F, 4}, {B, 4}, {F, 5}, {B, 5}, {F, 6}, {B, 6}, {W, 0}, {F, 7},
                                 {B, 7}, {W, 1}, {W, 2}, {W, 3}, {W, 4}, {W, 5}, {W, 6}, {W, 7}};
  EXPECT_EQ(schedule.steps(0, 4, 8), stage0);
  EXPECT_EQ(schedule.steps(3, 4, 8), stage3);
}

// The paper (§2.3): worker i holds (2p − 2i + 1)·M_B + (2i − 2)·M_W, so stage s = i − 1 holds
// 2(p − s) − 1 micro-batches waiting for B and 2s waiting for W, 2p − 1 = 7 in all.
TEST(ZeroBubbleH2Schedule, HoldsTwicePMinusOneMicrobatchesAsThePaperCounts) {
  const ZeroBubbleH2Schedule schedule;
  for (int stage = 0; stage < 4; ++stage) {
    EXPECT_EQ(held_at_peak(schedule.steps(stage, 4, 8)), std::make_pair(7 - 2 * stage, 2 * stage)) << stage;
    EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(stage, 4, 8, 1), 7.0);
  }
  EXPECT_DOUBLE_EQ(schedule.microbatches_in_flight(0, 4, 5, 1), 5.0);
}

TEST(ZeroBubbleSchedules, RunEachMicrobatchForwardThenBThenW) {
  const ZeroBubbleH2Schedule h2;
  for (const PipelineSchedule* schedule : std::vector<const PipelineSchedule*>{&h2}) {
    for (int m : {1, 3, 7, 12}) {
      for (int stage = 0; stage < 4; ++stage) {
        SCOPED_TRACE(std::string(schedule->name()) + " stage " + std::to_string(stage));
        expect_each_pass_once_in_order(schedule->steps(stage, 4, m), m);
      }
    }
  }
}

}  // namespace distsim::schedule
