#include "model/parameter_count.hpp"

namespace distsim::model {

namespace {

bool has_biases(const ModelSpec& model) { return model.norm == NormType::layernorm; }

std::int64_t norm_parameters(const ModelSpec& model) {
  return (has_biases(model) ? 2 : 1) * static_cast<std::int64_t>(model.hidden_size);
}

//! A linear layer in → out, with its bias when the model has biases.
std::int64_t linear(const ModelSpec& model, std::int64_t in, std::int64_t out) {
  return in * out + (has_biases(model) ? out : 0);
}

}  // namespace

std::int64_t layer_parameters(const ModelSpec& model, bool with_cross_attention) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
  const std::int64_t up = model.ffn_type == FfnType::swiglu ? 2 * model.ffn_hidden_size : model.ffn_hidden_size;
  std::int64_t total = linear(model, h, q + 2 * kv) + linear(model, q, h);
  total += linear(model, h, up) + linear(model, model.ffn_hidden_size, h);
  total += 2 * norm_parameters(model);
  if (with_cross_attention) {
    total += linear(model, h, q) + linear(model, h, 2 * kv) + linear(model, q, h) + norm_parameters(model);
  }
  return total;
}

std::int64_t layer_gemm_weights(const ModelSpec& model, bool with_cross_attention) {
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim();
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim();
  const std::int64_t up = model.ffn_type == FfnType::swiglu ? 2 * model.ffn_hidden_size : model.ffn_hidden_size;
  std::int64_t total = h * (q + 2 * kv) + q * h + h * up + model.ffn_hidden_size * h;
  if (with_cross_attention) {
    total += h * q + h * 2 * kv + q * h;
  }
  return total;
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
  std::int64_t total = embedding_parameters(model) + head_parameters(model);
  total += model.num_layers * layer_parameters(model, false);
  total += model.decoder_num_layers * layer_parameters(model, true);
  return total;
}

}  // namespace distsim::model
