#pragma once

#include <cstdint>

#include "model/model_spec.hpp"

namespace distsim::model {

//! Parameters of one transformer layer with a dense MLP. Biases exist in LayerNorm models (GPT,
//! BERT) and not in RMSNorm models (Llama, T5), but for qkv_bias (Qwen2). A GPT layer has
//! 12h² + 13h (docs/reference/formats.md §6.3).
std::int64_t layer_parameters(const ModelSpec& model, bool with_cross_attention);

//! Parameters of decoder-only layer `layer` (0-based): the dense layer above, or with the model's
//! experts in place of its MLP when moe.is_moe_layer(layer).
std::int64_t layer_parameters_at(const ModelSpec& model, int layer);

//! The weights of one dense transformer layer's linear GEMMs (QKV, attention output, FC1 with
//! SwiGLU's gate, FC2, and the cross-attention projections): layer_parameters without biases and norms.
std::int64_t layer_gemm_weights(const ModelSpec& model, bool with_cross_attention);

//! The self-attention block: Q, K, V and output projections with their biases, the per-head
//! query/key norms (qk_norm), or multi-head latent attention's down/up projections and latent norms.
std::int64_t self_attention_parameters(const ModelSpec& model);

//! The weights of the self-attention block's linear GEMMs: Q, K, V and output, or latent
//! attention's down, up and output projections; self_attention_parameters without biases and norms.
std::int64_t self_attention_gemm_weights(const ModelSpec& model);

//! The parameters of one latent-attention layer that every tensor-parallel rank holds whole:
//! the query and key/value down-projections and the latent norms (Megatron-Core builds them as
//! TELinear with parallel_mode 'duplicated'); 0 without latent attention.
std::int64_t latent_duplicated_parameters(const ModelSpec& model);

//! The GEMM weights (no biases, no norms) of latent_duplicated_parameters: the two down-projections.
std::int64_t latent_duplicated_gemm_weights(const ModelSpec& model);

//! One tensor-parallel rank's share of `parameters`, of which `duplicated` are held whole on
//! every rank and the rest split evenly (floor, as Megatron-LM's shards are).
std::int64_t tensor_rank_parameters(std::int64_t parameters, std::int64_t duplicated, int tensor_parallel);

//! The experts of one MoE layer: every routed and shared expert, and the router's h × E gate.
std::int64_t moe_mlp_parameters(const ModelSpec& model);

//! The routed experts of one MoE layer, which expert parallelism spreads over its ranks.
std::int64_t routed_expert_parameters(const ModelSpec& model);

//! What one token uses of an MoE layer's experts: its top k routed experts, every shared expert,
//! and the router.
std::int64_t active_moe_mlp_parameters(const ModelSpec& model);

//! One multi-token prediction module (DeepSeek-V3, arXiv 2412.19437 §2.2): the norms of the
//! hidden state and of the next token's embedding, the 2h → h projection, one transformer layer
//! and the norm before the output head. The embedding and output head are the main model's.
std::int64_t mtp_module_parameters(const ModelSpec& model);

//! Token embedding plus the learned position table, if any.
std::int64_t embedding_parameters(const ModelSpec& model);

//! The final norm, and the output projection when it is not tied to the embedding.
std::int64_t head_parameters(const ModelSpec& model);

//! Every parameter of the model, the multi-token prediction modules included.
std::int64_t total_parameters(const ModelSpec& model);

//! The parameters one token's forward pass uses: total_parameters with each MoE layer's experts
//! cut to active_moe_mlp_parameters. The embedding table and output head are counted whole, as
//! the published "active" figures do (Mixtral's 12.9B, arXiv 2401.04088 §2, includes them).
std::int64_t active_parameters(const ModelSpec& model);

}  // namespace distsim::model
