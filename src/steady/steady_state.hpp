#pragma once

#include <optional>

#include "analysis/run_summary.hpp"
#include "engine/engine.hpp"
#include "program/job_program.hpp"
#include "schedule/schedule.hpp"
#include "steady/timeline_repeats.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::steady {

//! A long pipeline simulated in part. After its warm-up a 1F1B-like schedule runs the same
//! pattern again every few micro-batches, each time later by the same amount, until its
//! cool-down. A run of fewer micro-batches whose middle repeats exactly then stands for the whole
//! iteration: the repeats it leaves out are inserted in its middle, and every later activity moves
//! by as many periods. Times are integers, so the check that the middle repeats is exact and so is
//! the result.
struct SteadyStatePlan {
  int microbatches = 0;            //!< the job's
  int simulated_microbatches = 0;  //!< the shorter run's
  int period = 0;                  //!< micro-batches after which each stage's step order repeats
  //! How many micro-batches (a chunk each) a stage's step order may run ahead of its oldest
  //! unfinished one: a repeating stretch must be longer than this, plus a period.
  int depth = 0;
  int repeats() const { return (microbatches - simulated_microbatches) / period; }
  //! The period in the middle of the shorter run whose event instances stand for each repeat's.
  program::MicrobatchRange counted() const { return {simulated_microbatches / 2, simulated_microbatches / 2 + period}; }
};

//! A plan when, on every stage, the step order of `strategy` is that of a run of fewer
//! micro-batches with whole periods inserted at one place, each a copy of the period before it
//! for later micro-batches, and when the shorter run is at most three quarters as long. None otherwise:
//! GPipe (its forwards and its backwards grow in two places), or too few micro-batches.
std::optional<SteadyStatePlan> plan_steady_state(const strategy::Strategy& strategy,
                                                 const schedule::PipelineSchedule& schedule);

//! The same plan with about twice the micro-batches simulated, for a timeline that repeats only
//! after a longer warm-up; none when that is no longer at most three quarters of the job or its
//! step orders do not repeat.
std::optional<SteadyStatePlan> lengthened_plan(const strategy::Strategy& strategy,
                                               const schedule::PipelineSchedule& schedule, const SteadyStatePlan& plan);

//! What extend_steady_state made of a shorter run: the whole job's summary when the run repeats
//! long enough, and how many consecutive micro-batches repeated (to decide whether a longer run
//! is worth trying).
struct SteadyStateOutcome {
  std::optional<analysis::RunSummary> summary;
  std::optional<TimelineRepeats> repeats;  //!< with the summary: how the whole timeline repeats the run's
  int repeating_microbatches = 0;
};

//! `job` with the plan's simulated micro-batches (a smaller global batch).
strategy::JobSpec shortened_job(const strategy::JobSpec& job, const SteadyStatePlan& plan);

//! The summary of the whole of `job` (SteadyStateOutcome::summary), and where each task of the shorter run appears in
//! the whole timeline (::repeats), from the timeline of the plan's shorter run
//! (`shorter`, built counting the instances of the plan's `counted` micro-batches; `times`), when in that timeline
//! every task of a long enough run of consecutive micro-batches is the task of the micro-batch one period earlier moved
//! by one time period; none when it is not (the caller then simulates everything). The stretch covers more
//! micro-batches than the pipeline holds, so that what follows it depends on it alone, and it holds the counted
//! micro-batches. Adds the left-out repeats' event instances to `shorter`'s event table, which then counts the whole
//! job's.
SteadyStateOutcome extend_steady_state(const strategy::JobSpec& job, const SteadyStatePlan& plan,
                                       program::JobProgram& shorter, const engine::TaskTimes& times);

}  // namespace distsim::steady
