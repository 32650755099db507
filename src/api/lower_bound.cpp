// api::iteration_lower_bound (simulation.hpp): a time no schedule can beat, priced stage by stage
// without building the task program.
#include <algorithm>
#include <array>
#include <map>
#include <vector>

#include "api/cost_chain.hpp"
#include "api/simulation.hpp"
#include "core/checked_arithmetic.hpp"
#include "events/gpu_type_work.hpp"
#include "events/job_events.hpp"
#include "events/layer_memo.hpp"
#include "model/parameter_count.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"
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

}  // namespace distsim::api
