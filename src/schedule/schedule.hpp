#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/job_events.hpp"
#include "schedule/step_kind.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::schedule {

//! A model chunk of the pipeline: chunk `chunk` (index on its stage) of stage `stage`.
struct ChunkSlot {
  int stage = 0;
  int chunk = 0;
  bool operator==(const ChunkSlot&) const = default;
};

//! Where a chunk's activations go: the chunk that runs the next layers, and which way the tensor
//! travels. `downstream` is a transfer from stage s to stage s + 1 (mod p), on the pipeline streams
//! towards the next stage; otherwise it travels to stage s − 1 (mod p). When the peer is on the
//! sender's own stage the hand-off is local: no transfer, the next chunk only waits for it.
struct ChunkHop {
  ChunkSlot peer;  //!< the chunk at the other end of the hop
  bool downstream = true;
};

//! Every chunk slot's hops, indexed by stage · chunks per stage + chunk: where its activations go
//! (PipelineSchedule::next_chunk) and where they come from (previous_chunk).
struct ChunkHops {
  std::vector<std::optional<ChunkHop>> next;
  std::vector<std::optional<ChunkHop>> previous;
};
//! Where `slot` sits in ChunkHops' lists for `num_chunks` chunks per stage.
inline std::size_t hop_index(const ChunkSlot& slot, int num_chunks) {
  return static_cast<std::size_t>(slot.stage) * static_cast<std::size_t>(num_chunks) +
         static_cast<std::size_t>(slot.chunk);
}

//! A pipeline schedule as a whole: how it orders each stage's steps, which jobs it can run, how
//! many model chunks a stage holds and which layers each holds, and how many micro-batches'
//! activations a stage keeps at its peak. Every stage must run the steps of one kind on one
//! chunk in micro-batch order, so that transfers between stages pair up in order. Nothing outside
//! src/schedule asks a schedule for its name to decide anything; a new schedule is one class
//! deriving from this one plus its registration in pipeline_schedule.cpp.
class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  virtual std::string_view name() const = 0;
  //! One line for `distsim list schedules`, with the citation.
  virtual std::string_view description() const = 0;

  //! The kinds of step this schedule's steps use; forward and backward unless it says otherwise.
  virtual std::vector<StepKind> step_kinds() const { return {StepKind::forward, StepKind::backward}; }
  //! The steps of `stage` (0-based) in execution order, when each stage holds `num_chunks`
  //! model chunks (chunks_per_stage).
  virtual std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const = 0;
  //! Every stage's steps, in stage order. By default one call of steps() per stage; a schedule
  //! that orders all stages together (ZBV's greedy over the whole pipeline) does it once.
  virtual std::vector<std::vector<Step>> all_steps(int num_stages, int num_microbatches, int num_chunks) const;
  //! The steps of `stage` with one model chunk per stage.
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches) const {
    return steps(stage, num_stages, num_microbatches, 1);
  }

  //! Model chunks per stage it runs when the job asks for `requested` (Strategy::virtual_stages):
  //! one, unless the schedule interleaves chunks.
  virtual int chunks_per_stage(int /*requested*/) const { return 1; }
  //! How many of the iteration's micro-batches each chunk of a stage runs: all of them, unless
  //! the schedule sends some through other chunks (DualPipe sends half each way).
  virtual int microbatches_per_chunk(int num_microbatches) const { return num_microbatches; }
  //! The layers that chunk `chunk` of `stage` holds when each of the `num_stages` stages holds
  //! `num_chunks` chunks; with one chunk, the stage's layers (events::stage_layers).
  virtual events::LayerRange chunk_layers(int total_layers, int num_stages, int num_chunks, int stage, int chunk) const;
  //! Where chunk `chunk` of `stage` sits along the pipeline: the index of its virtual stage in
  //! the pipeline's order, which a custom pipeline layout (strategy::custom_pipeline_layout) lists
  //! in. By default Megatron-Core's: chunk c of stage s is virtual stage c·p + s.
  virtual int virtual_stage_index(int stage, int chunk, int num_stages, int num_chunks) const;
  //! The layers of every chunk that `stage` holds in `job`, by chunk index on the stage.
  std::vector<events::LayerRange> stage_chunk_layers(const strategy::JobSpec& job, int stage) const;
  //! Where the activations of `chunk` of `stage` go next; none for a chunk that ends the pipeline
  //! (the one that holds the last layer). By default the chunk c of stage s feeds chunk c of
  //! stage s + 1, and the last stage's chunk c feeds chunk c + 1 of stage 0, both downstream.
  virtual std::optional<ChunkHop> next_chunk(const ChunkSlot& from, int num_stages, int num_chunks) const;
  //! The chunk whose activations `to` receives (the inverse of next_chunk), with the hop between
  //! them; none for a chunk that starts the pipeline.
  std::optional<ChunkHop> previous_chunk(const ChunkSlot& to, int num_stages, int num_chunks) const;
  //! next_chunk and previous_chunk of every slot, found in one pass over the slots (previous_chunk
  //! alone searches them all).
  ChunkHops all_chunk_hops(int num_stages, int num_chunks) const;
  //! Every chunk of `stage` in `job` with its layers, whether it holds the embedding and the head,
  //! and the stages it receives from and sends to. The layers are the job's custom pipeline layout
  //! when it asks for one (validation has checked it), and chunk_layers' even split otherwise.
  std::vector<events::ChunkPlacement> stage_chunk_placements(const strategy::JobSpec& job, int stage) const;
  std::vector<events::ChunkPlacement> stage_chunk_placements(const model::ModelSpec& model,
                                                             const strategy::Strategy& strategy, int stage) const;
  //! stage_chunk_placements of every stage, in stage order.
  std::vector<std::vector<events::ChunkPlacement>> all_stage_chunk_placements(const model::ModelSpec& model,
                                                                              const strategy::Strategy& strategy) const;

  //! Micro-batches whose activations `stage` holds at its peak (a fraction when chunks of one
  //! micro-batch are counted separately), for `num_microbatches` per iteration.
  virtual double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const = 0;
  //! Every stage's microbatches_in_flight, in stage order; by default one call per stage.
  virtual std::vector<double> all_microbatches_in_flight(int num_stages, int num_microbatches, int num_chunks) const;

  //! Whether steps() runs some steps overlapped with the ones before them (Step::overlaps_previous,
  //! DualPipe's F&B pairs). A schedule that says no never does, which a test checks on every
  //! built-in schedule; the lower bound reads this instead of the steps.
  virtual bool overlaps_steps() const { return false; }
  //! Whether stage_steps of `strategy` holds overlapped steps: steps() does, or combined 1F1B
  //! pairs them.
  bool overlaps_stage_steps(const strategy::Strategy& strategy) const {
    return overlaps_steps() || strategy.overlap_moe_expert_parallel_comm;
  }

  //! Whether Megatron-Core runs its combined 1F1B (--overlap-moe-expert-parallel-comm) on this
  //! schedule with `num_stages` stages of `num_chunks` chunks: without pipelining, or interleaved
  //! (transformer_config.py: "virtual_pipeline_model_parallel_size must be specified when
  //! pipeline_model_parallel_size > 1").
  virtual bool runs_combined_1f1b(int /*num_stages*/, int /*num_chunks*/) const { return false; }
  //! The steps of `stage` in `strategy`'s pipeline: steps(), paired by combined_1f1b when the
  //! strategy overlaps the expert-parallel communication (validation has checked that it can).
  std::vector<Step> stage_steps(const strategy::Strategy& strategy, int stage) const;
  //! microbatches_in_flight for `strategy`'s pipeline; combined 1F1B's extra warm-up forward holds
  //! one chunk's activations more.
  double stage_microbatches_in_flight(const strategy::Strategy& strategy, int stage) const;
  //! stage_steps of every stage, in stage order.
  std::vector<std::vector<Step>> all_stage_steps(const strategy::Strategy& strategy) const;
  //! stage_microbatches_in_flight of every stage, in stage order.
  std::vector<double> all_stage_microbatches_in_flight(const strategy::Strategy& strategy) const;

  //! Appends one sentence per rule of this schedule that `job` breaks. By default: one chunk per
  //! stage, which Strategy::virtual_stages must then be.
  virtual void check(const strategy::JobSpec& job, std::vector<std::string>& problems) const;

  //! Whether Megatron-LM runs this schedule for a pipeline with `num_chunks` chunks per stage,
  //! which names the schedule of a published run that only gives its chunk count.
  virtual bool is_megatron_default(int /*num_chunks*/) const { return false; }

 protected:
  //! Throws InternalError unless `num_chunks` is 1: validation (check) keeps other counts out.
  void require_one_chunk(int num_chunks) const;
  //! The most micro-batches whose activations a stage running `steps` holds at once: each from
  //! its forward on a chunk until the step that completes its gradients there (the backward, or
  //! W when the backward is split), one chunk counting 1/num_chunks of a micro-batch.
  static double peak_in_flight(const std::vector<Step>& steps, int num_chunks);
};

//! Megatron-Core's combined 1F1B (pipeline_parallel/combined_1f1b.py, schedules.py
//! get_pp_rank_microbatches) made from a forward-and-backward order with a warm-up, steady
//! pairs and a cool-down: one forward more before the first backward, "to ensure the forward and
//! backward computations are independent in all 1f1b steps", then each steady-state forward runs
//! overlapped with the backward after it, so that one micro-batch's expert-parallel all-to-all
//! hides behind the other's computation.
std::vector<Step> combined_1f1b(const std::vector<Step>& steps);

}  // namespace distsim::schedule
