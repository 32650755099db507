#include "schedule/schedule.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::schedule {

events::LayerRange PipelineSchedule::chunk_layers(int total_layers, int num_stages, int /*num_chunks*/, int stage,
                                                  int /*chunk*/) const {
  return events::stage_layers(total_layers, num_stages, stage);
}

std::vector<events::LayerRange> PipelineSchedule::stage_chunk_layers(const strategy::JobSpec& job, int stage) const {
  const int chunks = chunks_per_stage(job.strategy.virtual_stages);
  std::vector<events::LayerRange> layers;
  layers.reserve(static_cast<size_t>(chunks));
  for (int chunk = 0; chunk < chunks; ++chunk) {
    layers.push_back(chunk_layers(job.model.total_layers(), job.strategy.pipeline_parallel, chunks, stage, chunk));
  }
  return layers;
}

std::optional<ChunkHop> PipelineSchedule::next_chunk(const ChunkSlot& from, int num_stages, int num_chunks) const {
  if (from.stage + 1 < num_stages) {
    return ChunkHop{{from.stage + 1, from.chunk}, true};
  }
  if (from.chunk + 1 < num_chunks) {
    return ChunkHop{{0, from.chunk + 1}, true};
  }
  return std::nullopt;
}

std::optional<ChunkHop> PipelineSchedule::previous_chunk(const ChunkSlot& to, int num_stages, int num_chunks) const {
  for (int stage = 0; stage < num_stages; ++stage) {
    for (int chunk = 0; chunk < num_chunks; ++chunk) {
      const auto hop = next_chunk({stage, chunk}, num_stages, num_chunks);
      if (hop && hop->peer == to) {
        return ChunkHop{{stage, chunk}, hop->downstream};
      }
    }
  }
  return std::nullopt;
}

std::vector<events::ChunkPlacement> PipelineSchedule::stage_chunk_placements(const strategy::JobSpec& job,
                                                                             int stage) const {
  const int stages = job.strategy.pipeline_parallel;
  const int chunks = chunks_per_stage(job.strategy.virtual_stages);
  const auto other_stage = [stage](const std::optional<ChunkHop>& hop) -> std::optional<int> {
    if (!hop || hop->peer.stage == stage) {
      return std::nullopt;
    }
    return hop->peer.stage;
  };
  std::vector<events::ChunkPlacement> placements;
  for (const auto& layers : stage_chunk_layers(job, stage)) {
    const ChunkSlot slot{stage, static_cast<int>(placements.size())};
    placements.push_back(
        {layers, other_stage(previous_chunk(slot, stages, chunks)), other_stage(next_chunk(slot, stages, chunks))});
  }
  return placements;
}

void PipelineSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  const int requested = job.strategy.virtual_stages;
  if (requested > 1 && chunks_per_stage(requested) != requested) {
    problems.push_back("virtual_stages " + std::to_string(requested) + " needs schedule " +
                       quoted_names(schedules_with_chunks(requested)) + ", got '" + std::string(name()) + "'");
  }
}

double PipelineSchedule::peak_in_flight(const std::vector<Step>& steps, int num_chunks) {
  int held = 0;
  int peak = 0;
  for (const Step& step : steps) {
    if (step.kind == StepKind::forward) {
      peak = std::max(peak, ++held);
    } else if (step.kind->completes_gradients) {
      --held;
    }
  }
  return static_cast<double>(peak) / num_chunks;
}

void PipelineSchedule::require_one_chunk(int num_chunks) const {
  if (num_chunks != 1) {
    throw InternalError("schedule '" + std::string(name()) + "' runs one model chunk per stage, asked for " +
                        std::to_string(num_chunks) + " (validation should have rejected this)");
  }
}

}  // namespace distsim::schedule
