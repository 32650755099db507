#include "memory/model_state_memory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/checked_arithmetic.hpp"
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

}  // namespace

ModelStateBytes model_state_bytes(std::int64_t parameters, Dtype dtype, strategy::Sharding sharding, int shard_group) {
  using strategy::Sharding;
  const PerParameter bytes = per_parameter(dtype);
  const auto shards_at = [&](Sharding from) -> std::int64_t { return sharding >= from ? shard_group : 1; };
  return {ceil_div(parameters * bytes.weights, shards_at(Sharding::full)),
          ceil_div(parameters * bytes.gradients, shards_at(Sharding::gradients)),
          ceil_div(parameters * bytes.optimizer_states, shards_at(Sharding::optimizer))};
}

std::int64_t checkpoint_bytes(const model::ModelSpec& model, Dtype dtype) {
  const PerParameter bytes = per_parameter(dtype);
  constexpr int kFp32MasterGradientBytes = 4;  // part of fp16's optimizer states, rebuilt each step
  const int saved = bytes.weights + bytes.optimizer_states - (dtype == Dtype::fp16 ? kFp32MasterGradientBytes : 0);
  return checked_product({model::total_parameters(model), saved}).value_or(std::numeric_limits<std::int64_t>::max());
}

ModelStateBytes gathered_unit_bytes(std::int64_t largest_unit, Dtype dtype) {
  const PerParameter bytes = per_parameter(dtype);
  constexpr std::int64_t kGatheredUnits = 2;  // the running unit and the prefetched next one
  return {kGatheredUnits * largest_unit * bytes.weights, largest_unit * bytes.gradients, 0};
}

std::int64_t largest_unit_parameters(const model::ModelSpec& model, const std::vector<events::ChunkPlacement>& chunks,
                                     int tensor_parallel) {
  std::int64_t largest = 0;
  for (const auto& chunk : chunks) {
    for (const auto& unit : events::fsdp_units(model, chunk.layers, chunk.embedding, chunk.head)) {
      largest = std::max(largest, unit.rank_parameters(tensor_parallel));
    }
  }
  return largest;
}

namespace {

std::vector<events::LayerRange> even_stage_layers(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                                  int stage) {
  return {events::stage_layers(model.total_layers(), strategy.pipeline_parallel, stage)};
}

//! The routed experts' share one rank holds: E/ep of them, each split over etp (Megatron-Core MoE
//! parallel folding).
double expert_share(const strategy::Strategy& strategy) {
  return static_cast<double>(strategy.expert_parallel * strategy.expert_tensor_parallel);
}

}  // namespace

bool layer_in_low_precision(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer) {
  return strategy.layer_in_low_precision(layer, model.total_layers());
}

std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             int stage) {
  return low_precision_weight_copy_bytes(model, strategy, even_stage_layers(model, strategy, stage));
}

std::int64_t low_precision_weight_copy_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                             const std::vector<events::LayerRange>& chunks) {
  if (!strategy.low_precision_gemms()) {
    return 0;
  }
  const auto [low_first, low_end] = strategy.low_precision_layers(model.total_layers());
  model::ParameterSums weights;
  for (const auto& layers : chunks) {
    const int first = std::max(layers.first, low_first);
    const int end = std::min(layers.first + layers.count, low_end);
    if (first < end) {
      weights += model::layers_parameter_sums(model, first, end - first);
    }
  }
  constexpr double kCopies = 2;  // the weight for forward and the copy the input-gradient GEMM reads
  const double bytes = storage_bytes(strategy::gemm_dtype(strategy.gemm_format, strategy.dtype));
  const double rank_weights = static_cast<double>(weights.low_precision_tensor) / strategy.tensor_parallel +
                              static_cast<double>(weights.low_precision_duplicated);
  return std::llround(kCopies * bytes *
                      (rank_weights + static_cast<double>(weights.low_precision_expert) / expert_share(strategy)));
}

std::int64_t stage_expert_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage) {
  return stage_expert_parameters(model, strategy, even_stage_layers(model, strategy, stage));
}

std::int64_t stage_expert_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                     const std::vector<events::LayerRange>& chunks) {
  std::int64_t total = 0;
  for (const auto& layers : chunks) {
    total += model::layers_parameter_sums(model, layers.first, layers.count).expert;
  }
  return total / (std::int64_t{strategy.expert_parallel} * strategy.expert_tensor_parallel);
}

std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage) {
  const events::LayerRange layers = even_stage_layers(model, strategy, stage).front();
  events::ChunkPlacement chunk;
  chunk.layers = layers;
  chunk.embedding = layers.first == 0;
  chunk.head = layers.first + layers.count == model.total_layers();
  return stage_parameters(model, strategy, std::vector<events::ChunkPlacement>{chunk});
}

std::int64_t stage_parameters(const model::ModelSpec& model, const strategy::Strategy& strategy,
                              const std::vector<events::ChunkPlacement>& chunks) {
  const int tp = strategy.tensor_parallel;
  std::int64_t total = 0;
  std::int64_t duplicated = 0;  // whole on every tensor-parallel rank
  bool first = false;
  bool last = false;
  std::vector<events::LayerRange> ranges;
  for (const auto& chunk : chunks) {
    const events::LayerRange& layers = chunk.layers;
    ranges.push_back(layers);
    const model::ParameterSums parameters = model::layers_parameter_sums(model, layers.first, layers.count);
    total += parameters.dense();  // the routed experts are stage_expert_parameters
    duplicated += parameters.duplicated;
    first = first || chunk.embedding;
    last = last || chunk.head;
  }
  if (last && model.mtp_layers > 0) {  // the MTP modules run with the head
    const model::ParameterSums module = model::mtp_module_parameter_sums(model);
    ranges.push_back({model.num_layers, model.mtp_layers});
    total += model.mtp_layers * module.dense();
    duplicated += model.mtp_layers * module.duplicated;
  }
  // Megatron allocates the vocabulary-parallel table at its padded size.
  const std::int64_t table = events::padded_vocab(model.vocab_size, tp) * model.hidden_size;
  const std::int64_t unpadded_table = static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;
  if (first) {
    total += model::embedding_parameters(model) - unpadded_table + table;
  }
  if (last) {
    total += model::head_parameters(model);
    if (!model.tie_embeddings) {
      total += table - unpadded_table;
    }
    // The last stage's own copy of the table: the tied head's, or the one MTP looks tokens up in.
    if ((model.tie_embeddings || model.mtp_layers > 0) && !first) {
      total += table;
    }
  }
  return model::tensor_rank_parameters(total, duplicated, tp) + stage_expert_parameters(model, strategy, ranges);
}

}  // namespace distsim::memory
