#pragma once

// The Megatron-Bridge field tables of bridge_config_reader.cpp (internal to src/io/spec).

#include <string_view>

namespace distsim::io::bridge {

// Megatron-Bridge's ConfigContainer (megatron/bridge/training/config.py) in Megatron-LM's terms. A
// field `section.name` is the argument `--name` (Bridge's guide, docs/megatron-lm-to-megatron-
// bridge.md, "Mapping Megatron-LM arguments to Megatron Bridge config"); the tables list only what
// that rule does not say.

//! The sections read field by field, in the order Bridge applies them (runtime_config_update): a
//! field a later section gives too is the later one's (mixed_precision and comm_overlap are applied
//! onto the model and ddp; the model's sequence length is the dataset's).
inline constexpr std::string_view kReadSections[] = {"checkpoint",      "optimizer",   "tokenizer", "dist",
                                                     "train",           "ddp",         "model",     "dataset",
                                                     "mixed_precision", "comm_overlap"};

//! Sections that change no step's time.
inline constexpr std::string_view kIgnoredSections[] = {
    "logger",    "rng", "scheduler",      "profiling",         "rerun_state_machine",
    "straggler", "ft",  "nvrx_straggler", "inprocess_restart", "tensor_inspect"};

//! A field whose argument has another name. With `when` "true" or "false" the field is a yes/no
//! that gives the argument (a switch) at that value and nothing at the other; with `when` empty the
//! field's value is the argument's.
struct RenamedField {
  std::string_view field;
  std::string_view flag;
  std::string_view when = "";
};

inline constexpr RenamedField kRenamedFields[] = {
    {"share_embeddings_and_output_weights", "--untie-embeddings-and-output-weights", "false"},
    {"add_bias_linear", "--disable-bias-linear", "false"},
    {"num_moe_experts", "--num-experts"},
    {"layernorm_epsilon", "--norm-epsilon"},
    {"fp8", "--fp8-format"},
    {"fp4", "--fp4-format"},
    {"fp8_param", "--fp8-param-gather", "true"},
    {"num_layers_in_first_pipeline_stage", "--decoder-first-pipeline-num-layers"},
    {"num_layers_in_last_pipeline_stage", "--decoder-last-pipeline-num-layers"},
    {"sequence_length", "--seq-length"},
    {"seq_len_interpolation_factor", "--rotary-seq-len-interpolation-factor"},
    {"bucket_size", "--ddp-bucket-size"},
    {"grad_reduce_in_fp32", "--accumulate-allreduce-grads-in-fp32", "true"},
};

//! Fields that mean something only when another field (any of `parents`, '|'-separated) is set:
//! fp8_recipe beside fp8, the userbuffers settings beside tp_comm_overlap. A field is one of them
//! when its name starts with `prefix` and it is not a parent itself.
struct DependentFields {
  std::string_view prefix;
  std::string_view parents;
};

inline constexpr DependentFields kDependentFields[] = {
    {"fp8_", "fp8"},
    {"fp4_", "fp4"},
    {"tp_comm_", "tp_comm_overlap"},
    {"moe_", "num_moe_experts"},
    {"mamba_", "is_hybrid_model"},
    {"use_mamba_", "is_hybrid_model"},
    {"cuda_graph_", "enable_cuda_graph|external_cuda_graph|cuda_graph_impl"},
    {"cpu_offloading_", "cpu_offloading"},
    {"mtp_", "mtp_num_layers"},
    {"recompute_", "recompute_granularity"},
    {"pin_cpu_", "optimizer_cpu_offload"},
    {"optimizer_offload_", "optimizer_cpu_offload"},
    {"use_torch_optimizer_for_cpu_offload", "optimizer_cpu_offload"},
    {"overlap_cpu_optimizer_", "optimizer_cpu_offload"},
    {"data_parallel_sharding_strategy", "use_megatron_fsdp"},
    {"outer_dp_sharding_strategy", "use_megatron_fsdp"},
    {"fsdp_", "use_megatron_fsdp"},
    {"keep_fp8_transpose_cache", "use_megatron_fsdp"},
    {"wgrad_deferral_limit", "defer_embedding_wgrad_compute"},
    {"microbatch_group_size_per_vp_stage", "virtual_pipeline_model_parallel_size"},
    {"q_lora_rank", "multi_latent_attention"},
    {"kv_lora_rank", "multi_latent_attention"},
    {"qk_head_dim", "multi_latent_attention"},
    {"qk_pos_emb_head_dim", "multi_latent_attention"},
    {"v_head_dim", "multi_latent_attention"},
    {"preserve_fp32_weights", "fp8_param_gather|fp8_param"},
    {"num_layers_at_", "first_last_layers_bf16"},
};

//! Bridge's own fields (not Megatron-LM arguments) that change no step's time: hooks and objects
//! Bridge fills in at run time, initialisation, data types the precision flags already decide,
//! RoPE's frequency scaling, inference and checkpoint conversion.
inline constexpr std::string_view kIgnoredFields[] = {
    "_target_",
    "autocast_dtype",
    "autocast_enabled",
    "enable_autocast",
    "params_dtype",
    "pipeline_dtype",
    "timers",
    "finalize_model_grads_func",
    "grad_scale_func",
    "grad_sync_func",
    "no_sync_func",
    "param_sync_func",
    "generation_config",
    "transformer_layer_spec",
    "embedding_init_method",
    "embedding_init_method_std",
    "output_layer_init_method",
    "perform_initialization",
    "use_cpu_initialization",
    "init_model_with_meta_device",
    "config_logger_dir",
    "barrier_with_L1_time",
    "batch_p2p_comm",
    "batch_p2p_sync",
    "deallocate_pipeline_outputs",
    "clone_scatter_output_in_embedding",
    "scatter_embedding_sequence_parallel",
    "parallel_output",
    "variable_seq_lengths",
    "should_pad_vocab",
    "high_freq_factor",
    "low_freq_factor",
    "old_context_len",
    "scale_factor",
    "rotary_scaling_factor",
    "mscale",
    "mscale_all_dim",
    "beta_fast",
    "beta_slow",
    "original_max_position_embeddings",
    "inference_sampling_seed",
    "inference_rng_tracker",
    "flash_decode",
    "mlp_chunks_for_prefill",
    "test_mode",
    "hetereogenous_dist_checkpoint",
    "restore_modelopt_state",
    "use_te_rng_tracker",
    "te_rng_tracker",
    "mtp_enabled",
    "align_grad_reduce",
    "align_param_gather",
    "average_in_collective",
    "use_gloo_process_groups",
    "local_rank",
    "lazy_init",
    "store_param_remainders",
    "empty_unused_memory_level",
    "data_parallel_size",
    "vocab_extra_ids",
    "glu_linear_offset",
    "decoupled_weight_decay",
    "decoupled_lr",
    "decoupled_min_lr",
};

//! Bridge's own fields distsim does not model: at a value other than `modelled` ("" for unset) a
//! field is refused, or listed as an assumption when its absence only makes the step slower than
//! priced (an overlap).
struct NotModelledField {
  std::string_view field;
  std::string_view why;
  bool refused;
  std::string_view modelled = "";
};

inline constexpr NotModelledField kNotModelledFields[] = {
    {"overlap_p2p_comm",
     "the interleaved schedule's early pipeline receives are not modelled: each transfer is priced when the "
     "schedule's dependencies order it",
     false},
    {"overlap_p2p_comm_warmup_flush",
     "the interleaved schedule's early pipeline receives are not modelled: each transfer is priced when the "
     "schedule's dependencies order it",
     false},
    {"overlap_param_gather_with_optimizer_step",
     "the first parameter all-gather's overlap with the optimizer step is not modelled", false},
    {"use_sharp",
     "SHARP in-network reductions are not modelled: the data-parallel collectives are priced as NCCL's rings and "
     "trees",
     false},
    {"nccl_ub", "NCCL user buffers (zero-copy collectives) are not modelled", false},
    {"optimizer_cpu_offload", "the optimizer on the host (CPU offload) is not modelled", true},
    {"is_hybrid_model", "hybrid Mamba models are not modelled", true},
    {"heterogeneous_block_specs", "layers of different structures (heterogeneous block specs) are not modelled", true},
    {"softmax_type", "a softmax other than vanilla (off-by-one, learnable) is not modelled", true, "vanilla"},
    {"num_distributed_optimizer_instances",
     "several distributed-optimizer instances (a partial distributed optimizer) are not modelled", true, "1"},
    {"use_tp_pp_dp_mapping", "ranks ordered tp-pp-dp are not modelled: distsim orders them tp-cp-dp-pp", true},
};

//! The activation a model's `activation_func` names (`_target_: torch.nn.functional.silu`), by the
//! last part of its name; with gated_linear_unit the gated form (SwiGLU, GeGLU).
struct Activation {
  std::string_view function;
  std::string_view ffn;
  std::string_view gated_ffn;
};

inline constexpr Activation kActivations[] = {
    {"gelu", "gelu", "geglu"}, {"fast_gelu", "gelu", "geglu"}, {"openai_gelu", "gelu", "geglu"},
    {"silu", "", "swiglu"},    {"relu", "relu", ""},           {"squared_relu", "squared_relu", ""},
};

//! Megatron-Core's AttnBackend enum (megatron/core/transformer/enums.py) by value, as Bridge writes
//! it (`_target_: ...AttnBackend`, `_args_: [5]`): --attention-backend's words.
inline constexpr std::string_view kAttentionBackends[] = {"", "flash", "fused", "unfused", "local", "auto"};

}  // namespace distsim::io::bridge
