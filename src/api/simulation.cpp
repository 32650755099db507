#include "api/simulation.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "api/cost_chain.hpp"
#include "api/pipeline_balance.hpp"
#include "core/checked_arithmetic.hpp"
#include "core/input_error.hpp"
#include "model/parameter_count.hpp"
#include "program/slow_gpus.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "steady/steady_state.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/placement_classes.hpp"
#include "strategy/rank_compute.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

// An upper bound on the tasks one layer's forward, recompute and backward of one micro-batch make
// on one rank. `distsim events` on the default job (gpt2-345m, 2M2P4D, 4 micro-batches, 12 layers a
// stage) counts 22,160 instances over its 16 ranks: 22160 / 16 / 4 / 12 = 29 a layer; with full
// recomputation, or unfused attention with selective recomputation, 31,376: 41 a layer. With the host
// thread modelled each task has its launch besides (twice as many).
constexpr std::int64_t kTasksPerLayer = 64;
// With passes aggregated, one task per forward or backward pass and its transfers.
constexpr std::int64_t kTasksPerAggregatedPass = 8;
// A gradient bucket's reduction and its parameters' all-gather, each with the NIC transfers of a
// collective that crosses nodes.
constexpr std::int64_t kTasksPerBucket = 4;

std::string size_text(std::int64_t tasks) {
  return tasks == std::numeric_limits<std::int64_t>::max() ? "more than 9.2e18" : std::to_string(tasks);
}

//! Every rank when asked, or when the layout is not uniform (groups of one stage placed
//! differently), where one rank cannot stand for its stage.
program::SimulatedRanks simulated_ranks(const strategy::JobSpec& job, const SimulationOptions& options) {
  // Jitter makes every rank unlike every other in every sample (docs/variability.md).
  if (job.variability.jitter) return program::SimulatedRanks::every_rank_alone;
  // A slow rank or host, or replicas of one stage on different GPU types: one rank cannot stand
  // for the stage, one replica per placement class and way of computing can
  // (strategy::PlacementClasses, strategy::RankCompute).
  if (job.variability.breaks_symmetry() || (job.cluster.mixed() && !strategy::GpuPlacement(job).stages_uniform())) {
    return options.merge_placement_classes ? program::SimulatedRanks::every_rank_by_class
                                           : program::SimulatedRanks::every_rank_alone;
  }
  if (!options.all_ranks && strategy::RankLayout(job.strategy, job.cluster).is_uniform()) {
    return program::SimulatedRanks::one_per_stage;
  }
  return options.merge_placement_classes ? program::SimulatedRanks::every_rank_by_class
                                         : program::SimulatedRanks::every_rank_alone;
}

std::int64_t tasks_estimate(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule, bool all_ranks,
                            bool aggregate_passes);

//! Why the job is too large to simulate as `ranks` says, or "" when it is not.
std::string size_problem(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                         const SimulationOptions& options, program::SimulatedRanks ranks) {
  const std::int64_t tasks =
      tasks_estimate(job, schedule, ranks != program::SimulatedRanks::one_per_stage, options.aggregate_passes);
  if (tasks <= options.task_limit) return {};
  return "the job is too large to simulate: about " + size_text(tasks) + " tasks (" +
         std::to_string(job.strategy.world_size()) + " GPUs, " + std::to_string(job.strategy.num_microbatches()) +
         " micro-batches, " + std::to_string(job.model.total_layers()) + " layers), more than the limit of " +
         std::to_string(options.task_limit) +
         "; raise it with --max-tasks if the machine has the memory (about 100 bytes a task)";
}

//! The ranks a job simulates, and why it is too large to ("" when it is not).
struct RankChoice {
  program::SimulatedRanks ranks = program::SimulatedRanks::one_per_stage;
  std::string size_problem;
};

//! The estimate with one rank per stage, below every other, comes first: simulated_ranks reads
//! the layout in time that grows with its groups (over a minute for a data-parallel group of a
//! billion GPUs), and a job that large is refused by that estimate alone.
RankChoice choose_ranks(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                        const SimulationOptions& options) {
  RankChoice choice;
  choice.size_problem = size_problem(job, schedule, options, choice.ranks);
  if (!choice.size_problem.empty()) return choice;
  choice.ranks = simulated_ranks(job, options);
  if (choice.ranks != program::SimulatedRanks::one_per_stage) {
    choice.size_problem = size_problem(job, schedule, options, choice.ranks);
  }
  return choice;
}

//! The ranks a job that fits simulates; throws InputError for one too large.
program::SimulatedRanks checked_ranks(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                                      const SimulationOptions& options) {
  const RankChoice choice = choose_ranks(job, schedule, options);
  if (!choice.size_problem.empty()) throw InputError(choice.size_problem);
  return choice.ranks;
}

program::JobProgram build_valid(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                                const SimulationOptions& options, program::SimulatedRanks ranks,
                                program::MicrobatchRange counted = {}) {
  program::JobProgram program = program::build_job_program(job, schedule, *cost_chain(job, options), ranks,
                                                           options.aggregate_passes, options.build_progress, counted);
  program::slow_down_gpus(job, program);
  return program;
}

program::JobProgram build(const strategy::JobSpec& given, const SimulationOptions& options) {
  const strategy::JobSpec job = job_as_simulated(given, options);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  return build_valid(job, schedule, options, checked_ranks(job, schedule, options));
}

//! Runs `shorter`, the job as `plan` shortens it, and extends it; the outcome's summary is none
//! when its timeline does not repeat long enough.
std::pair<Simulation, steady::SteadyStateOutcome> run_in_part(
    const strategy::JobSpec& job, const strategy::JobSpec& shorter, const schedule::PipelineSchedule& schedule,
    const steady::SteadyStatePlan& plan, const SimulationOptions& options, program::SimulatedRanks ranks) {
  Simulation simulation{job,          build_valid(shorter, schedule, options, ranks, plan.counted()),
                        {},           {},
                        {},           plan.simulated_microbatches,
                        std::nullopt, std::nullopt,
                        std::nullopt};
  simulation.times = engine::run(simulation.program.program, options.progress);
  steady::SteadyStateOutcome outcome = steady::extend_steady_state(job, plan, simulation.program, simulation.times);
  return {std::move(simulation), std::move(outcome)};
}

//! The job simulated over fewer micro-batches and extended, when its schedule's steady state
//! repeats; none when it does not, or when the options ask for every task. A run in which some
//! micro-batches repeated but not enough of them is tried once more about twice as long (the
//! zero-bubble schedules' deferred weight gradients take longer to settle).
std::optional<Simulation> simulate_steady_state(const strategy::JobSpec& job,
                                                const schedule::PipelineSchedule& schedule,
                                                const SimulationOptions& options, program::SimulatedRanks ranks) {
  if (!options.steady_state) return std::nullopt;
  auto plan = steady::plan_steady_state(job.strategy, schedule);
  for (int attempt = 0; attempt < 2 && plan; ++attempt) {
    const strategy::JobSpec shorter = steady::shortened_job(job, *plan);
    std::vector<std::string> problems;
    schedule.check(shorter, problems);
    if (!problems.empty()) return std::nullopt;
    auto [simulation, outcome] = run_in_part(job, shorter, schedule, *plan, options, ranks);
    if (outcome.summary) {
      simulation.summary = std::move(*outcome.summary);
      simulation.repeats = outcome.repeats;
      simulation.memory = memory::estimate_memory(job, schedule);
      return std::move(simulation);
    }
    if (outcome.repeating_microbatches <= plan->period) return std::nullopt;
    plan = steady::lengthened_plan(job.strategy, schedule, *plan);
  }
  return std::nullopt;
}

//! The most transformer layers one pipeline rank holds: its even share, or under a valid custom
//! pipeline layout the largest sum over a rank's chunks.
std::int64_t busiest_rank_layers(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule) {
  const strategy::Strategy& s = job.strategy;
  const std::int64_t even = (job.model.total_layers() + s.pipeline_parallel - 1) / s.pipeline_parallel;
  if (!s.custom_pipeline_layout()) {
    return even;
  }
  std::vector<std::string> problems;
  const int chunks = schedule.chunks_per_stage(s.virtual_stages);
  const auto layout = strategy::custom_pipeline_layout(s, job.model.total_layers(), chunks, problems);
  if (layout.empty()) {
    return even;
  }
  std::int64_t busiest = 0;
  for (int stage = 0; stage < s.pipeline_parallel; ++stage) {
    std::int64_t layers = 0;
    for (int chunk = 0; chunk < chunks; ++chunk) {
      const auto index = schedule.virtual_stage_index(stage, chunk, s.pipeline_parallel, chunks);
      layers += layout.at(static_cast<size_t>(index)).num_layers;
    }
    busiest = std::max(busiest, layers);
  }
  return busiest;
}

//! The model's parameters in time independent of its layer count (a model of a billion layers is
//! refused at once): each layer as the larger of the first and the last (a dense first layer
//! before MoE ones, or the reverse), the MTP modules, the embedding and the head. Exact where the layers are
//! alike; saturates instead of overflowing.
std::int64_t parameters_estimate(const model::ModelSpec& model) {
  const std::int64_t per_layer = model.num_layers > 0
                                     ? std::max(model::layer_parameter_sums(model, 0).total(),
                                                model::layer_parameter_sums(model, model.num_layers - 1).total())
                                     : 0;
  const auto layers = checked_product({per_layer, model.num_layers});
  const auto decoder =
      checked_product({model::layer_parameter_sums(model, model.num_layers).total(), model.decoder_num_layers});
  const auto mtp = checked_product({model::mtp_module_parameter_sums(model).total(), model.mtp_layers});
  const auto extra = decoder && mtp ? checked_sum(*decoder, *mtp) : std::nullopt;
  const auto stack = layers && extra ? checked_sum(*layers, *extra) : std::nullopt;
  const auto total =
      stack ? checked_sum(*stack, model::embedding_parameters(model) + model::head_parameters(model)) : std::nullopt;
  return total.value_or(std::numeric_limits<std::int64_t>::max());
}

//! The tasks of a rank's gradient buckets (events::gradient_buckets): its stage's share of the
//! parameters in buckets of Strategy::bucket_params, one bucket more per chunk for the rounding;
//! none where nothing is reduced over data-parallel ranks, or ZeRO-3 reduces per unit instead.
std::int64_t bucket_tasks(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule) {
  const strategy::Strategy& s = job.strategy;
  if (s.gradient_group_size() == 1 || s.zero_stage() == strategy::Sharding::full) return 0;
  const std::int64_t rank_parameters =
      parameters_estimate(job.model) / s.pipeline_parallel / std::max(s.tensor_parallel, 1);
  const int chunks = schedule.chunks_per_stage(s.virtual_stages);
  const auto tasks = checked_product({rank_parameters / s.bucket_params() + chunks, kTasksPerBucket});
  return tasks.value_or(std::numeric_limits<std::int64_t>::max());
}

//! The tasks of the job's program when it simulates `ranks` devices.
std::int64_t tasks_of_ranks(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                            std::int64_t ranks, bool aggregate_passes) {
  const strategy::Strategy& s = job.strategy;
  const std::int64_t layers_per_rank = busiest_rank_layers(job, schedule);
  // Aggregated: a pass per chunk and micro-batch it runs. Per layer: each micro-batch crosses the
  // rank's layers once, whichever chunk holds them (DualPipe's chunks see half the micro-batches
  // each, but the rank holds two stages' layers). ZeRO-2's and ZeRO-3's passes keep a task per
  // gather, reduction and NIC transfer, up to one per template (PipelinePasses).
  const auto per_rank = aggregate_passes && !s.reduces_per_unit()
                            ? checked_product({schedule.microbatches_per_chunk(s.num_microbatches()),
                                               schedule.chunks_per_stage(s.virtual_stages), kTasksPerAggregatedPass})
                            : checked_product({s.num_microbatches(), layers_per_rank, kTasksPerLayer,
                                               s.host_time == strategy::HostTime::modelled ? 2 : 1});
  const auto with_buckets = per_rank ? checked_sum(*per_rank, bucket_tasks(job, schedule)) : std::nullopt;
  const auto program = with_buckets ? checked_product({ranks, *with_buckets}) : std::nullopt;
  const auto total = program ? checked_sum(*program, s.world_size()) : std::nullopt;
  return total.value_or(std::numeric_limits<std::int64_t>::max());
}

std::int64_t tasks_estimate(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule, bool all_ranks,
                            bool aggregate_passes) {
  const strategy::Strategy& s = job.strategy;
  std::int64_t ranks = s.pipeline_parallel;
  if (all_ranks) {
    const strategy::RankCompute compute(job);
    const strategy::PlacementClasses classes(strategy::RankLayout(s, job.cluster), s.unit_shard_data_parallel(), true,
                                             &compute);
    ranks = std::int64_t{s.world_size()} / s.data_parallel * classes.simulated_indices();
  }
  return tasks_of_ranks(job, schedule, ranks, aggregate_passes);
}

}  // namespace

std::string job_size_problem(const strategy::JobSpec& job, const SimulationOptions& options) {
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  // Within the limit with every rank a device of its own, the most there can be, the job is within
  // it whichever ranks stand for it, and its layout need not be read (choose_ranks).
  if (tasks_of_ranks(job, schedule, job.strategy.world_size(), options.aggregate_passes) <= options.task_limit) {
    return {};
  }
  return choose_ranks(job, schedule, options).size_problem;
}

std::int64_t estimated_tasks(const strategy::JobSpec& job, bool all_ranks, bool aggregate_passes) {
  return tasks_estimate(job, schedule::find_schedule(job.strategy.schedule), all_ranks, aggregate_passes);
}

namespace {

//! The job's schedule is found once, here, and handed to every step that needs it.
Simulation simulate_iteration(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                              const SimulationOptions& options) {
  const program::SimulatedRanks ranks = checked_ranks(job, schedule, options);
  if (auto simulation = simulate_steady_state(job, schedule, options, ranks)) return std::move(*simulation);
  Simulation simulation{job,          build_valid(job, schedule, options, ranks),
                        {},           {},
                        {},           job.strategy.num_microbatches(),
                        std::nullopt, std::nullopt,
                        std::nullopt};
  simulation.times = engine::run(simulation.program.program, options.progress);
  simulation.summary = analysis::summarize(job, simulation.program, simulation.times);
  simulation.memory = memory::estimate_memory(job, schedule);
  return simulation;
}

}  // namespace

strategy::JobSpec job_as_simulated(const strategy::JobSpec& given, const SimulationOptions& options) {
  schedule::validate_job(given);
  if (!strategy::asks_balanced_layout(given.strategy)) return given;
  strategy::JobSpec job = with_balanced_layout(given, *cost_chain(given, options));
  schedule::validate_job(job);
  return job;
}

Simulation simulate(const strategy::JobSpec& given, const SimulationOptions& options) {
  const strategy::JobSpec job = job_as_simulated(given, options);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  Simulation simulation = simulate_iteration(job, schedule, options);
  if (job.variability.jitter) {
    // Every micro-batch draws its own noise: the samples run the whole iteration, task by task,
    // which a run shortened to its steady state has to build first.
    const double noiseless_s = time_to_seconds(simulation.summary.iteration_time);
    if (simulation.repeats) {
      const program::JobProgram whole = build_valid(job, schedule, options, checked_ranks(job, schedule, options));
      simulation.jitter = sample_kernel_jitter(whole, job.variability, noiseless_s, options.threads);
    } else {
      simulation.jitter = sample_kernel_jitter(simulation.program, job.variability, noiseless_s, options.threads);
    }
  }
  if (job.run.given()) {
    simulation.goodput = goodput::estimate_goodput(job, time_to_seconds(simulation.summary.iteration_time),
                                                   simulation.summary.tokens_per_s);
  }
  return simulation;
}

program::JobProgram job_events(const strategy::JobSpec& job, const SimulationOptions& options) {
  return build(job, options);
}

}  // namespace distsim::api
