#include "io/output/stage_layers_text.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedule/pipeline_schedule.hpp"

namespace distsim::io {

std::string stage_layers_text(const strategy::JobSpec& job, int stage) {
  std::vector<std::string> ranges;
  for (const auto& chunk : schedule::find_schedule(job.strategy.schedule).stage_chunk_placements(job, stage)) {
    const events::LayerRange& layers = chunk.layers;
    if (layers.count > 0) {
      ranges.push_back(fmt::format("{}-{}", layers.first, layers.first + layers.count - 1));
    } else {
      ranges.push_back(std::string(chunk.embedding ? "E" : "") + (chunk.head ? "L" : ""));
    }
  }
  return fmt::format("{}", fmt::join(ranges, ", "));
}

}  // namespace distsim::io
