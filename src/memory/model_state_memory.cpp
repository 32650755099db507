#include "memory/model_state_memory.hpp"

#include <cmath>

#include "events/job_events.hpp"
#include "model/parameter_count.hpp"

namespace distsim::memory {

namespace {

//! Bytes per parameter, with the part that the distributed optimizer shards kept apart.
struct PerParameter {
  int weights = 0;
  int gradients = 0;
  int optimizer_states = 0;
};

PerParameter per_parameter(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return {4, 4, 8};
    case Dtype::fp16: return {2, 2, 16};
    case Dtype::bf16:
    case Dtype::fp8:
    case Dtype::mxfp8:
    case Dtype::nvfp4: return {2, 4, 12};
  }
  return {2, 4, 12};
}

std::int64_t ceil_div(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

}  // namespace

ModelStateBytes model_state_bytes(std::int64_t parameters, Dtype dtype, bool distributed_optimizer, int data_parallel) {
  const PerParameter bytes = per_parameter(dtype);
  const std::int64_t shards = distributed_optimizer ? data_parallel : 1;
  return {parameters * bytes.weights, parameters * bytes.gradients,
          ceil_div(parameters * bytes.optimizer_states, shards)};
}

bool layer_in_low_precision(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer) {
  return strategy.low_precision_gemms() && layer >= strategy.bf16_layers_at_start &&
         layer < model.total_layers() - strategy.bf16_layers_at_end;
}

std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             int stage) {
  if (!strategy.low_precision_gemms()) {
    return 0;
  }
  const events::LayerRange layers = events::stage_layers(model.total_layers(), strategy.pipeline_parallel, stage);
  std::int64_t weights = 0;
  for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
    if (!layer_in_low_precision(model, strategy, layer)) {
      continue;
    }
    const bool cross_attention =
        model.architecture == model::Architecture::encoder_decoder && layer >= model.num_layers;
    weights += model::layer_gemm_weights(model, cross_attention);
  }
  constexpr double kCopies = 2;  // the weight for forward and the copy the input-gradient GEMM reads
  const double bytes = storage_bytes(strategy::gemm_dtype(strategy.gemm_format, strategy.dtype));
  return std::llround(kCopies * bytes * static_cast<double>(weights) / strategy.tensor_parallel);
}

std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage) {
  const int stages = strategy.pipeline_parallel;
  const int tp = strategy.tensor_parallel;
  const events::LayerRange layers = events::stage_layers(model.total_layers(), stages, stage);
  std::int64_t total = 0;
  for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
    const bool cross_attention =
        model.architecture == model::Architecture::encoder_decoder && layer >= model.num_layers;
    total += model::layer_parameters(model, cross_attention);
  }
  // Megatron allocates the vocabulary-parallel table at its padded size.
  const std::int64_t table = events::padded_vocab(model.vocab_size, tp) * model.hidden_size;
  const std::int64_t unpadded_table = static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;
  const bool first = stage == 0;
  const bool last = stage == stages - 1;
  if (first) {
    total += model::embedding_parameters(model) - unpadded_table + table;
  }
  if (last) {
    total += model::head_parameters(model);
    if (!model.tie_embeddings) {
      total += table - unpadded_table;
    } else if (!first) {
      total += table;  // the last stage's own copy of the tied table
    }
  }
  return total / tp;
}

}  // namespace distsim::memory
