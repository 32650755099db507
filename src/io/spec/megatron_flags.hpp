#pragma once

// The Megatron-LM flag tables of megatron_args_reader.cpp (internal to src/io/spec).

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "core/name_match.hpp"

namespace distsim::io::megatron {

// What Megatron-LM's arguments (megatron/training/arguments.py) mean for a simulated step. A flag
// whose name is a distsim flag (--sequence-parallel, --micro-batch-size, --overlap-grad-reduce,
// --account-for-loss-in-pipeline-split, ...) is that option and needs no entry here.

//! A flag that sets an option of another name: its words are the option's value ("" for a switch,
//! which sets a yes/no option true or a choice to `value`).
struct RenamedFlag {
  std::string_view flag;
  std::string_view key;
  std::string_view value = "";
};

inline constexpr RenamedFlag kRenamedFlags[] = {
    {"--tensor-model-parallel-size", "tp"},
    {"--pipeline-model-parallel-size", "pp"},
    {"--context-parallel-size", "cp"},
    {"--expert-model-parallel-size", "ep"},
    {"--expert-tensor-parallel-size", "etp"},
    {"--num-virtual-stages-per-pipeline-rank", "virtual_stages"},
    {"--virtual-pipeline-model-parallel-size", "virtual_stages"},
    {"--use-distributed-optimizer", "distributed_optimizer"},
    {"--decoder-first-pipeline-num-layers", "first_stage_layers"},
    {"--decoder-last-pipeline-num-layers", "last_stage_layers"},
    {"--pipeline-model-parallel-layout", "pipeline_layout"},
    {"--moe-token-dispatcher-type", "moe_dispatcher"},
    {"--fp8-recipe", "precision"},
    {"--num-layers-at-start-in-bf16", "bf16_layers_at_start"},
    {"--num-layers-at-end-in-bf16", "bf16_layers_at_end"},
    {"--ddp-bucket-size", "gradient_bucket_size"},
    {"--bf16", "dtype", "bf16"},
    {"--fp16", "dtype", "fp16"},
    {"--use-flash-attn", "attention", "flash"},
    {"--hierarchical-context-parallel-sizes", "cp_a2a_size"},
    {"--nnodes", "nodes"},
    {"--nproc-per-node", "gpus_per_node"},
    {"--seq-length", "seq_length"},
    {"--use-torch-fsdp2", "sharding", "zero3"},
    {"--data-parallel-sharding-strategy", "sharding"},
    // Megatron-FSDP's default --data-parallel-sharding-strategy is optim_grads_params (ZeRO-3).
    {"--use-megatron-fsdp", "sharding", "zero3"},
};

//! Flags read together with another one (the recomputation method with its granularity, the fp8
//! recipe with its format), by the readers below.
inline constexpr std::string_view kReadTogether[] = {
    "--recompute-granularity", "--recompute-method", "--recompute-num-layers", "--recompute-modules",
    "--recompute-activations", "--fp8-format", "--fp4-format", "--fp4-recipe",
    "--num-layers-per-virtual-pipeline-stage", "--tokenizer-model", "--moe-token-drop-policy", "--attention-backend",
    "--transformer-impl", "--no-position-embedding",
    // the checkpoints, read_checkpoints
    "--save", "--save-interval", "--async-save",
    // its layers are --num-layers-at-start/end-in-bf16
    "--first-last-layers-bf16"};

//! Flags of the model's shape; each sets a field of the model the launch describes.
enum class ShapeFlag {
  num_layers,
  hidden_size,
  ffn_hidden_size,
  num_attention_heads,
  num_query_groups,
  kv_channels,
  vocab_size,
  num_experts,
  moe_router_topk,
  moe_ffn_hidden_size,
  moe_shared_expert_size,
  moe_layer_freq,
  moe_capacity_factor,
  q_lora_rank,
  kv_lora_rank,
  qk_head_dim,
  qk_pos_emb_head_dim,
  v_head_dim,
  mtp_num_layers,
  moe_router_num_groups,
  moe_router_group_topk,
  // switches
  group_query_attention,
  swiglu,
  squared_relu,
  untie_embeddings,
  disable_bias_linear,
  add_qkv_bias,
  qk_layernorm,
  multi_latent_attention,
  // choices
  normalization,
  position_embedding_type,
  moe_router_score_function,
};

struct ShapeArg {
  std::string_view flag;
  ShapeFlag field;
  bool takes_value;
};

inline constexpr ShapeArg kShapeFlags[] = {
    {"--num-layers", ShapeFlag::num_layers, true},
    {"--hidden-size", ShapeFlag::hidden_size, true},
    {"--ffn-hidden-size", ShapeFlag::ffn_hidden_size, true},
    {"--num-attention-heads", ShapeFlag::num_attention_heads, true},
    {"--num-query-groups", ShapeFlag::num_query_groups, true},
    {"--kv-channels", ShapeFlag::kv_channels, true},
    {"--vocab-size", ShapeFlag::vocab_size, true},
    {"--num-experts", ShapeFlag::num_experts, true},
    {"--moe-router-topk", ShapeFlag::moe_router_topk, true},
    {"--moe-ffn-hidden-size", ShapeFlag::moe_ffn_hidden_size, true},
    {"--moe-shared-expert-intermediate-size", ShapeFlag::moe_shared_expert_size, true},
    {"--moe-layer-freq", ShapeFlag::moe_layer_freq, true},
    {"--moe-expert-capacity-factor", ShapeFlag::moe_capacity_factor, true},
    {"--q-lora-rank", ShapeFlag::q_lora_rank, true},
    {"--kv-lora-rank", ShapeFlag::kv_lora_rank, true},
    {"--qk-head-dim", ShapeFlag::qk_head_dim, true},
    {"--qk-pos-emb-head-dim", ShapeFlag::qk_pos_emb_head_dim, true},
    {"--v-head-dim", ShapeFlag::v_head_dim, true},
    {"--mtp-num-layers", ShapeFlag::mtp_num_layers, true},
    {"--moe-router-num-groups", ShapeFlag::moe_router_num_groups, true},
    {"--moe-router-group-topk", ShapeFlag::moe_router_group_topk, true},
    {"--moe-router-score-function", ShapeFlag::moe_router_score_function, true},
    {"--group-query-attention", ShapeFlag::group_query_attention, false},
    {"--swiglu", ShapeFlag::swiglu, false},
    {"--squared-relu", ShapeFlag::squared_relu, false},
    {"--untie-embeddings-and-output-weights", ShapeFlag::untie_embeddings, false},
    {"--disable-bias-linear", ShapeFlag::disable_bias_linear, false},
    {"--add-qkv-bias", ShapeFlag::add_qkv_bias, false},
    {"--qk-layernorm", ShapeFlag::qk_layernorm, false},
    {"--multi-latent-attention", ShapeFlag::multi_latent_attention, false},
    {"--normalization", ShapeFlag::normalization, true},
    {"--position-embedding-type", ShapeFlag::position_embedding_type, true},
};

//! Flags whose effect distsim does not model but whose absence only makes the step slower than
//! priced (an overlap or a fusion), listed as assumptions; and flags refused outright.
struct NotModelledFlag {
  std::string_view flag;
  std::string_view why;
  bool refused;
};

inline constexpr NotModelledFlag kNotModelledFlags[] = {
    {"--tp-comm-overlap",
     "tensor-parallel communication overlap (userbuffers) is not modelled: its collectives are "
     "priced without overlap",
     false},
    {"--overlap-param-gather",
     "the parameter all-gather's overlap with the next forward is not modelled: it is "
     "priced after the optimizer step",
     false},
    {"--cuda-graph-impl", "CUDA graphs are not modelled: kernels are priced with their launch overheads", false},
    {"--cuda-graph-scope", "CUDA graphs are not modelled: kernels are priced with their launch overheads", false},
    {"--enable-cuda-graph", "CUDA graphs are not modelled: kernels are priced with their launch overheads", false},
    {"--external-cuda-graph", "CUDA graphs are not modelled: kernels are priced with their launch overheads", false},
    {"--moe-grouped-gemm", "the experts' GEMMs are priced as one grouped GEMM, which this flag asks for", false},
    {"--defer-embedding-wgrad-compute", "the embedding's deferred weight gradient is not modelled", false},
    {"--attention-dropout", "dropout is priced as distsim prices it, whatever its probability", false},
    {"--hidden-dropout", "dropout is priced as distsim prices it, whatever its probability", false},
    {"--cpu-offloading", "activation and weight offloading to host memory is not modelled", true},
    {"--fp8-param-gather", "fp8 parameter all-gathers are not modelled", true},
    {"--use-legacy-models", "Megatron-LM's legacy (pre-Core) model is not modelled", true},
    {"--moe-use-upcycling", "upcycling a dense checkpoint is not modelled", true},
};

// Flags that do not change the time of a training step: what is read and written where, logging,
// the learning rate and optimizer hyperparameters, initialisation, data and tokenizer paths.
inline constexpr std::string_view kIgnoredPrefixes[] = {"--log-",
                                                        "--tensorboard-",
                                                        "--wandb-",
                                                        "--lr",
                                                        "--min-lr",
                                                        "--eval-",
                                                        "--save",
                                                        "--load",
                                                        "--data-path",
                                                        "--data-cache-path",
                                                        "--dataloader-",
                                                        "--tokenizer-",
                                                        "--adam-",
                                                        "--exit-",
                                                        "--ckpt-",
                                                        "--seed",
                                                        "--init-",
                                                        "--weight-decay",
                                                        "--clip-grad",
                                                        "--train-",
                                                        "--timing-",
                                                        "--profile",
                                                        "--split",
                                                        "--mock-data",
                                                        "--vocab-file",
                                                        "--merge-file",
                                                        "--num-workers",
                                                        "--distributed-backend",
                                                        "--distributed-timeout",
                                                        "--no-load-",
                                                        "--no-save-",
                                                        "--use-mcore-models",
                                                        "--spec",
                                                        "--rotary-",
                                                        "--use-rotary-",
                                                        "--rope-",
                                                        "--max-position-embeddings",
                                                        "--make-vocab-size-divisible-by",
                                                        "--norm-epsilon",
                                                        "--moe-aux-loss-coeff",
                                                        "--moe-z-loss-coeff",
                                                        "--moe-router-load-balancing-type",
                                                        "--moe-router-dtype",
                                                        "--moe-router-enable-expert-bias",
                                                        "--moe-router-bias-update-rate",
                                                        "--moe-router-topk-scaling-factor",
                                                        "--moe-router-pre-softmax",
                                                        "--manual-gc",
                                                        "--use-checkpoint-",
                                                        "--dist-ckpt-",
                                                        "--attention-softmax-in-fp32",
                                                        "--accumulate-allreduce-grads-in-fp32",
                                                        "--master-addr",
                                                        "--master-port",
                                                        "--master_addr",
                                                        "--master_port",
                                                        "--rdzv",
                                                        "--node-rank",
                                                        "--node_rank",
                                                        "--optimizer",
                                                        "--sgd-",
                                                        "--loss-scale",
                                                        "--initial-loss-scale",
                                                        "--min-loss-scale",
                                                        "--hysteresis",
                                                        "--fp8-amax-",
                                                        "--fp8-margin",
                                                        "--fp8-interval",
                                                        "--apply-layernorm-1p",
                                                        "--use-distributed-checkpointing",
                                                        "--straggler-",
                                                        "--num-dataset-builder-threads",
                                                        "--object-storage-",
                                                        "--moe-per-layer-logging",
                                                        "--no-check-for-nan-in-loss-and-grad",
                                                        "--check-for-",
                                                        "--calculate-per-token-loss",
                                                        "--use-precision-aware-optimizer",
                                                        "--main-grads-dtype",
                                                        "--main-params-dtype",
                                                        "--exp-avg-dtype",
                                                        "--exp-avg-sq-dtype",
                                                        "--override-opt_param-scheduler",
                                                        "--standalone",
                                                        "--max-restarts",
                                                        "--tee",
                                                        "--redirects"};

inline bool is_ignored(const std::string& flag) {
  return std::any_of(std::begin(kIgnoredPrefixes), std::end(kIgnoredPrefixes),
                     [&](std::string_view prefix) { return name_key(flag).rfind(name_key(prefix), 0) == 0; });
}

}  // namespace distsim::io::megatron
