#include "steady/steady_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/simulation.hpp"
#include "cost/analytical_cost_model.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "steady_cases.hpp"

namespace distsim::api {

using steady::lengthened_plan;
using steady::plan_steady_state;
using steady::shortened_job;
using steady::SteadyStatePlan;

namespace {

Simulation run(const SteadyCase& c, bool steady_state, bool aggregate_passes = false) {
  SimulationOptions options;
  options.all_ranks = c.all_ranks;
  options.steady_state = steady_state;
  options.aggregate_passes = aggregate_passes;
  return simulate(c.job, options);
}

void expect_same_summary(const Simulation& fast, const Simulation& whole) {
  EXPECT_EQ(fast.summary.iteration_time, whole.summary.iteration_time);
  ASSERT_EQ(fast.summary.devices.size(), whole.summary.devices.size());
  for (std::size_t d = 0; d < whole.summary.devices.size(); ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    const auto& a = fast.summary.devices[d];
    const auto& b = whole.summary.devices[d];
    EXPECT_EQ(a.busy_compute, b.busy_compute);
    EXPECT_EQ(a.busy_communication, b.busy_communication);
    EXPECT_EQ(a.host_busy, b.host_busy);
    EXPECT_EQ(a.idle, b.idle);
    EXPECT_EQ(a.first_start, b.first_start);
    EXPECT_EQ(a.last_end, b.last_end);
  }
  EXPECT_EQ(fast.summary.events.instances, whole.summary.events.instances);
  EXPECT_EQ(fast.summary.events.unique, whole.summary.events.unique);
  EXPECT_EQ(fast.summary.total_flops, whole.summary.total_flops);
  EXPECT_EQ(fast.summary.bubble_fraction, whole.summary.bubble_fraction);
  ASSERT_EQ(fast.program.events.size(), whole.program.events.size());
  for (events::EventId id = 0; id < whole.program.events.size(); ++id) {
    EXPECT_EQ(fast.program.events.instances(id), whole.program.events.instances(id));
  }
}

}  // namespace

// The test that matters: a summary extended from a repeating steady state equals the one read off
// every task's times, to the nanosecond on every device, for every schedule and feature that
// shapes a pipeline's steady state. Jobs whose step order does not repeat (GPipe) or whose
// timeline does not repeat are simulated whole, which this compares as well.
TEST(SteadyState, ExtendedSummaryEqualsTheWholeSimulation) {
  for (const auto& c : steady_cases()) {
    SCOPED_TRACE(c.name);
    const Simulation whole = run(c, false);
    ASSERT_FALSE(whole.repeats.has_value());
    ASSERT_EQ(whole.simulated_microbatches, c.job.strategy.num_microbatches());
    expect_same_summary(run(c, true), whole);
  }
}

// The same with each pass one task, as a search simulates (symmetric mode), also on pipelines of
// 32 and 64 stages, whose warm-up takes as many micro-batches.
TEST(SteadyState, ExtendedSummaryOfAggregatedPassesEqualsTheWholeSimulation) {
  auto cases = steady_cases();
  const std::vector<SteadyCase> deep{
      {"gpt3 175b pp32", make_job("gpt3-175b", "dgx-a100", 128, 8, 32, 4, 384, "1f1b")},
      {"gpt3 175b pp64", make_job("gpt3-175b", "dgx-a100", 128, 16, 64, 1, 1536, "1f1b")}};
  cases.insert(cases.end(), deep.begin(), deep.end());
  for (const auto& c : cases) {
    if (c.all_ranks) continue;
    SCOPED_TRACE(c.name);
    expect_same_summary(run(c, true, true), run(c, false, true));
  }
  for (const auto& c : deep) {
    EXPECT_LT(run(c, true, true).simulated_microbatches, c.job.strategy.num_microbatches()) << c.name;
  }
}

// Without the check above passing vacuously: the 1F1B jobs run in part, and so do the long
// zero-bubble jobs (the ZB-H1 job's 14-micro-batch run repeats 3 micro-batches only and its second,
// 28-micro-batch run long enough) and DualPipeV.
TEST(SteadyState, OneFOneBAndLongZeroBubbleJobsRunInPart) {
  const std::vector<std::string> in_part = {"gpt2 zb-h1, long", "gpt2 zb-h2, long", "gpt2 zbv, long", "gpt2 dualpipev"};
  for (const auto& c : steady_cases()) {
    if (c.job.strategy.schedule != "1f1b" && std::find(in_part.begin(), in_part.end(), c.name) == in_part.end())
      continue;
    SCOPED_TRACE(c.name);
    const Simulation fast = run(c, true);
    EXPECT_LT(fast.simulated_microbatches, c.job.strategy.num_microbatches());
    EXPECT_TRUE(fast.repeats.has_value());
    EXPECT_LT(run(c, true, true).simulated_microbatches, c.job.strategy.num_microbatches());
  }
}

// 1F1B on 4 stages repeats every micro-batch: a warm-up, a repeating stretch longer than the 4
// micro-batches the pipeline holds, and a cool-down take 3 × 4 + 2 × 1 = 14 micro-batches, and 64
// are 50 repeats more.
TEST(SteadyState, PlansOneFOneBOverFourteenMicrobatches) {
  const auto job = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "1f1b");
  const auto plan = plan_steady_state(job.strategy, schedule::find_schedule("1f1b"));
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->period, 1);
  EXPECT_EQ(plan->simulated_microbatches, 14);
  EXPECT_EQ(plan->repeats(), 50);
}

// 14 micro-batches of 18 are more than three quarters: running them would not save enough to be
// worth a check that may fail (14 of 19 would).
TEST(SteadyState, PlansNothingForAShortPipelineNorForGPipe) {
  const auto short_job = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 18, "1f1b");
  EXPECT_FALSE(plan_steady_state(short_job.strategy, schedule::find_schedule("1f1b")).has_value());
  const auto gpipe = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "gpipe");
  EXPECT_FALSE(plan_steady_state(gpipe.strategy, schedule::find_schedule("gpipe")).has_value());
}

// A timeline whose middle does not repeat is not extended: one task of the middle micro-batch
// moved by 1 ns breaks the repeating stretch into two, each shorter than the pipeline's depth
// plus a period.
TEST(SteadyState, ATimelineThatDoesNotRepeatIsNotExtended) {
  const auto job = make_job("gpt2-345m", "dgx-a100", 2, 2, 4, 2, 64, "1f1b");
  const auto& schedule = schedule::find_schedule("1f1b");
  const auto plan = plan_steady_state(job.strategy, schedule);
  ASSERT_TRUE(plan.has_value());
  const cost::AnalyticalCostModel costs(job.cluster);
  const auto build = [&] {
    return program::build_job_program(shortened_job(job, *plan), schedule, costs,
                                      program::SimulatedRanks::one_per_stage, false, {}, plan->counted());
  };
  auto shorter = build();
  auto times = engine::run(shorter.program);
  ASSERT_TRUE(extend_steady_state(job, *plan, shorter, times).summary.has_value());
  shorter = build();
  times = engine::run(shorter.program);
  for (engine::TaskId task = 0; task < shorter.tasks.size(); ++task) {
    if (shorter.tasks[task].microbatch == plan->simulated_microbatches / 2) {
      times.end[task] += 1;
      break;
    }
  }
  EXPECT_FALSE(extend_steady_state(job, *plan, shorter, times).summary.has_value());
}

}  // namespace distsim::api
