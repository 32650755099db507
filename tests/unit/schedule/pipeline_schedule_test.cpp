#include "schedule/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"

namespace distsim::schedule {

namespace {
constexpr StepKind F = StepKind::forward;
constexpr StepKind B = StepKind::backward;

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

TEST(ScheduleRegistry, FindsByNameAndSuggests) {
  EXPECT_EQ(find_schedule("gpipe").name(), "gpipe");
  try {
    find_schedule("1f1d");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "unknown schedule '1f1d'; did you mean '1f1b'? (known: gpipe, 1f1b)");
  }
}

}  // namespace distsim::schedule
