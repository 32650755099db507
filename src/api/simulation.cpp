#include "api/simulation.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "api/pipeline_balance.hpp"
#include "api/steady_state.hpp"
#include "catalog/host_cpus.hpp"
#include "core/checked_arithmetic.hpp"
#include "core/input_error.hpp"
#include "cost/analytical_cost_model.hpp"
#include "cost/fallback_cost_model.hpp"
#include "events/gpu_type_work.hpp"
#include "events/job_events.hpp"
#include "events/layer_memo.hpp"
#include "model/parameter_count.hpp"
#include "program/slow_gpus.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/pipeline_layout.hpp"
#include "strategy/placement_classes.hpp"
#include "strategy/rank_compute.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::api {

namespace {

//! What sets a stage's compute for the lower bound, as numbers: for each chunk the micro-batches it
//! runs, whether it holds the embedding and the head, and for each of its layers the parameters and
//! attention window. Stages of one shape are priced once (the first of them), which is exact when
//! their layers compute alike and otherwise leaves the bound a lower one, never a higher.
std::vector<std::int64_t> stage_shape(const model::ModelSpec& model, const std::vector<events::ChunkPlacement>& chunks,
                                      const std::vector<SimTime>& forwards) {
  std::vector<std::int64_t> shape;
  for (size_t chunk = 0; chunk < chunks.size(); ++chunk) {
    const auto& placement = chunks[chunk];
    shape.insert(shape.end(),
                 {forwards[chunk], placement.embedding ? 1 : 0, placement.head ? 1 : 0, placement.layers.count});
    for (int layer = placement.layers.first; layer < placement.layers.first + placement.layers.count; ++layer) {
      shape.push_back(model::layer_parameters_at(model, layer));
      shape.push_back(model.attention_window(layer));
    }
  }
  return shape;
}

std::shared_ptr<const cost::FallbackCostModel> cost_chain(const strategy::JobSpec& job,
                                                          const SimulationOptions& options) {
  auto chain = std::make_shared<cost::FallbackCostModel>();
  if (options.preferred_costs) {
    chain->add(options.preferred_costs);
  }
  const auto host = job.strategy.host_time == strategy::HostTime::modelled
                        ? cost::HostCostModel::eager(catalog::host_cpu_of(job.cluster), job.strategy.moe_router_fusion)
                        : cost::HostCostModel();
  chain->add(std::make_shared<cost::AnalyticalCostModel>(job.cluster, job.strategy.attention_kernel, host));
  return chain;
}

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
std::pair<Simulation, SteadyStateOutcome> run_in_part(const strategy::JobSpec& job, const strategy::JobSpec& shorter,
                                                      const schedule::PipelineSchedule& schedule,
                                                      const SteadyStatePlan& plan, const SimulationOptions& options,
                                                      program::SimulatedRanks ranks) {
  Simulation simulation{job,          build_valid(shorter, schedule, options, ranks, plan.counted()),
                        {},           {},
                        {},           plan.simulated_microbatches,
                        std::nullopt, std::nullopt,
                        std::nullopt};
  simulation.times = engine::run(simulation.program.program, options.progress);
  SteadyStateOutcome outcome = extend_steady_state(job, plan, simulation.program, simulation.times);
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
  auto plan = plan_steady_state(job.strategy, schedule);
  for (int attempt = 0; attempt < 2 && plan; ++attempt) {
    const strategy::JobSpec shorter = shortened_job(job, *plan);
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
    plan = lengthened_plan(job.strategy, schedule, *plan);
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
  const std::int64_t per_layer =
      model.num_layers > 0
          ? std::max(model::layer_parameters_at(model, 0), model::layer_parameters_at(model, model.num_layers - 1))
          : 0;
  const auto layers = checked_product({per_layer, model.num_layers});
  const auto decoder = checked_product({model::layer_parameters(model, true), model.decoder_num_layers});
  const auto mtp = checked_product({model::mtp_module_parameters(model), model.mtp_layers});
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

}  // namespace

std::string job_size_problem(const strategy::JobSpec& job, const SimulationOptions& options) {
  return choose_ranks(job, schedule::find_schedule(job.strategy.schedule), options).size_problem;
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

namespace {

//! What the lower bound knows of one shape of stage: the busy time of the streams it bounds by,
//! and one micro-batch's compute on each chunk, in the steps that hand activations on (forward) and
//! gradients back (the backward, or its input-gradient part when the schedule splits it).
struct StageBusy {
  static constexpr std::size_t kNics = 4;
  std::array<SimTime, kNics + 1> busy{};  //!< compute, three data-parallel streams, the NICs
  std::vector<SimTime> forward;           //!< per chunk, one micro-batch
  std::vector<SimTime> backward;          //!< per chunk, one micro-batch
  SimTime handing_on = 0;                 //!< every micro-batch's forward and backward steps
  //! The data-parallel work that waits for all of the stage's compute but the optimizer step, or
  //! for the step, one task at a time on the data-parallel stream (iteration_end.cpp).
  SimTime data_parallel_tail = 0;
};

// The streams whose every task comes from a pass's steps, once per micro-batch: compute, and
// ZeRO-3's parameter gathers and ZeRO-2's and -3's gradient reductions; then the rank's share of
// its NICs.
constexpr std::array<events::StreamKind, StageBusy::kNics> kBoundStreams{
    events::StreamKind::compute, events::StreamKind::dp_comm, events::StreamKind::dp_reduce,
    events::StreamKind::dp_replica};

class StageBusyPricer {
 public:
  StageBusyPricer(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                  const cost::FallbackCostModel& costs)
      : job_(job), schedule_(schedule), costs_(costs), layout_(job.strategy, job.cluster) {}

  //! The stage's busy times on GPU type `gpu_type`.
  StageBusy price(int stage, const std::vector<events::ChunkPlacement>& placements, const std::vector<SimTime>& passes,
                  int gpu_type) {
    events::EventTable table;
    events::LayerMemo layers(table);
    const strategy::RankCoord coord{{strategy::ParallelDim::pp, stage}};
    events::RankWork work = events::build_rank_work(job_, layout_, coord, placements, table, &layers);
    events::run_on_gpu_type(work, table, gpu_type);
    // Each unique event priced once: a stage repeats its layers' events in every pass.
    durations_.clear();
    durations_.reserve(table.size());
    for (events::EventId id = 0; id < table.size(); ++id) durations_.push_back(costs_.cost(table.at(id)).duration);
    StageBusy stage_busy;
    stage_busy.busy[0] = durations_[work.optimizer_step];
    for (size_t chunk = 0; chunk < work.chunks.size(); ++chunk) {
      add_steps(work.chunks[chunk].forward, table, passes[chunk], stage_busy.busy);
      add_steps(work.chunks[chunk].backward, table, passes[chunk], stage_busy.busy);
      SimTime forward = 0;
      SimTime backward = 0;
      for (const auto& kind : schedule_.step_kinds()) {
        if (kind->sends == nullptr) continue;  // the weight gradients, which hand nothing on
        SimTime& sum = kind->sends->direction > 0 ? forward : backward;
        sum = saturating_multiply_add(sum, 1, compute_of(work.chunks[chunk].*(kind->templates)));
      }
      stage_busy.forward.push_back(forward);
      stage_busy.backward.push_back(backward);
      stage_busy.handing_on = saturating_multiply_add(stage_busy.handing_on, passes[chunk], forward + backward);
    }
    stage_busy.data_parallel_tail = data_parallel_tail(work);
    return stage_busy;
  }

 private:
  //! The reductions that start after the last computation (the gradient buckets unless they overlap
  //! the backward passes, the expert gradients', the tied embedding's) and end before the optimizer
  //! step, and the parameter gathers that start after it. The engine rounds each end to the nearest
  //! nanosecond: one less per task.
  SimTime data_parallel_tail(const events::RankWork& work) const {
    SimTime tail = 0;
    const auto add = [&](const std::optional<events::EventId>& event) {
      if (event) tail = saturating_multiply_add(tail, 1, std::max<SimTime>(durations_[*event] - 1, 0));
    };
    for (const auto& chunk : work.chunks) {
      for (const auto& bucket : chunk.gradient_buckets) {
        if (!job_.strategy.overlap_grad_reduce) add(bucket.reduction);
        add(bucket.parameter_gather);
      }
    }
    add(work.expert_gradient_reduction);
    add(work.embedding_reduction);
    add(work.expert_parameter_gather);
    return tail;
  }

  SimTime compute_of(const std::vector<events::TaskTemplate>& steps) const {
    SimTime sum = 0;
    for (const auto& step : steps) {
      if (step.stream == events::StreamKind::compute) sum = saturating_multiply_add(sum, 1, durations_[step.event]);
    }
    return sum;
  }

  // Under ZeRO-2 and -3 every collective through the NICs stays a task of its own, which shares
  // them (PipelinePasses): whatever shares a link progresses at most at its full speed in all, so
  // the link is busy at least as long as their durations add up to. The engine rounds each end
  // to the nearest nanosecond: one less per task.
  void add_steps(const std::vector<events::TaskTemplate>& steps, const events::EventTable& table, SimTime passes,
                 std::array<SimTime, StageBusy::kNics + 1>& busy) const {
    const bool nics_bound = job_.strategy.reduces_per_unit();
    for (const auto& step : steps) {
      const auto stream = std::find(kBoundStreams.begin(), kBoundStreams.end(), step.stream);
      if (stream == kBoundStreams.end() && !nics_bound) continue;
      const events::Event& event = table.at(step.event);
      const SimTime step_duration = durations_[step.event];
      if (stream != kBoundStreams.end()) {
        SimTime& stream_busy = busy[static_cast<size_t>(stream - kBoundStreams.begin())];
        stream_busy = saturating_multiply_add(stream_busy, passes, step_duration);
      }
      if (nics_bound && event.crosses_nics() && event.collective != events::Collective::send_recv) {
        busy[StageBusy::kNics] = saturating_multiply_add(busy[StageBusy::kNics], passes, step_duration - 1);
      }
    }
  }

  const strategy::JobSpec& job_;
  const schedule::PipelineSchedule& schedule_;
  const cost::FallbackCostModel& costs_;
  strategy::RankLayout layout_;
  std::vector<SimTime> durations_;  //!< by event id, of the stage being priced
};

//! Each busy time the smaller of two pricings of one stage.
StageBusy fastest(const StageBusy& a, const StageBusy& b) {
  StageBusy least = a;
  for (size_t i = 0; i < least.busy.size(); ++i) least.busy[i] = std::min(a.busy[i], b.busy[i]);
  for (size_t chunk = 0; chunk < least.forward.size(); ++chunk) {
    least.forward[chunk] = std::min(a.forward[chunk], b.forward[chunk]);
    least.backward[chunk] = std::min(a.backward[chunk], b.backward[chunk]);
  }
  least.handing_on = std::min(a.handing_on, b.handing_on);
  least.data_parallel_tail = std::min(a.data_parallel_tail, b.data_parallel_tail);
  return least;
}

//! Every micro-batch crosses the chunks in the order of their virtual stages (a schedule that runs
//! each chunk every micro-batch; DualPipe's two directions do not). So a stage computes nothing
//! before one micro-batch has crossed the chunks of other stages ahead of its first chunk, then
//! computes all it has, and the gradient of its last backward crosses those chunks back after.
SimTime pipeline_bound(const std::vector<const StageBusy*>& stages, const schedule::PipelineSchedule& schedule,
                       const strategy::Strategy& s) {
  const int chunks = schedule.chunks_per_stage(s.virtual_stages);
  if (schedule.microbatches_per_chunk(s.num_microbatches()) != s.num_microbatches()) return 0;
  const int p = s.pipeline_parallel;
  std::vector<std::pair<int, int>> order;  // (stage, chunk) by virtual stage
  order.resize(static_cast<size_t>(p) * chunks);
  for (int stage = 0; stage < p; ++stage) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      order.at(static_cast<size_t>(schedule.virtual_stage_index(stage, chunk, p, chunks))) = {stage, chunk};
    }
  }
  SimTime bound = 0;
  for (int stage = 0; stage < p; ++stage) {
    SimTime ahead = 0;
    SimTime behind = 0;
    for (const auto& [other, chunk] : order) {
      if (other == stage) break;  // its first chunk
      ahead =
          saturating_multiply_add(ahead, 1, stages[static_cast<size_t>(other)]->forward[static_cast<size_t>(chunk)]);
      behind =
          saturating_multiply_add(behind, 1, stages[static_cast<size_t>(other)]->backward[static_cast<size_t>(chunk)]);
    }
    const StageBusy& own = *stages[static_cast<size_t>(stage)];
    bound = std::max(
        {bound, saturating_multiply_add(saturating_multiply_add(ahead, 1, own.busy[0]), 1, own.data_parallel_tail),
         saturating_multiply_add(saturating_multiply_add(ahead, 1, own.handing_on), 1, behind)});
  }
  return bound;
}

}  // namespace

LowerBound iteration_lower_bound_terms(const strategy::JobSpec& given, const SimulationOptions& options) {
  const strategy::JobSpec job = job_as_simulated(given, options);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  const auto costs = cost_chain(job, options);
  const strategy::Strategy& s = job.strategy;
  const int chunks = schedule.chunks_per_stage(s.virtual_stages);
  const auto stage_placements = schedule.all_stage_chunk_placements(job.model, s);
  // A chunk runs the micro-batches the schedule gives it: all of them, or half with DualPipe.
  const std::vector<SimTime> passes(static_cast<size_t>(chunks), schedule.microbatches_per_chunk(s.num_microbatches()));
  StageBusyPricer pricer(job, schedule, *costs);
  std::map<std::vector<std::int64_t>, StageBusy> priced;
  std::vector<const StageBusy*> stages;
  LowerBound bound;
  const strategy::GpuPlacement gpus(job);
  for (int stage = 0; stage < s.pipeline_parallel; ++stage) {
    const auto& placements = stage_placements[static_cast<size_t>(stage)];
    const std::vector<int> types = gpus.types_of_stage(stage);
    std::vector<std::int64_t> shape = stage_shape(job.model, placements, passes);
    shape.insert(shape.end(), types.begin(), types.end());
    auto [at, fresh] = priced.try_emplace(std::move(shape));
    if (fresh) {
      // A stage on several GPU types is bounded by what it would take on the fastest of them.
      at->second = pricer.price(stage, placements, passes, types.front());
      for (size_t other = 1; other < types.size(); ++other) {
        at->second = fastest(at->second, pricer.price(stage, placements, passes, types[other]));
      }
      bound.busiest_stream =
          std::max(bound.busiest_stream, *std::max_element(at->second.busy.begin(), at->second.busy.end()));
      bound.compute_then_data_parallel =
          std::max(bound.compute_then_data_parallel,
                   saturating_multiply_add(at->second.busy[0], 1, at->second.data_parallel_tail));
    }
    stages.push_back(&at->second);
  }
  bound.pipeline = pipeline_bound(stages, schedule, s);
  return bound;
}

SimTime iteration_lower_bound(const strategy::JobSpec& job, const SimulationOptions& options) {
  const LowerBound bound = iteration_lower_bound_terms(job, options);
  return std::max({bound.busiest_stream, bound.pipeline, bound.compute_then_data_parallel});
}

program::JobProgram job_events(const strategy::JobSpec& job, const SimulationOptions& options) {
  return build(job, options);
}

}  // namespace distsim::api
