#pragma once

#include <cstdint>

#include "core/dtype.hpp"
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
//! With the distributed optimizer (ZeRO-1) only the optimizer states are sharded over the d
//! data-parallel ranks (with context parallelism, the dp·cp ranks that share the weights: pass
//! Strategy::gradient_group_size); a shard that does not divide evenly is rounded up.
ModelStateBytes model_state_bytes(std::int64_t parameters, Dtype dtype, bool distributed_optimizer, int data_parallel);

//! With low-precision GEMMs, TransformerEngine keeps a copy of every such GEMM's weight in the
//! format and a second one for the input-gradient GEMM (fp8: the transpose, as Hopper's fp8 GEMMs
//! take only the TN layout; mxfp8 and nvfp4: the columnwise copy, block scales running along one
//! direction), refreshed once per iteration: 2 · storage_bytes per linear-GEMM weight of the
//! low-precision transformer layers of stage `stage`, per tensor-parallel rank
//! (docs/memory_model.md "FP8 GEMMs", docs/precision.md); 0 without.
std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             int stage);

//! Whether `layer`'s linear GEMMs run in the strategy's low-precision format (not one of the
//! layers kept in bf16 at the start and the end).
bool layer_in_low_precision(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer);

//! Parameters held by one tensor-parallel rank of pipeline stage `stage`: its transformer layers
//! (split as events::stage_layers does), the token embedding (padded vocabulary) and learned
//! position table on the first stage, the final norm and the LM head on the last stage — the
//! head is a second copy of the embedding when tied and the stages differ. Everything is divided
//! by the tensor-parallel size, as Megatron's estimator does (replicated norm weights are < 0.1 %).
std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage);

}  // namespace distsim::memory
