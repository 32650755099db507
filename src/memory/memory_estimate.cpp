#include "memory/memory_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "core/input_error.hpp"
#include "events/job_events.hpp"
#include "memory/activation_memory.hpp"
#include "memory/model_state_memory.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/gpu_placement.hpp"

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

//! Each side of a stage that exchanges tensors with another stage carries activations one way and
//! gradients the other: the side its chunks receive activations on and the side they send them
//! on. With interleaving the pipeline wraps around (stage p − 1's chunk feeds stage 0's next
//! chunk), and in a V the second chunk comes back, so every stage has both sides.
std::int64_t pipeline_buffer_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                   const std::vector<events::ChunkPlacement>& chunks) {
  constexpr std::int64_t kDirections = 2;
  std::int64_t total = 0;
  for (const auto& chunk : chunks) {
    if (chunk.receives_from) {
      total += kDirections * kBuffersPerDirection * boundary_tensor_bytes(model, strategy, chunk.layers.first - 1);
      break;
    }
  }
  for (const auto& chunk : chunks) {
    if (chunk.sends_to) {
      const int last_layer = chunk.layers.first + chunk.layers.count - 1;
      total += kDirections * kBuffersPerDirection * boundary_tensor_bytes(model, strategy, last_layer);
      break;
    }
  }
  return total;
}

StageMemory stage_memory(const strategy::JobSpec& job, int stage, const std::vector<events::ChunkPlacement>& chunks,
                         double microbatches_in_flight) {
  const auto& model = job.model;
  const auto& strategy = job.strategy;
  StageMemory memory;
  memory.stage = stage;
  std::vector<events::LayerRange> layers;
  layers.reserve(chunks.size());
  for (const auto& chunk : chunks) {
    layers.push_back(chunk.layers);
    if (chunk.head && model.mtp_layers > 0) {  // the MTP modules' layers run with the head
      layers.push_back({model.num_layers, model.mtp_layers});
    }
  }
  memory.parameters = stage_parameters(model, strategy, chunks);
  // A sharded optimizer shards dense states over the shard group (dp x cp unless HSDP) and the
  // routed experts' over the expert data-parallel ranks that hold the same experts.
  const std::int64_t experts = stage_expert_parameters(model, strategy, layers);
  const ModelStateBytes dense = model_state_bytes(memory.parameters - experts, strategy.dtype, strategy.zero_stage(),
                                                  strategy.shard_group_size());
  const ModelStateBytes expert =
      model_state_bytes(experts, strategy.dtype, strategy.zero_stage(), strategy.expert_data_parallel());
  ModelStateBytes gathered;
  if (strategy.reduces_per_unit()) {
    gathered = gathered_unit_bytes(largest_unit_parameters(model, chunks, strategy.tensor_parallel), strategy.dtype);
    // ZeRO-2 keeps its weights whole: only the running unit's gradients come on top of the shards.
    if (!strategy.gathers_parameters()) gathered.weights = 0;
  }
  memory.weights =
      dense.weights + expert.weights + gathered.weights + low_precision_weight_copy_bytes(model, strategy, layers);
  memory.gradients = dense.gradients + expert.gradients + gathered.gradients;
  memory.optimizer_states = dense.optimizer_states + expert.optimizer_states;
  memory.microbatches_in_flight = microbatches_in_flight;
  memory.activations = stage_activation_bytes(model, strategy, chunks, microbatches_in_flight);
  memory.pipeline_buffers = pipeline_buffer_bytes(model, strategy, chunks);
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

const StageMemory& MemoryEstimate::tightest() const {
  const StageMemory* tightest = &peak();
  for (const auto& stage : stages) {
    if (stage.total() - stage.capacity > tightest->total() - tightest->capacity ||
        (stage.total() - stage.capacity == tightest->total() - tightest->capacity && stage.stage < tightest->stage)) {
      tightest = &stage;
    }
  }
  return *tightest;
}

bool MemoryEstimate::capacities_differ() const {
  return std::any_of(stages.begin(), stages.end(),
                     [this](const StageMemory& stage) { return stage.capacity != stages.front().capacity; });
}

int MemoryEstimate::stages_over_capacity() const {
  int count = 0;
  for (const auto& stage : stages) {
    count += stage.total() > stage.capacity ? 1 : 0;
  }
  return count;
}

MemoryEstimate estimate_memory(const strategy::JobSpec& job) {
  return estimate_memory(job, schedule::find_schedule(job.strategy.schedule));
}

MemoryEstimate estimate_memory(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule) {
  MemoryEstimate estimate;
  const std::vector<double> in_flight = schedule.all_stage_microbatches_in_flight(job.strategy);
  const auto placements = schedule.all_stage_chunk_placements(job.model, job.strategy);
  const strategy::GpuPlacement gpus(job);
  for (int stage = 0; stage < job.strategy.pipeline_parallel; ++stage) {
    const auto at = static_cast<size_t>(stage);
    estimate.stages.push_back(stage_memory(job, stage, placements[at], in_flight[at]));
    StageMemory& memory = estimate.stages.back();
    for (const int type : gpus.types_of_stage(stage)) {
      const cluster::GpuSpec& gpu = job.cluster.gpu_of_type(type);
      const std::int64_t capacity = std::llround(gpu.memory_gb * static_cast<double>(std::int64_t{1} << 30));
      if (memory.gpu.empty() || capacity < memory.capacity) {
        memory.capacity = capacity;
        memory.gpu = gpu.name;
      }
    }
    estimate.capacity = stage == 0 ? memory.capacity : std::min(estimate.capacity, memory.capacity);
  }
  return estimate;
}

}  // namespace distsim::memory
