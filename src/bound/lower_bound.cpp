#include "bound/lower_bound.hpp"

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
#include "model/layer_plan.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::bound {

using api::SimulationOptions;

namespace {

//! What sets a stage's compute for the lower bound, as numbers: for each chunk the micro-batches it
//! runs, whether it holds the embedding and the head, whether it receives from and sends to another
//! stage (a chunk that receives a sequence-parallel scatter gathers it first), and for each of its
//! layers its blocks, attention window and position rotation. Stages of one shape are priced once (the first of
//! them), which is exact when their layers compute alike and otherwise leaves the bound a lower
//! one, never a higher.
std::vector<std::int64_t> stage_shape(const model::ModelSpec& model, const std::vector<events::ChunkPlacement>& chunks,
                                      const std::vector<SimTime>& forwards) {
  std::vector<std::int64_t> shape;
  for (size_t chunk = 0; chunk < chunks.size(); ++chunk) {
    const auto& placement = chunks[chunk];
    shape.insert(shape.end(), {forwards[chunk], placement.embedding ? 1 : 0, placement.head ? 1 : 0,
                               placement.receives_from ? 1 : 0, placement.sends_to ? 1 : 0, placement.layers.count});
    for (int layer = placement.layers.first; layer < placement.layers.first + placement.layers.count; ++layer) {
      const model::LayerPlan plan = model::layer_plan(model, layer);
      shape.push_back(plan.count);
      for (const model::LayerBlock block : plan) {
        shape.push_back(static_cast<std::int64_t>(block));
      }
      shape.push_back(model.attention_window(layer));
      shape.push_back(model.rotates_positions(layer) ? 1 : 0);
    }
  }
  return shape;
}

//! One micro-batch's step (a StepKind) on one chunk: its compute, and at least how long the compute
//! stream is held from the start of its first computation to the end of its last, with the
//! communication that its computations wait for in between (step_time).
struct StepTime {
  SimTime compute = 0;
  SimTime span = 0;
};

//! What the lower bound knows of one shape of stage: the busy time of the streams it bounds by,
//! and one micro-batch's steps on each chunk.
struct StageBusy {
  static constexpr std::size_t kNics = 4;
  std::array<SimTime, kNics + 1> busy{};     //!< compute, three data-parallel streams, the NICs
  SimTime optimizer = 0;                     //!< the optimizer step, on the compute stream
  std::vector<std::vector<StepTime>> steps;  //!< per chunk, per step kind of the schedule
  std::vector<SimTime> forward;              //!< per chunk, the span of the steps that hand activations on
  std::vector<SimTime> backward;             //!< per chunk, the span of those that hand gradients back
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
      : job_(job),
        costs_(costs),
        layout_(job.strategy, job.cluster),
        kinds_(schedule.step_kinds()),
        split_(schedule::defers_weight_gradients(schedule) ? events::BackwardSplit::input_and_weight
                                                           : events::BackwardSplit::none) {}

  //! The stage's busy times on GPU type `gpu_type`.
  StageBusy price(int stage, const std::vector<events::ChunkPlacement>& placements, const std::vector<SimTime>& passes,
                  int gpu_type) {
    events::EventTable table;
    events::LayerMemo layers(table);
    const strategy::RankCoord coord{{strategy::ParallelDim::pp, stage}};
    events::RankWork work = events::build_rank_work(job_, layout_, coord, placements, table, &layers, split_);
    events::run_on_gpu_type(work, table, gpu_type);
    // Each unique event priced once: a stage repeats its layers' events in every pass.
    durations_.clear();
    durations_.reserve(table.size());
    for (events::EventId id = 0; id < table.size(); ++id) durations_.push_back(costs_.cost(table.at(id)).duration);
    table_ = &table;
    StageBusy stage_busy;
    stage_busy.optimizer = durations_[work.optimizer_step];
    stage_busy.busy[0] = stage_busy.optimizer;
    for (size_t chunk = 0; chunk < work.chunks.size(); ++chunk) {
      add_steps(work.chunks[chunk].forward, table, passes[chunk], stage_busy.busy);
      add_steps(work.chunks[chunk].backward, table, passes[chunk], stage_busy.busy);
      auto& steps = stage_busy.steps.emplace_back();
      SimTime forward = 0;
      SimTime backward = 0;
      for (const auto& kind : kinds_) {
        steps.push_back(step_time(work.chunks[chunk].*(kind->templates)));
        if (kind->sends == nullptr) continue;  // the weight gradients, which hand nothing on
        SimTime& sum = kind->sends->direction > 0 ? forward : backward;
        sum = saturating_multiply_add(sum, 1, steps.back().span);
      }
      stage_busy.forward.push_back(forward);
      stage_busy.backward.push_back(backward);
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

  //! A step's compute, and the least time from the start of its first computation to the end of
  //! its last: its computations run one after another on the compute stream, each after the
  //! communication it waits for, which runs after the computation before it and after what its
  //! stream ran before. What comes before the first computation may have run before the step
  //! started, and so counts for nothing. Nothing else runs on the compute stream in between unless the schedule
  //! overlaps the step with another (stage_occupancy).
  StepTime step_time(const std::vector<events::TaskTemplate>& steps) {
    constexpr SimTime kFree = -1;  // not after the first computation
    ends_.assign(steps.size(), kFree);
    stream_ends_.fill(kFree);
    const auto end_of = [&](int index) { return index >= 0 ? ends_[static_cast<size_t>(index)] : kFree; };
    StepTime time;
    SimTime compute_end = kFree;
    for (size_t index = 0; index < steps.size(); ++index) {
      const auto& step = steps[index];
      const SimTime duration = durations_[step.event];
      const bool compute = step.stream == events::StreamKind::compute;
      if (compute) time.compute = saturating_multiply_add(time.compute, 1, duration);
      if (!compute && compute_end == kFree) continue;
      SimTime& stream_end = stream_ends_[static_cast<size_t>(step.stream)];
      const SimTime start = std::max({std::max<SimTime>(compute_end, 0), end_of(step.waits_for),
                                      end_of(step.waits_for_parameters), compute ? SimTime{0} : stream_end});
      // A collective through the NICs shares them, and the engine may round its end down by a
      // nanosecond; any other task lasts exactly its duration.
      const bool shares_links = !compute && table_->at(step.event).crosses_nics();
      ends_[index] = saturating_multiply_add(start, 1, shares_links ? std::max<SimTime>(duration - 1, 0) : duration);
      if (compute) {
        compute_end = ends_[index];
      } else {
        stream_end = ends_[index];
      }
    }
    time.span = std::max<SimTime>(compute_end, 0);
    return time;
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
  const cost::FallbackCostModel& costs_;
  strategy::RankLayout layout_;
  std::vector<schedule::StepKind> kinds_;
  events::BackwardSplit split_;
  const events::EventTable* table_ = nullptr;  //!< of the stage being priced
  std::vector<SimTime> durations_;             //!< by event id, of the stage being priced
  std::vector<SimTime> ends_;                  //!< step_time's, by template
  std::array<SimTime, events::kStreamKinds> stream_ends_{};
};

//! Each busy time the smaller of two pricings of one stage.
StageBusy fastest(const StageBusy& a, const StageBusy& b) {
  StageBusy least = a;
  for (size_t i = 0; i < least.busy.size(); ++i) least.busy[i] = std::min(a.busy[i], b.busy[i]);
  least.optimizer = std::min(a.optimizer, b.optimizer);
  for (size_t chunk = 0; chunk < least.forward.size(); ++chunk) {
    least.forward[chunk] = std::min(a.forward[chunk], b.forward[chunk]);
    least.backward[chunk] = std::min(a.backward[chunk], b.backward[chunk]);
    for (size_t kind = 0; kind < least.steps[chunk].size(); ++kind) {
      StepTime& step = least.steps[chunk][kind];
      step.compute = std::min(step.compute, b.steps[chunk][kind].compute);
      step.span = std::min(step.span, b.steps[chunk][kind].span);
    }
  }
  least.data_parallel_tail = std::min(a.data_parallel_tail, b.data_parallel_tail);
  return least;
}

//! How long a stage's compute stream is held at the least: by all its steps, and by those that
//! hand activations on or gradients back.
struct StageOccupancy {
  SimTime all = 0;
  SimTime handing_on = 0;
};

//! The compute stream runs a stage's steps one unit after another: a step alone holds it for its
//! span; steps the schedule overlaps (DualPipe's F&B, combined 1F1B) hold it together for their
//! compute added up, or the longest span of them if that is more.
StageOccupancy stage_occupancy(const StageBusy& stage, int stage_index, const schedule::PipelineSchedule& schedule,
                               const strategy::Strategy& s, const std::vector<SimTime>& passes) {
  const std::vector<schedule::StepKind> kinds = schedule.step_kinds();
  StageOccupancy occupancy;
  if (!schedule.overlaps_stage_steps(s)) {
    for (size_t chunk = 0; chunk < stage.steps.size(); ++chunk) {
      for (size_t kind = 0; kind < kinds.size(); ++kind) {
        const SimTime span = stage.steps[chunk][kind].span;
        occupancy.all = saturating_multiply_add(occupancy.all, passes[chunk], span);
        if (kinds[kind]->sends != nullptr) {
          occupancy.handing_on = saturating_multiply_add(occupancy.handing_on, passes[chunk], span);
        }
      }
    }
    return occupancy;
  }
  struct Unit {
    SimTime compute = 0;
    SimTime longest = 0;
    SimTime held() const { return std::max(compute, longest); }
  };
  Unit all;
  Unit handing_on;
  const auto close_unit = [&] {
    occupancy.all = saturating_multiply_add(occupancy.all, 1, all.held());
    occupancy.handing_on = saturating_multiply_add(occupancy.handing_on, 1, handing_on.held());
    all = {};
    handing_on = {};
  };
  for (const schedule::Step& step : schedule.stage_steps(s, stage_index)) {
    if (step.overlaps_previous == schedule::Overlap::none) close_unit();
    const auto kind = static_cast<size_t>(std::find(kinds.begin(), kinds.end(), step.kind) - kinds.begin());
    const StepTime& time = stage.steps.at(static_cast<size_t>(step.chunk)).at(kind);
    for (Unit* unit : {&all, &handing_on}) {
      if (unit == &handing_on && step.kind->sends == nullptr) continue;
      unit->compute = saturating_multiply_add(unit->compute, 1, time.compute);
      unit->longest = std::max(unit->longest, time.span);
    }
  }
  close_unit();
  return occupancy;
}

//! Every micro-batch crosses the chunks in the order of their virtual stages (a schedule that runs
//! each chunk every micro-batch; DualPipe's two directions do not). So a stage computes nothing
//! before one micro-batch has crossed the chunks of other stages ahead of its first chunk, then
//! holds its compute stream as long as its steps need, and the gradient of its last backward
//! crosses those chunks back after.
SimTime pipeline_bound(const std::vector<const StageBusy*>& stages, const std::vector<StageOccupancy>& occupancy,
                       const schedule::PipelineSchedule& schedule, const strategy::Strategy& s) {
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
    const StageOccupancy& held = occupancy[static_cast<size_t>(stage)];
    const SimTime computing = saturating_multiply_add(held.all, 1, own.optimizer);
    bound = std::max({bound,
                      saturating_multiply_add(saturating_multiply_add(ahead, 1, computing), 1, own.data_parallel_tail),
                      saturating_multiply_add(saturating_multiply_add(ahead, 1, held.handing_on), 1, behind)});
  }
  return bound;
}

}  // namespace

LowerBound iteration_lower_bound_terms(const strategy::JobSpec& given, const SimulationOptions& options,
                                       BoundStages which) {
  const strategy::JobSpec job = api::job_as_simulated(given, options);
  const auto& schedule = schedule::find_schedule(job.strategy.schedule);
  const auto costs = api::cost_chain(job, options);
  const strategy::Strategy& s = job.strategy;
  const int chunks = schedule.chunks_per_stage(s.virtual_stages);
  const auto stage_placements = schedule.all_stage_chunk_placements(job.model, s);
  // A chunk runs the micro-batches the schedule gives it: all of them, or half with DualPipe.
  const std::vector<SimTime> passes(static_cast<size_t>(chunks), schedule.microbatches_per_chunk(s.num_microbatches()));
  StageBusyPricer pricer(job, schedule, *costs);
  std::map<std::vector<std::int64_t>, StageBusy> priced;
  std::vector<const StageBusy*> stages;
  std::vector<StageOccupancy> occupancy;
  LowerBound bound;
  const strategy::GpuPlacement gpus(job);
  for (int stage = 0; stage < s.pipeline_parallel; ++stage) {
    const auto& placements = stage_placements[static_cast<size_t>(stage)];
    if (which == BoundStages::head &&
        std::none_of(placements.begin(), placements.end(), [](const auto& chunk) { return chunk.head; })) {
      continue;
    }
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
    }
    const StageBusy& own = at->second;
    stages.push_back(&own);
    occupancy.push_back(stage_occupancy(own, stage, schedule, s, passes));
    const SimTime computing = saturating_multiply_add(occupancy.back().all, 1, own.optimizer);
    bound.compute_then_data_parallel =
        std::max(bound.compute_then_data_parallel, saturating_multiply_add(computing, 1, own.data_parallel_tail));
  }
  if (which == BoundStages::all) bound.pipeline = pipeline_bound(stages, occupancy, schedule, s);
  return bound;
}

SimTime iteration_lower_bound(const strategy::JobSpec& job, const SimulationOptions& options, BoundStages stages) {
  const LowerBound bound = iteration_lower_bound_terms(job, options, stages);
  return std::max({bound.busiest_stream, bound.pipeline, bound.compute_then_data_parallel});
}

}  // namespace distsim::bound
