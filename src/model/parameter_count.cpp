#include "model/parameter_count.hpp"

#include <vector>

namespace distsim::model {

namespace {

bool has_biases(const ModelSpec& model) { return model.has_linear_biases(); }

//! A norm over `size` elements: a scale, and a shift with LayerNorm.
std::int64_t norm_of(const ModelSpec& model, std::int64_t size) {
  return (model.norm == NormType::layernorm ? 2 : 1) * size;
}

std::int64_t norm_parameters(const ModelSpec& model) { return norm_of(model, model.hidden_size); }

//! A linear layer in → out, with its bias when the model has biases.
std::int64_t linear(const ModelSpec& model, std::int64_t in, std::int64_t out) {
  return in * out + (has_biases(model) ? out : 0);
}

//! An MLP of the model's type with FFN size `ffn`: FC1 (with SwiGLU's gate) and FC2.
std::int64_t mlp(const ModelSpec& model, std::int64_t ffn) {
  const std::int64_t up = is_gated(model.ffn_type) ? 2 * ffn : ffn;
  return linear(model, model.hidden_size, up) + linear(model, ffn, model.hidden_size);
}

//! The gating linear layer, with a bias per expert when the model has linear biases (GPT-OSS's
//! router is a biased linear layer: Hugging Face GptOssTopKRouter).
std::int64_t router(const ModelSpec& model) { return linear(model, model.hidden_size, model.moe.num_experts); }

std::int64_t shared_experts(const ModelSpec& model) {
  return model.moe.shared_experts * mlp(model, model.moe.shared_expert_ffn_hidden_size);
}

//! One linear layer of latent attention, in → out; `duplicated`: every tensor-parallel rank holds
//! it whole (Megatron-Core builds the down-projections as TELinear with parallel_mode 'duplicated').
struct LatentLinear {
  std::int64_t in = 0;
  std::int64_t out = 0;
  bool duplicated = false;
};

//! DeepSeek-V2 §2.1.2-2.1.3: c_Q = W_DQ·h (q_lora_rank), normed, q = W_UQ·c_Q over heads × (nope +
//! rope); [c_KV; k_R] = W_DKV·h (kv_lora_rank + one shared RoPE key), c_KV normed, [k_C; v] =
//! W_UKV·c_KV over heads × (nope + v); output heads × v → h. Without a query latent W_Q is h → q.
std::vector<LatentLinear> latent_linears(const ModelSpec& model) {
  const MlaSpec& mla = model.mla;
  const std::int64_t h = model.hidden_size;
  const std::int64_t heads = model.num_attention_heads;
  const std::int64_t q_out = heads * mla.qk_head_dim();
  std::vector<LatentLinear> linears;
  if (mla.q_lora_rank > 0) {
    linears.push_back({h, mla.q_lora_rank, true});
    linears.push_back({mla.q_lora_rank, q_out, false});
  } else {
    linears.push_back({h, q_out, false});
  }
  linears.push_back({h, mla.kv_lora_rank + mla.qk_rope_head_dim, true});
  linears.push_back({mla.kv_lora_rank, heads * (mla.qk_nope_head_dim + mla.v_head_dim), false});
  linears.push_back({heads * mla.v_head_dim, h, false});
  return linears;
}

//! The norms over the query and key/value latents, which every tensor-parallel rank holds whole.
std::int64_t latent_norm_parameters(const ModelSpec& model) {
  return norm_of(model, model.mla.kv_lora_rank) +
         (model.mla.q_lora_rank > 0 ? norm_of(model, model.mla.q_lora_rank) : 0);
}

//! The latent-attention linear layers' parameters (with their biases) or GEMM weights (without),
//! all of them or only the duplicated ones.
std::int64_t sum_of_latent_linears(const ModelSpec& model, bool duplicated_only, bool with_biases) {
  std::int64_t total = 0;
  for (const LatentLinear& layer : latent_linears(model)) {
    if (!duplicated_only || layer.duplicated) {
      total += with_biases ? linear(model, layer.in, layer.out) : layer.in * layer.out;
    }
  }
  return total;
}

std::int64_t latent_attention_parameters(const ModelSpec& model) {
  return sum_of_latent_linears(model, false, true) + latent_norm_parameters(model);
}

//! One transformer layer whose MLP has `mlp_parameters`.
std::int64_t layer_with_mlp(const ModelSpec& model, std::int64_t mlp_parameters) {
  return self_attention_parameters(model) + mlp_parameters + 2 * norm_parameters(model);
}

std::int64_t sum_of_layers(const ModelSpec& model, bool active_only) {
  std::int64_t total = 0;
  for (int layer = 0; layer < model.num_layers; ++layer) {
    if (active_only && model.moe.is_moe_layer(layer)) {
      total += layer_with_mlp(model, active_moe_mlp_parameters(model));
    } else {
      total += layer_parameters_at(model, layer);
    }
  }
  return total + model.decoder_num_layers * layer_parameters(model, true);
}

}  // namespace

std::int64_t latent_duplicated_parameters(const ModelSpec& model) {
  if (!model.mla.enabled()) {
    return 0;
  }
  return sum_of_latent_linears(model, true, true) + latent_norm_parameters(model);
}

std::int64_t latent_duplicated_gemm_weights(const ModelSpec& model) {
  return model.mla.enabled() ? sum_of_latent_linears(model, true, false) : 0;
}

std::int64_t tensor_rank_parameters(std::int64_t parameters, std::int64_t duplicated, int tensor_parallel) {
  return (parameters - duplicated) / tensor_parallel + duplicated;
}

std::int64_t self_attention_parameters(const ModelSpec& model) {
  if (model.mla.enabled()) {
    return latent_attention_parameters(model);
  }
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
  std::int64_t total = linear(model, h, q + 2 * kv) + linear(model, q, h);
  if (model.qkv_bias && !has_biases(model)) {
    total += q + 2 * kv;
  }
  if (model.qk_norm) {
    total += 2 * norm_of(model, model.head_dim());  // one scale for all query heads, one for all key heads
  }
  if (model.attention_sinks) {
    total += model.num_attention_heads;  // one learned logit per query head
  }
  return total;
}

std::int64_t layer_parameters(const ModelSpec& model, bool with_cross_attention) {
  std::int64_t total = layer_with_mlp(model, mlp(model, model.ffn_hidden_size));
  if (with_cross_attention) {
    const std::int64_t h = model.hidden_size;
    const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
    const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
    total += linear(model, h, q) + linear(model, h, 2 * kv) + linear(model, q, h) + norm_parameters(model);
  }
  return total;
}

std::int64_t layer_parameters_at(const ModelSpec& model, int layer) {
  if (model.moe.is_moe_layer(layer)) {
    return layer_with_mlp(model, moe_mlp_parameters(model));
  }
  return layer_parameters(model, false);
}

std::int64_t self_attention_gemm_weights(const ModelSpec& model) {
  if (model.mla.enabled()) {
    return sum_of_latent_linears(model, false, false);
  }
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
  return h * (q + 2 * kv) + q * h;
}

std::int64_t layer_gemm_weights(const ModelSpec& model, bool with_cross_attention) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
  const std::int64_t up = is_gated(model.ffn_type) ? 2 * model.ffn_hidden_size : model.ffn_hidden_size;
  std::int64_t total = self_attention_gemm_weights(model) + h * up + model.ffn_hidden_size * h;
  if (with_cross_attention) {
    total += h * q + h * 2 * kv + q * h;
  }
  return total;
}

std::int64_t moe_mlp_parameters(const ModelSpec& model) {
  return model.moe.num_experts * mlp(model, model.moe.expert_ffn_hidden_size) + shared_experts(model) + router(model);
}

std::int64_t routed_expert_parameters(const ModelSpec& model) {
  return model.moe.num_experts * mlp(model, model.moe.expert_ffn_hidden_size);
}

std::int64_t active_moe_mlp_parameters(const ModelSpec& model) {
  return model.moe.top_k * mlp(model, model.moe.expert_ffn_hidden_size) + shared_experts(model) + router(model);
}

std::int64_t mtp_module_parameters(const ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  return 3 * norm_parameters(model) + linear(model, 2 * h, h) + layer_parameters_at(model, model.num_layers);
}

std::int64_t embedding_parameters(const ModelSpec& model) {
  const std::int64_t h = model.hidden_size;
  std::int64_t total = static_cast<std::int64_t>(model.vocab_size) * h;
  if (model.position_embedding == PositionEmbedding::learned) {
    total += static_cast<std::int64_t>(model.seq_length) * h;
  }
  return total;
}

std::int64_t head_parameters(const ModelSpec& model) {
  std::int64_t total = norm_parameters(model);
  if (!model.tie_embeddings) {
    total += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;
  }
  return total;
}

std::int64_t total_parameters(const ModelSpec& model) {
  return embedding_parameters(model) + head_parameters(model) + sum_of_layers(model, false) +
         model.mtp_layers * mtp_module_parameters(model);
}

std::int64_t active_parameters(const ModelSpec& model) {
  std::int64_t mtp = 0;
  if (model.mtp_layers > 0) {
    const std::int64_t full = mtp_module_parameters(model);
    mtp = model.moe.is_moe_layer(model.num_layers) ? full - moe_mlp_parameters(model) + active_moe_mlp_parameters(model)
                                                   : full;
    mtp *= model.mtp_layers;
  }
  return embedding_parameters(model) + head_parameters(model) + sum_of_layers(model, true) + mtp;
}

}  // namespace distsim::model
