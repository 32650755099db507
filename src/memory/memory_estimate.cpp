#include "memory/memory_estimate.hpp"

#include <cmath>

#include "core/input_error.hpp"
#include "events/job_events.hpp"
#include "memory/activation_memory.hpp"
#include "memory/model_state_memory.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::memory {

namespace {

//! One activation (or gradient) tensor crossing the boundary after `last_layer`: [s, b, h] in
//! the job's dtype, [s/t, b, h] with sequence parallelism (docs/reference/formats.md §6.2), s/cp tokens of each
//! sequence with context parallelism. Boundaries inside
//! the decoder of an encoder-decoder model also carry the encoder's output.
std::int64_t boundary_tensor_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy, int last_layer) {
  const bool in_decoder = model.architecture == model::Architecture::encoder_decoder && last_layer >= model.num_layers;
  std::int64_t tokens = in_decoder ? model.target_seq_length() + model.seq_length : model.seq_length;
  tokens = tokens * strategy.micro_batch_size / strategy.context_parallel;
  const std::int64_t bytes = tokens * model.hidden_size * dtype_bytes(strategy.dtype);
  return strategy.sequence_parallel ? (bytes + strategy.tensor_parallel - 1) / strategy.tensor_parallel : bytes;
}

//! Each boundary a stage has carries activations forward and gradients backward. With
//! interleaving the pipeline wraps around (stage p − 1's chunk feeds stage 0's next chunk), so
//! every stage has both neighbours.
std::int64_t pipeline_buffer_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy, int stage) {
  const int stages = strategy.pipeline_parallel;
  if (stages == 1) {
    return 0;
  }
  const bool wraps = strategy.virtual_stages > 1;
  const events::LayerRange layers = events::stage_layers(model.total_layers(), stages, stage);
  constexpr std::int64_t kDirections = 2;
  std::int64_t total = 0;
  if (stage > 0 || wraps) {
    total += kDirections * kBuffersPerDirection * boundary_tensor_bytes(model, strategy, layers.first - 1);
  }
  if (stage < stages - 1 || wraps) {
    total +=
        kDirections * kBuffersPerDirection * boundary_tensor_bytes(model, strategy, layers.first + layers.count - 1);
  }
  return total;
}

StageMemory stage_memory(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule, int stage) {
  const auto& model = job.model;
  const auto& strategy = job.strategy;
  StageMemory memory;
  memory.stage = stage;
  memory.parameters = stage_parameters(model, strategy, stage);
  const ModelStateBytes state = model_state_bytes(memory.parameters, strategy.dtype, strategy.distributed_optimizer,
                                                  strategy.gradient_group_size());
  memory.weights = state.weights + low_precision_weight_copy_bytes(model, strategy, stage);
  memory.gradients = state.gradients;
  memory.optimizer_states = state.optimizer_states;
  memory.microbatches_in_flight = schedule.microbatches_in_flight(stage, strategy.pipeline_parallel,
                                                                  strategy.num_microbatches(), strategy.virtual_stages);
  memory.activations = stage_activation_bytes(model, strategy, stage, schedule);
  memory.pipeline_buffers = pipeline_buffer_bytes(model, strategy, stage);
  const auto churning = static_cast<double>(memory.activations + memory.pipeline_buffers);
  memory.overhead = kFrameworkReserveBytes + std::llround(kFragmentationFraction * churning);
  return memory;
}

}  // namespace

const StageMemory& MemoryEstimate::peak() const {
  if (stages.empty()) {
    throw InternalError("memory estimate without stages");
  }
  const StageMemory* best = &stages.front();
  for (const auto& stage : stages) {
    if (stage.total() > best->total()) {
      best = &stage;
    }
  }
  return *best;
}

int MemoryEstimate::stages_over_capacity() const {
  int count = 0;
  for (const auto& stage : stages) {
    count += stage.total() > capacity ? 1 : 0;
  }
  return count;
}

MemoryEstimate estimate_memory(const strategy::JobSpec& job) {
  return estimate_memory(job, schedule::find_schedule(job.strategy.schedule));
}

MemoryEstimate estimate_memory(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule) {
  MemoryEstimate estimate;
  for (int stage = 0; stage < job.strategy.pipeline_parallel; ++stage) {
    estimate.stages.push_back(stage_memory(job, schedule, stage));
  }
  estimate.capacity = std::llround(job.cluster.gpu.memory_gb * static_cast<double>(std::int64_t{1} << 30));
  return estimate;
}

}  // namespace distsim::memory
