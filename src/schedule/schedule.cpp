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
