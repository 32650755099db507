#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "catalog/attention_kernels.hpp"
#include "core/dtype.hpp"

namespace distsim::strategy {

//! Activation recomputation (Korthikanti et al. 2022): none keeps every activation; selective
//! recomputes the attention core (score product, softmax, dropout, context product) in backward:
//! with FlashAttention its backward already does so and only memory changes, with unfused
//! attention the core's forward kernels rerun before its backward; mla_up_proj (latent attention
//! only; Megatron-Core's selective recompute_modules ["mla_up_proj"]) drops the heads' queries,
//! keys and values and reruns the up-projections and RoPE before the attention's backward; full
//! keeps only each layer's input and reruns the whole layer forward before its backward.
enum class Recompute { none, selective, mla_up_proj, full };

inline const char* to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::mla_up_proj: return "mla_up_proj";
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

//! How tokens reach the experts of an MoE layer (Megatron-Core --moe-token-dispatcher-type).
//! alltoall: each rank permutes its tokens by expert and an all-to-all over the expert-parallel
//! group sends each to the rank holding its expert; a second all-to-all brings the outputs back.
//! allgather: every rank of the expert-parallel group gathers all of the group's tokens, keeps
//! those routed to its own experts, and a reduce-scatter returns the outputs.
//! deepep, hybridep: Megatron-Core's flex dispatcher (--moe-token-dispatcher-type flex,
//! --moe-flex-dispatcher-backend) on DeepEP's or HybridEP's kernels: a token goes once to each
//! rank that holds one of its experts, and that rank copies it for its local experts after the
//! exchange; modelled within one scale-up (NVLink) domain.
enum class MoeDispatcher { alltoall, allgather, deepep, hybridep };

//! Whether the dispatcher sends a token once per destination rank (the flex dispatcher).
inline bool sends_once_per_rank(MoeDispatcher dispatcher) {
  return dispatcher == MoeDispatcher::deepep || dispatcher == MoeDispatcher::hybridep;
}

//! Whether the host thread that issues the kernels is simulated (docs/host_time.md): modelled,
//! each kernel waits for its launch, priced as PyTorch eager mode with TransformerEngine modules
//! (cost/host_cost_model.hpp); none, the GPU never waits for the host, as in the DistSim paper.
enum class HostTime { modelled, none };

inline const char* to_string(MoeDispatcher dispatcher) {
  switch (dispatcher) {
    case MoeDispatcher::allgather: return "allgather";
    case MoeDispatcher::deepep: return "deepep";
    case MoeDispatcher::hybridep: return "hybridep";
    case MoeDispatcher::alltoall: break;
  }
  return "alltoall";
}

//! How context-parallel attention exchanges the sequence between the cp ranks (Megatron-Core
//! --cp-comm-type, TransformerEngine context_parallel.py). p2p: a ring of K/V blocks beside the
//! attention steps (AttnFuncWithCPAndKVP2P). a2a: an all-to-all turns the sequence shards of Q, K
//! and V into head shards, attention runs over the whole sequence for heads/cp heads, and an
//! all-to-all turns the output back (AttnFuncWithCPAndQKVOA2A, DeepSpeed-Ulysses). allgather: K
//! and V are gathered whole and each rank runs its own queries against them; backward gathers
//! them again and reduce-scatters dK and dV (AttnFuncWithCPAndKVAllGather). a2a_p2p ("a2a+p2p",
//! Megatron-Core --hierarchical-context-parallel-sizes): an all-to-all inside groups of
//! cp_a2a_size adjacent context ranks, then the ring over the cp / cp_a2a_size groups, then the
//! all-to-all back (AttnFuncWithCPAndKVP2P with a list of two groups). docs/features.md.
enum class CpCommType { p2p, a2a, allgather, a2a_p2p };

inline const char* to_string(CpCommType type) {
  switch (type) {
    case CpCommType::p2p: return "p2p";
    case CpCommType::a2a: return "a2a";
    case CpCommType::allgather: return "allgather";
    case CpCommType::a2a_p2p: return "a2a+p2p";
  }
  return "p2p";
}

//! How far data parallelism shards the model state over the ranks that hold the same weights,
//! by ZeRO stage (Rajbhandari et al. SC'20): none keeps full replicas; optimizer shards the
//! optimizer states (ZeRO-1, Megatron's distributed optimizer, DeepSpeed stage 1, Megatron-FSDP
//! `optim`); gradients also the gradients (ZeRO-2, DeepSpeed stage 2, Megatron-FSDP
//! `optim_grads`, PyTorch FSDP SHARD_GRAD_OP); full also the parameters, gathered layer by layer
//! while they run (ZeRO-3, DeepSpeed stage 3, Megatron-FSDP `optim_grads_params`, PyTorch FSDP2
//! fully_shard). docs/features.md "Sharded data parallelism".
enum class Sharding { none, optimizer, gradients, full };

//! The name --sharding takes: "none", "zero1", "zero2" or "zero3".
inline const char* to_string(Sharding sharding) {
  switch (sharding) {
    case Sharding::none: return "none";
    case Sharding::optimizer: return "zero1";
    case Sharding::gradients: return "zero2";
    case Sharding::full: return "zero3";
  }
  return "none";
}

//! TransformerEngine's low-precision GEMM recipes inside bf16 training (docs/precision.md): the
//! transformer layers' linear GEMMs take fp8 inputs with per-tensor scales (Megatron-Core
//! --fp8-format hybrid, delayed or current scaling), mxfp8 inputs with an E8M0 scale per 32
//! elements (--fp8-recipe mxfp8) or nvfp4 inputs with an E4M3 scale per 16 elements and a
//! per-tensor one (--fp4-format e2m1 --fp4-recipe nvfp4); none keeps them in the training dtype.
enum class GemmFormat { none, fp8, mxfp8, nvfp4 };

//! The GEMM input dtype of a low-precision format; the training dtype for none.
constexpr Dtype gemm_dtype(GemmFormat format, Dtype training) {
  switch (format) {
    case GemmFormat::fp8: return Dtype::fp8;
    case GemmFormat::mxfp8: return Dtype::mxfp8;
    case GemmFormat::nvfp4: return Dtype::nvfp4;
    case GemmFormat::none: break;
  }
  return training;
}

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
  //! How the context-parallel ranks exchange K/V (or Q/K/V/O) around the attention core.
  CpCommType cp_comm_type = CpCommType::p2p;
  //! With a2a_p2p: the adjacent context ranks of one all-to-all group (the first of Megatron-Core's
  //! --hierarchical-context-parallel-sizes); the ring runs over context_parallel / cp_a2a_size.
  int cp_a2a_size = 1;
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
  //! The ZeRO stage as --sharding names it; none leaves the choice to distributed_optimizer
  //! (zero_stage() combines the two).
  Sharding sharding = Sharding::none;
  //! Ranks that shard the model state together with sharding zero3 (HSDP: shard inside a group,
  //! replicate across groups, as PyTorch FSDP2's 2-D mesh and FSDP's HYBRID_SHARD do); 0 means
  //! every rank that holds the same weights (gradient_group_size()).
  int shard_group = 0;
  //! Gradient buckets reduced while backward still runs (Megatron --overlap-grad-reduce).
  bool overlap_grad_reduce = false;
  //! Model chunks per pipeline stage (interleaved 1F1B); 1 for GPipe and plain 1F1B.
  int virtual_stages = 1;
  Attention attention = Attention::flash;
  //! The fused attention kernel's library release, which sets its rate (catalog/attention_kernels.hpp);
  //! "generic" prices it at a fixed fraction of the GPU's GEMM ceiling.
  std::string attention_kernel{catalog::kGenericAttentionKernel};
  //! The format of the transformer layers' linear GEMMs; attention, the LM head, norms and
  //! activations stay bf16, and so does communication except where the format's recipe gathers
  //! quantized tensors (docs/precision.md).
  GemmFormat gemm_format = GemmFormat::none;
  //! Transformer layers at the start and at the end of the model that keep bf16 GEMMs under a
  //! low-precision format (Megatron-Core --first-last-layers-bf16 --num-layers-at-start-in-bf16 N
  //! --num-layers-at-end-in-bf16 M).
  int bf16_layers_at_start = 0;
  int bf16_layers_at_end = 0;
  //! On a cluster of several GPU types: the GPU of each pipeline stage, comma-separated names of
  //! the cluster's host groups' GPUs (strategy/gpu_placement.hpp); empty: ranks fill the hosts in
  //! the cluster's order.
  std::string stage_gpus;
  //! Which decoder layers each virtual pipeline stage holds, when not split evenly
  //! (docs/features.md "Uneven pipeline layouts"; strategy/pipeline_layout.hpp). Megatron-Core's
  //! --pipeline-model-parallel-layout string, or "balanced" (strategy::kBalancedLayout), which
  //! api::with_balanced_layout turns into a layout string before the job is simulated; empty for none.
  std::string pipeline_layout;
  //! Megatron-Core --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers:
  //! the decoder layers of the first and the last pipeline stage, the rest split evenly over the
  //! stages between; 0 when not set.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  //! Megatron-Core --account-for-embedding-in-pipeline-split and
  //! --account-for-loss-in-pipeline-split: the embedding (the LM head and loss) counts as one
  //! layer when the layers are split over the virtual stages.
  bool account_for_embedding = false;
  bool account_for_loss = false;
  //! Whether any of the four settings above asks for a layout other than the even split.
  bool custom_pipeline_layout() const {
    return !pipeline_layout.empty() || first_stage_layers > 0 || last_stage_layers > 0 || account_for_embedding ||
           account_for_loss;
  }
  bool low_precision_gemms() const { return gemm_format != GemmFormat::none; }
  //! The layers [first, end) of a model of `total_layers` whose linear GEMMs run in the
  //! low-precision format: every layer but those kept in bf16 at the start and the end; none
  //! without a format.
  std::pair<int, int> low_precision_layers(int total_layers) const {
    return low_precision_gemms() ? std::pair{bf16_layers_at_start, total_layers - bf16_layers_at_end} : std::pair{0, 0};
  }
  bool layer_in_low_precision(int layer, int total_layers) const {
    const auto [first, end] = low_precision_layers(total_layers);
    return layer >= first && layer < end;
  }
  //! "bf16", or "bf16, nvfp4 GEMMs" when the linear GEMMs run in a low-precision format.
  std::string precision_name() const {
    return std::string(dtype_name(dtype)) +
           (low_precision_gemms() ? ", " + std::string(dtype_name(gemm_dtype(gemm_format, dtype))) + " GEMMs" : "");
  }
  //! Megatron-LM's scatter/gather of pipeline tensors (Narayanan et al. SC'21 §4.1): each
  //! tensor-parallel rank sends 1/t of the boundary tensor and the receiving stage all-gathers it
  //! over NVLink. Only without sequence parallelism, whose tensors are already 1/t shards.
  bool p2p_scatter_gather = false;
  //! Mixture-of-experts layers (Megatron-Core "MoE parallel folding"): the expert part of a
  //! layer runs over the same ranks of a pipeline stage as the attention part, regrouped as
  //! expert tensor parallel (fastest) x expert parallel x expert data parallel.
  int expert_parallel = 1;         //!< EP: ranks the routed experts are spread over
  int expert_tensor_parallel = 1;  //!< ETP: ranks each expert's FFN is split over
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  HostTime host_time = HostTime::modelled;
  //! Tokens of the busiest expert rank over the mean (1.0: perfectly balanced, as in
  //! force-balanced benchmark runs); the slowest expert rank sets the pace of the layer.
  double moe_imbalance = 1.0;
  //! Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): each steady-state
  //! forward runs overlapped with another micro-batch's backward, so that the expert-parallel
  //! all-to-all of one hides behind the computation of the other (schedule::combined_1f1b).
  bool overlap_moe_expert_parallel_comm = false;
  //! Megatron-Core --moe-shared-expert-overlap: the shared experts' first linear runs while the
  //! dispatch is in flight and their second while the combine is, instead of after the routed
  //! experts (moe/shared_experts.py, token_dispatcher.py).
  bool moe_shared_expert_overlap = false;
  //! Megatron-Core --moe-router-fusion: TransformerEngine's fused router kernels, 31 kernels for the
  //! router's 72 (cost/host_cost_model.cpp), which the host issues in less time.
  bool moe_router_fusion = false;
  //! Megatron-Core --moe-pad-expert-input-to-capacity ("drop and pad"): with the model's capacity
  //! factor, every expert takes exactly its capacity of tokens from each rank, padded where fewer
  //! were routed, so the exchanges and grouped GEMMs have fixed sizes and the dispatcher reads no
  //! token counts back to the host (events/moe_routing.hpp).
  bool moe_pad_to_capacity = false;

  //! The ranks of one pipeline stage: tp x cp x dp, the same ranks the experts fold over.
  int stage_ranks() const { return tensor_parallel * context_parallel * data_parallel; }
  //! Expert data parallel: the ranks that hold the same experts and reduce their gradients.
  int expert_data_parallel() const {
    const int expert_model = expert_parallel * expert_tensor_parallel;
    return expert_model > 0 ? stage_ranks() / expert_model : 1;
  }

  int world_size() const { return tensor_parallel * context_parallel * pipeline_parallel * data_parallel; }
  //! world_size(), or nothing when the product does not fit an int: validate_job refuses such sizes,
  //! and whatever runs before it asks here rather than multiply.
  std::optional<int> checked_world_size() const;
  //! The ranks that hold the same weights and reduce their gradients together (Megatron-Core's
  //! data_parallel_group_with_cp): data parallel × context parallel.
  int gradient_group_size() const { return data_parallel * context_parallel; }
  int num_microbatches() const { return global_batch_size / (micro_batch_size * data_parallel); }
  //! What the job shards: sharding, or ZeRO-1 with distributed_optimizer.
  Sharding zero_stage() const {
    if (sharding != Sharding::none) {
      return sharding;
    }
    return distributed_optimizer ? Sharding::optimizer : Sharding::none;
  }
  //! The ranks that shard the model state together: shard_group, or the whole gradient group.
  int shard_group_size() const { return shard_group > 0 ? shard_group : gradient_group_size(); }
  //! ZeRO-3 over more than one rank: each unit's parameters are all-gathered before it runs and
  //! its gradients reduce-scattered after. A shard group of one rank holds every parameter whole,
  //! so it gathers and reduces nothing.
  bool gathers_parameters() const { return zero_stage() == Sharding::full && shard_group_size() > 1; }
  //! ZeRO-2 or ZeRO-3 over more than one rank: each unit's gradients are reduce-scattered right
  //! after its backward, in every micro-batch, since only a shard of them is kept (Megatron-FSDP
  //! optim_grads and optim_grads_params, FSDP SHARD_GRAD_OP and FULL_SHARD, DeepSpeed stages 2 and 3).
  bool reduces_per_unit() const {
    return (zero_stage() == Sharding::gradients || zero_stage() == Sharding::full) && shard_group_size() > 1;
  }
  //! HSDP's replica groups: how many shard groups hold the same parameters.
  int shard_replicas() const { return gradient_group_size() / shard_group_size(); }
  //! Data-parallel indices per shard group (the group is that many dp ranks times every cp rank).
  int shard_data_parallel() const { return shard_group_size() / context_parallel; }
  //! The data-parallel indices of one shard group when units' gradients are reduced over it, else 0.
  int unit_shard_data_parallel() const { return reduces_per_unit() ? shard_data_parallel() : 0; }
  //! Megatron's default bucket: max(40M, 1M·dp) parameters (distributed_data_parallel.py).
  //! In 64 bits: 1M x dp passes an int from dp 2148 on.
  std::int64_t bucket_params() const {
    if (dp_bucket_params > 0) {
      return dp_bucket_params;
    }
    const std::int64_t scaled = std::int64_t{1'000'000} * data_parallel;
    return scaled > 40'000'000 ? scaled : 40'000'000;
  }
  //! The paper's notation: 2M2P4D; with context parallelism 2M2C2P4D.
  std::string notation() const {
    const std::string context = context_parallel > 1 ? std::to_string(context_parallel) + "C" : "";
    return std::to_string(tensor_parallel) + "M" + context + std::to_string(pipeline_parallel) + "P" +
           std::to_string(data_parallel) + "D";
  }
};

//! What is wrong with a strategy in the paper's xMyPzD notation (any order of the three parts, each
//! at most once, with an optional wC part for context parallelism: 2M2C2P4D): "unknown letter 'X' in
//! '2M2X'; expected the form ...", or "" when nothing is.
std::string strategy_notation_problem(const std::string& text);

//! Parses the notation; throws InputError "strategy: <problem>" for a bad one.
Strategy parse_strategy_notation(const std::string& text);

}  // namespace distsim::strategy
