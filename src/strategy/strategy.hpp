#pragma once

#include <optional>
#include <string>

#include "core/dtype.hpp"

namespace distsim::strategy {

//! Activation recomputation (Korthikanti et al. 2022): none keeps every activation; selective
//! recomputes the attention core (score product, softmax, dropout, context product) in backward:
//! with FlashAttention its backward already does so and only memory changes, with unfused
//! attention the core's forward kernels rerun before its backward; full keeps only each layer's
//! input and reruns the whole layer forward before its backward.
enum class Recompute { none, selective, full };

inline const char* to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "none";
}

//! How the software stack runs the attention core. flash: one fused kernel per pass that never
//! writes the s×s scores (FlashAttention, Dao et al. 2022; Megatron-LM --use-flash-attn since
//! 2023). unfused: Megatron-LM's original core, a batched GEMM QKᵀ, the fused scale-mask-softmax,
//! dropout and a batched GEMM P·V, each through device memory (Korthikanti et al. 2022 §4.1).
enum class Attention { flash, unfused };

inline const char* to_string(Attention attention) { return attention == Attention::unfused ? "unfused" : "flash"; }

//! How a job is parallelized and batched. Sizes follow Megatron-LM: tensor (model) parallel,
//! pipeline parallel and data parallel degrees, micro-batch and global batch in sequences.
struct Strategy {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;
  //! Megatron-Core context parallelism: each of the cp ranks holds s/cp tokens of every sequence
  //! and attention runs as a ring over them (docs/features.md); weights are replicated, so
  //! gradients are reduced over dp·cp ranks.
  int context_parallel = 1;
  int micro_batch_size = 1;
  int global_batch_size = 1;
  std::string schedule = "1f1b";
  Dtype dtype = Dtype::bf16;  //!< activations, weights and GEMM inputs
  int dp_bucket_params = 0;   //!< gradient bucket size in parameters; 0 means Megatron's default
  //! Megatron sequence parallelism: norms and dropout sharded over the TP group; the TP
  //! all-reduces become all-gather + reduce-scatter. No effect with tensor_parallel = 1, as in
  //! Megatron-LM.
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  //! ZeRO-1 as in Megatron's distributed optimizer: gradients reduce-scattered over DP, each rank
  //! updates its shard, parameters all-gathered.
  bool distributed_optimizer = false;
  //! Gradient buckets reduced while backward still runs (Megatron --overlap-grad-reduce).
  bool overlap_grad_reduce = false;
  //! Model chunks per pipeline stage (interleaved 1F1B); 1 for GPipe and plain 1F1B.
  int virtual_stages = 1;
  Attention attention = Attention::flash;
  //! TransformerEngine's fp8 GEMMs (Megatron-Core --fp8-format hybrid) in bf16 training: the
  //! transformer layers' linear GEMMs take fp8 inputs; attention, the LM head, norms,
  //! activations and communication stay bf16 (docs/features.md "FP8 GEMMs").
  bool fp8_gemms = false;
  //! "bf16", or "bf16, fp8 GEMMs" when the linear GEMMs run in fp8.
  std::string precision_name() const { return std::string(dtype_name(dtype)) + (fp8_gemms ? ", fp8 GEMMs" : ""); }
  //! Megatron-LM's scatter/gather of pipeline tensors (Narayanan et al. SC'21 §4.1): each
  //! tensor-parallel rank sends 1/t of the boundary tensor and the receiving stage all-gathers it
  //! over NVLink. Only without sequence parallelism, whose tensors are already 1/t shards.
  bool p2p_scatter_gather = false;

  int world_size() const { return tensor_parallel * context_parallel * pipeline_parallel * data_parallel; }
  //! world_size(), or nothing when the product does not fit an int: validate_job refuses such sizes,
  //! and whatever runs before it asks here rather than multiply.
  std::optional<int> checked_world_size() const;
  //! The ranks that hold the same weights and reduce their gradients together (Megatron-Core's
  //! data_parallel_group_with_cp): data parallel × context parallel.
  int gradient_group_size() const { return data_parallel * context_parallel; }
  int num_microbatches() const { return global_batch_size / (micro_batch_size * data_parallel); }
  //! Megatron's default bucket: max(40M, 1M·dp) parameters (distributed_data_parallel.py).
  int bucket_params() const {
    if (dp_bucket_params > 0) {
      return dp_bucket_params;
    }
    const int scaled = 1'000'000 * data_parallel;
    return scaled > 40'000'000 ? scaled : 40'000'000;
  }
  //! The paper's notation: 2M2P4D; with context parallelism 2M2C2P4D.
  std::string notation() const {
    const std::string context = context_parallel > 1 ? std::to_string(context_parallel) + "C" : "";
    return std::to_string(tensor_parallel) + "M" + context + std::to_string(pipeline_parallel) + "P" +
           std::to_string(data_parallel) + "D";
  }
};

//! "none", "selective" or "full". Throws InputError "<flag>: unknown recomputation '<text>'; did you
//! mean ...?" for anything else.
Recompute parse_recompute(const std::string& text, const std::string& flag);

//! What is wrong with a strategy in the paper's xMyPzD notation (any order of the three parts, each
//! at most once, with an optional wC part for context parallelism: 2M2C2P4D): "unknown letter 'X' in
//! '2M2X'; expected the form ...", or "" when nothing is.
std::string strategy_notation_problem(const std::string& text);

//! Parses the notation; throws InputError "strategy: <problem>" for a bad one.
Strategy parse_strategy_notation(const std::string& text);

}  // namespace distsim::strategy
