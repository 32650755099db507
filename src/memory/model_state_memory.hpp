#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.hpp"
#include "events/job_events.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::memory {

//! What one device keeps for its parameters through the whole iteration, in bytes: the working
//! weights, the gradients, and the optimizer states (Adam's fp32 master weights, momentum and
//! variance, plus fp32 master gradients where the working gradients are 16-bit).
struct ModelStateBytes {
  std::int64_t weights = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizer_states = 0;

  std::int64_t total() const { return weights + gradients + optimizer_states; }
};

//! Megatron-LM's bytes per parameter with Adam (docs/source/api-guide/dist_optimizer.md, table
//! in docs/reference/formats.md §6.6):
//!   bf16 (and fp8, whose master copy is bf16): 2 + 4 (fp32 grads) + 12 = 18; 6 + 12/d distributed;
//!   fp16: 2 + 2 (fp16 grads) + 16 (fp32 master params and grads, momentum, variance) = 20; 4 + 16/d;
//!   fp32: 4 + 4 + 8 = 16; 8 + 8/d.
//! Sharded over the d ranks of the shard group (Strategy::shard_group_size; with context
//! parallelism the dp·cp ranks that share the weights), by ZeRO stage (Rajbhandari et al. SC'20
//! §5): ZeRO-1 (the distributed optimizer) divides the optimizer states by d, ZeRO-2 the
//! gradients as well, ZeRO-3 the weights as well; a shard that does not divide evenly is rounded up.
ModelStateBytes model_state_bytes(std::int64_t parameters, Dtype dtype, strategy::Sharding sharding, int shard_group);

//! The bytes a checkpoint of `model` holds (docs/goodput.md): every parameter once, whatever its
//! sharding, in its working dtype, with the optimizer states that carry over from one step to the
//! next: Adam's fp32 master weights, momentum and variance (fp32 training: the weights are the
//! master copy). Gradients, fp16's fp32 master gradients and TransformerEngine's low-precision
//! weight copies are rebuilt every step and not saved. bf16: 2 + 12 = 14 bytes per parameter.
std::int64_t checkpoint_bytes(const model::ModelSpec& model, Dtype dtype);

//! What ZeRO-3 holds on top of its shards while a unit runs (PyTorch FSDP2, torchtitan), for jobs
//! that gather parameters (Strategy::gathers_parameters): the gathered weights of the running unit
//! and of the next one, prefetched, in the working dtype; and the running unit's whole gradients
//! until they are reduce-scattered (ZeRO-2, which keeps its weights, holds those gradients alone
//! on top of its shards). `largest_unit` is the largest events::FsdpUnit of the stage
//! per tensor-parallel rank: 2 · largest_unit · weight bytes + largest_unit · gradient bytes.
ModelStateBytes gathered_unit_bytes(std::int64_t largest_unit, Dtype dtype);

//! The parameters, per tensor-parallel rank, of the largest ZeRO-3 unit (events::fsdp_units) of a
//! stage's model chunks (as its schedule places them).
std::int64_t largest_unit_parameters(const model::ModelSpec& model, const std::vector<events::ChunkPlacement>& chunks,
                                     int tensor_parallel);

//! With low-precision GEMMs, TransformerEngine keeps a copy of every such GEMM's weight in the
//! format and a second one for the input-gradient GEMM (fp8: the transpose, as Hopper's fp8 GEMMs
//! take only the TN layout; mxfp8 and nvfp4: the columnwise copy, block scales running along one
//! direction), refreshed once per iteration: 2 · storage_bytes per linear-GEMM weight of the
//! low-precision transformer layers of stage `stage` (an MoE layer's experts, not its router), per
//! tensor-parallel rank (routed experts: per EP x ETP share) (docs/memory_model.md "FP8 GEMMs",
//! docs/precision.md); 0 without.
std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             int stage);
//! The same for a stage that holds the transformer layers of `chunks`.
std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             const std::vector<events::LayerRange>& chunks);

//! Whether `layer`'s linear GEMMs run in the strategy's low-precision format (not one of the
//! layers kept in bf16 at the start and the end).
bool layer_in_low_precision(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer);

//! The routed-expert parameters one rank of pipeline stage `stage` holds: E/EP experts of each of
//! its MoE layers, split over ETP (Megatron-Core MoE parallel folding).
std::int64_t stage_expert_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage);
//! The same for a stage that holds the layers of `chunks`.
std::int64_t stage_expert_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                     const std::vector<events::LayerRange>& chunks);

//! Parameters held by one tensor-parallel rank of pipeline stage `stage`: its transformer layers
//! (split as events::stage_layers does), the token embedding (padded vocabulary) and learned
//! position table on the first stage, the final norm and the LM head on the last stage — the
//! head is a second copy of the embedding when tied and the stages differ. Everything is divided
//! by the tensor-parallel size, as Megatron's estimator does (replicated norm weights are < 0.1 %),
//! but the routed experts, which are stage_expert_parameters.
std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage);
//! The same for a stage whose model chunks are `chunks`, as its schedule places them: the
//! embedding and the head go with the chunks that hold them (the pipeline layout's first and last
//! virtual stage), and a tied head has its own copy of the table only on a stage without the
//! embedding. A schedule that places one layer on two stages (two copies of the model) counts it
//! on both.
std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy,
                              const std::vector<events::ChunkPlacement>& chunks);

}  // namespace distsim::memory
