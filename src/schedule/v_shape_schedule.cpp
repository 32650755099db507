#include "schedule/v_shape_schedule.hpp"

#include "core/input_error.hpp"
#include "core/plain_text.hpp"

namespace distsim::schedule {

events::LayerRange VShapeSchedule::chunk_layers(int total_layers, int num_stages, int /*num_chunks*/, int stage,
                                                int chunk) const {
  const int per_chunk = total_layers / (2 * num_stages);
  return {virtual_stage_index(stage, chunk, num_stages, 2) * per_chunk, per_chunk};
}

int VShapeSchedule::virtual_stage_index(int stage, int chunk, int num_stages, int /*num_chunks*/) const {
  return chunk == 0 ? stage : 2 * num_stages - 1 - stage;
}

std::optional<ChunkHop> VShapeSchedule::next_chunk(const ChunkSlot& from, int num_stages, int /*num_chunks*/) const {
  if (from.chunk == 0) {
    if (from.stage + 1 < num_stages) {
      return ChunkHop{{from.stage + 1, 0}, true};
    }
    return ChunkHop{{from.stage, 1}, true};  // the bottom of the V: a local hand-off
  }
  if (from.stage > 0) {
    return ChunkHop{{from.stage - 1, 1}, false};
  }
  return std::nullopt;
}

double VShapeSchedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                              int /*num_chunks*/) const {
  return peak_in_flight(steps(stage, num_stages, num_microbatches, 2), 2);
}

std::vector<double> VShapeSchedule::all_microbatches_in_flight(int num_stages, int num_microbatches,
                                                               int /*num_chunks*/) const {
  std::vector<double> all;
  for (const auto& steps : all_steps(num_stages, num_microbatches, 2)) all.push_back(peak_in_flight(steps, 2));
  return all;
}

void VShapeSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  const strategy::Strategy& s = job.strategy;
  const auto& m = job.model;
  const std::string where = "schedule " + quoted(name()) + " ";
  if (s.virtual_stages != 2) {
    problems.push_back(where +
                       "places two model chunks on each pipeline stage in a V and needs virtual_stages 2, got " +
                       std::to_string(s.virtual_stages));
  }
  if (s.pipeline_parallel < 2) {
    problems.push_back(where + "needs a pipeline parallel size of at least 2, got " +
                       std::to_string(s.pipeline_parallel));
    return;
  }
  const int chunks = 2 * s.pipeline_parallel;
  if (m.total_layers() > 0 && m.total_layers() % chunks != 0 && !s.custom_pipeline_layout()) {
    problems.push_back(where + "splits the " + std::to_string(m.total_layers()) + " layers of model " + quoted(m.name) +
                       " into 2 x pipeline = " + std::to_string(chunks) + " equal chunks placed in a V, but " +
                       std::to_string(chunks) + " does not divide " + std::to_string(m.total_layers()));
  }
  if (m.architecture == model::Architecture::encoder_decoder) {
    problems.push_back(where + "does not support the encoder-decoder model " + quoted(m.name));
  }
}

void VShapeSchedule::require_two_chunks(int num_chunks) const {
  if (num_chunks != 2) {
    throw InternalError("schedule '" + std::string(name()) + "' runs two model chunks per stage, asked for " +
                        std::to_string(num_chunks) + " (validation should have rejected this)");
  }
}

}  // namespace distsim::schedule
