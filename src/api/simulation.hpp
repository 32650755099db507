#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "analysis/run_summary.hpp"
#include "api/kernel_jitter.hpp"
#include "cost/cost_model.hpp"
#include "engine/engine.hpp"
#include "goodput/goodput_estimate.hpp"
#include "memory/memory_estimate.hpp"
#include "program/job_program.hpp"
#include "steady/timeline_repeats.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::api {

//! How many tasks simulate() and job_events() build at most unless told otherwise, by estimate
//! (estimated_tasks): about 2 GB of program and timeline. `--max-tasks` raises it.
inline constexpr std::int64_t kDefaultTaskLimit = 20'000'000;

struct SimulationOptions {
  //! Simulate every rank explicitly instead of one rank per stage. Forced on when the cluster
  //! layout is not uniform (groups of one stage placed differently), where symmetry fails.
  bool all_ranks = false;
  //! In all-ranks mode, simulate one data-parallel replica per placement class and give every
  //! other rank its class's timeline (strategy::PlacementClasses); the results are those of
  //! simulating every rank on its own, which false does (slowly, to check them).
  bool merge_placement_classes = true;
  //! Prices events before the analytical model does (e.g. a profile database); may be null.
  std::shared_ptr<const cost::CostModel> preferred_costs;
  //! One task per forward/backward pass instead of one per operator (symmetric mode only): the
  //! search's fast screening. See program::build_job_program.
  bool aggregate_passes = false;
  //! A job whose estimated_tasks exceed this is refused before anything is built.
  std::int64_t task_limit = kDefaultTaskLimit;
  //! Whether a long pipeline whose steady state repeats is simulated in part, its summary extended
  //! and its timeline given by the repeats (steady_state.hpp): exactly what simulating every task
  //! gives, which false does (to check it, or to measure the engine).
  bool steady_state = true;
  //! Threads for the kernel-jitter samples (docs/variability.md), which run independently; the
  //! samples' times do not depend on it.
  int threads = 1;
  //! Told how many of the program's tasks have run (engine::run's progress); for a progress
  //! display only, it does not change the result.
  std::function<void(std::size_t, std::size_t)> progress;
  //! Told how many groups of devices have their passes built (program::build_job_program), for
  //! a progress display while a large --all-ranks program is built; it changes no result.
  std::function<void(std::size_t, std::size_t)> build_progress;
};

//! An upper estimate of the tasks of the job's program, computed from its sizes alone (so that a
//! job of 10^9 layers or a million micro-batches costs nothing to refuse): ranks simulated (in
//! all-ranks mode, those of one replica per placement class) x
//! micro-batches x layers per rank x tasks per layer pass, plus one entry per GPU for the rank
//! layout. Saturates at the largest int64 instead of overflowing.
std::int64_t estimated_tasks(const strategy::JobSpec& job, bool all_ranks, bool aggregate_passes);

//! Why simulate would refuse the valid `job` as too large (its estimated_tasks over
//! options.task_limit), or "" when it would not.
std::string job_size_problem(const strategy::JobSpec& job, const SimulationOptions& options);

//! A simulated job: its program (events, tasks, devices), the timeline, the metrics, and the
//! memory each device needs (estimated whether or not it fits: the run goes ahead either way).
struct Simulation {
  strategy::JobSpec job;
  program::JobProgram program;
  engine::TaskTimes times;
  analysis::RunSummary summary;
  memory::MemoryEstimate memory;
  //! The micro-batches `program` and `times` hold: the job's, or fewer when a steady state stood
  //! for the rest (SimulationOptions::steady_state); the summary is the whole job's either way.
  int simulated_microbatches = 0;
  //! When `program` and `times` are a shorter run, how the whole timeline repeats its middle.
  std::optional<steady::TimelineRepeats> repeats;
  //! The run's goodput (failures, checkpoints, time to train) when the job gives any of its
  //! settings (strategy::TrainingRun::given).
  std::optional<goodput::GoodputEstimate> goodput;
  //! The step-time distribution under the job's kernel jitter, when it has one.
  std::optional<StepTimeDistribution> jitter;
};

//! The job validated, as it is simulated: with a balanced pipeline layout (strategy::kBalancedLayout)
//! replaced by the layout string it stands for (api/pipeline_balance.hpp), priced by the options'
//! costs. Throws InputError for an invalid job.
strategy::JobSpec job_as_simulated(const strategy::JobSpec& job, const SimulationOptions& options = {});

//! Validates the job, builds its events and program, prices the events, runs the engine and
//! summarizes, then estimates the run's goodput when the job asks. Throws InputError for an
//! invalid job.
Simulation simulate(const strategy::JobSpec& job, const SimulationOptions& options = {});

//! The job's unique events with their costs, without running the engine.
program::JobProgram job_events(const strategy::JobSpec& job, const SimulationOptions& options = {});

}  // namespace distsim::api
