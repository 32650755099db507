#include "model/parameter_count.hpp"

namespace distsim::model {

namespace {

//! Every transformer layer's parameters; with `active_only`, each cut to its active part.
std::int64_t sum_of_layers(const ModelSpec& model, bool active_only) {
  std::int64_t total = 0;
  for (int layer = 0; layer < model.total_layers(); ++layer) {
    const ParameterSums sums = layer_parameter_sums(model, layer);
    total += active_only ? active_part(model, sums) : sums.total();
  }
  return total;
}

}  // namespace

std::int64_t tensor_rank_parameters(std::int64_t parameters, std::int64_t duplicated, int tensor_parallel) {
  return (parameters - duplicated) / tensor_parallel + duplicated;
}

std::int64_t active_part(const ModelSpec& model, const ParameterSums& sums) {
  if (sums.expert == 0) {
    return sums.total();
  }
  return sums.dense() + sums.expert / model.moe.num_experts * model.moe.top_k;
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
  std::int64_t total = (model.norm == NormType::layernorm ? 2 : 1) * std::int64_t{model.hidden_size};
  if (!model.tie_embeddings) {
    total += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;
  }
  return total;
}

std::int64_t total_parameters(const ModelSpec& model) {
  return embedding_parameters(model) + head_parameters(model) + sum_of_layers(model, false) +
         model.mtp_layers * mtp_module_parameter_sums(model).total();
}

std::int64_t active_parameters(const ModelSpec& model) {
  return embedding_parameters(model) + head_parameters(model) + sum_of_layers(model, true) +
         model.mtp_layers * active_part(model, mtp_module_parameter_sums(model));
}

}  // namespace distsim::model
