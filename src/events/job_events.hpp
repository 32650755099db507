#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "events/event_table.hpp"
#include "events/phase.hpp"
#include "model/parameter_count.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

class LayerMemo;

//! One step of a stage's per-micro-batch work: which event runs on which stream. A compute
//! step follows the previous compute step on the compute stream and, when `waits_for` is set,
//! also waits for that earlier (communication) step. A communication step waits for the compute
//! step before it.
struct TaskTemplate {
  EventId event = 0;
  StreamKind stream = StreamKind::compute;
  //! forward or backward; recompute for a layer's forward rerun inside the backward pass
  Phase phase = Phase::forward;
  int layer = -1;          //!< global transformer layer index; -1 for embedding, head, loss
  std::string_view label;  //!< what the step does, e.g. "fc1", "attention", "tp all_reduce"
  //! index of an earlier step in the same list; a communication step waits for it as well as
  //! for the compute step before it
  int waits_for = -1;
  //! A weight-gradient GEMM (wgrad): the part of the backward pass that a schedule splitting it
  //! runs in the weight-gradient step W; everything else belongs to the input-gradient step B.
  bool weight_gradient = false;
  //! index of the all-gather of this compute step's parameters (sharding zero3), which the step
  //! waits for besides waits_for; -1 for none
  int waits_for_parameters = -1;
  //! The host reads a result of this step back (a device-to-host copy and a stream
  //! synchronization), so it issues nothing after it before the step has ended: the MoE token
  //! dispatcher's per-expert token counts (docs/host_time.md).
  bool host_waits = false;
  bool operator==(const TaskTemplate&) const = default;
};

//! A data-parallel gradient bucket of one model chunk. Buckets fill in reverse layer order, as
//! Megatron-LM assigns parameters to buckets (the LM head's first, the embedding's last).
struct GradientBucket {
  //! All-reduce of the bucket's gradients; reduce-scatter with the distributed optimizer; none
  //! under ZeRO-2, whose units reduce-scatter their gradients in every micro-batch instead.
  std::optional<EventId> reduction;
  //! All-gather of the updated parameters after the optimizer step (distributed optimizer only).
  std::optional<EventId> parameter_gather;
  //! Index into the chunk's backward templates of the step after which every gradient in the
  //! bucket exists: the end of the earliest layer (or embedding) it holds parameters of.
  int ready_after = -1;
  //! The same point as an index into the chunk's backward_weight templates: the last
  //! weight-gradient GEMM at or before it (see split_backward).
  int weight_ready_after = -1;
};

//! The work of one model chunk of a stage: a contiguous range of layers, plus the embedding on
//! the pipeline's first chunk and the LM head and loss on its last. Without interleaving a stage
//! holds a single chunk.
struct ChunkWork {
  int chunk = 0;  //!< index on the stage: stage s's chunk c is the pipeline's chunk c·p + s
  int first_layer = 0;
  int num_layers = 0;
  std::vector<TaskTemplate> forward;   //!< one micro-batch's forward pass, in order
  std::vector<TaskTemplate> backward;  //!< one micro-batch's backward pass (with recompute), in order
  //! The backward pass split in two (split_backward): the input-gradient step B and the
  //! weight-gradient step W, for schedules that run them apart.
  std::vector<TaskTemplate> backward_input;
  std::vector<TaskTemplate> backward_weight;
  std::optional<EventId> send_activation;        //!< to the next chunk in the pipeline, per micro-batch
  std::optional<EventId> send_gradient;          //!< to the previous chunk in the pipeline, per micro-batch
  std::vector<GradientBucket> gradient_buckets;  //!< empty without data parallelism
  std::int64_t parameters = 0;                   //!< parameters of this chunk held by this rank
  //! Of those, the routed experts' (E/EP experts of each MoE layer, split over ETP), which are
  //! reduced over the expert data-parallel group instead of the gradient group.
  std::int64_t expert_parameters = 0;
};

//! The work of one rank, as templates instantiated per micro-batch by the program builder.
struct RankWork {
  std::vector<ChunkWork> chunks;  //!< by chunk index on the stage
  //! Sequence parallelism: one tensor-parallel all-reduce of the gradients of the parameters
  //! that see only a sequence shard (norms, row-parallel biases), after the data-parallel
  //! reduction (Megatron-LM's allreduce_layernorm_grads).
  std::optional<EventId> sequence_parallel_reduction;
  std::optional<EventId> embedding_reduction;  //!< tied embeddings split over first and last stage
  //! The routed experts' gradients, reduced over the expert data-parallel group (the ranks that
  //! hold the same experts; Megatron-Core's expert_data_parallel_group) after the dense buckets:
  //! an all-reduce, or a reduce-scatter with the distributed optimizer, which then all-gathers
  //! the updated experts (expert_parameter_gather). Empty without experts or with one expert
  //! data-parallel rank.
  std::optional<EventId> expert_gradient_reduction;
  std::optional<EventId> expert_parameter_gather;
  std::int64_t expert_parameters = 0;  //!< routed-expert parameters held by this rank
  EventId optimizer_step = 0;
  std::int64_t parameters = 0;  //!< parameters held by this rank, over all its chunks
};

//! The global transformer layers [first, first + count) that a pipeline stage holds: as even as
//! possible, with the remainder on the earliest stages (the split without a custom pipeline layout).
struct LayerRange {
  int first = 0;
  int count = 0;
};
LayerRange stage_layers(int total_layers, int num_stages, int stage);

//! A model chunk of a stage as its pipeline schedule places it: its layers (possibly none), the
//! stages that its activations come from and go to (gradients travel back the same way; neither at
//! the ends of the pipeline, nor where the neighbouring chunk is on the same stage: a local
//! hand-off, no transfer), and whether it holds the embedding and the final norm, LM head and loss
//! (the pipeline layout's first and last virtual stage, strategy::VirtualStage).
struct ChunkPlacement {
  LayerRange layers;
  std::optional<int> receives_from;
  std::optional<int> sends_to;
  bool embedding = false;
  bool head = false;
};

//! Megatron pads the vocabulary to a multiple of 128·tp (docs/reference/formats.md §5.1).
std::int64_t padded_vocab(std::int64_t vocab, int tensor_parallel);

//! ZeRO-3's unit of sharding: the parameters one all-gather brings in before they are used and
//! one reduce-scatter sends back after backward, as PyTorch FSDP2 wraps each transformer block
//! (torchtitan's apply_fsdp, torchtitan/models/llama3/infra/parallelize.py) and Megatron-FSDP
//! each transformer layer; the embedding and the final norm with the LM head are one unit each.
struct FsdpUnit {
  int layer = -1;  //!< global transformer layer, or -1 for the embedding or the head
  bool embedding = false;
  std::int64_t parameters = 0;  //!< of the whole model (before the tensor-parallel split)
  std::int64_t duplicated = 0;  //!< of those, held whole on every tensor-parallel rank

  //! What one tensor-parallel rank holds of the unit (model::tensor_rank_parameters).
  std::int64_t rank_parameters(int tensor_parallel) const {
    return model::tensor_rank_parameters(parameters, duplicated, tensor_parallel);
  }
};

//! The units of one model chunk in forward order (the embedding when the chunk holds it, its
//! layers, the final norm and LM head when it holds them).
std::vector<FsdpUnit> fsdp_units(const model::ModelSpec& model, LayerRange layers, bool embedding, bool head);
//! The same for a chunk of an even split: the embedding with layer 0, the head with the last layer.
std::vector<FsdpUnit> fsdp_units(const model::ModelSpec& model, LayerRange layers);

//! Builds the events and templates of the rank at `coord`, following Megatron-LM's partitioning
//! (docs/reference/formats.md §6): per-rank GEMM shapes under tensor parallelism, with two all-reduces per
//! layer in forward and two in backward, or with sequence parallelism all-gathers and
//! reduce-scatters and norms and dropout on a sequence shard; the forward rerun before each
//! layer's backward under full recomputation; embedding on the first chunk, LM head and loss on
//! the last; activation and gradient transfers between chunks; bucketed data-parallel gradient
//! all-reduce, or reduce-scatter and parameter all-gather with the distributed optimizer; and
//! the optimizer step; with sharding zero3 the per-unit parameter all-gathers before forward and
//! backward and the gradient reduce-scatters after backward (docs/features.md). `chunks` are the
//! model chunks the rank's stage holds, as its pipeline schedule places them
//! (schedule::PipelineSchedule::stage_chunk_placements). Tied embeddings need a reduction between
//! the stage with the embedding and the stage with the LM head only when they are different
//! stages. Events are interned into `table`; with a `memo` of that table, layers alike to ones
//! built before (for this rank or another of the same job) are copied. With BackwardSplit::none the
//! chunks' backward_input and backward_weight stay empty: a schedule that runs whole backward passes
//! reads neither, and splitting copies every backward template.
enum class BackwardSplit { none, input_and_weight };
RankWork build_rank_work(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
                         const std::vector<ChunkPlacement>& chunks, EventTable& table, LayerMemo* memo = nullptr,
                         BackwardSplit split = BackwardSplit::input_and_weight);

}  // namespace distsim::events
