#include "io/output/stage_layers_text.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "events/job_events.hpp"

namespace distsim::io {

std::string stage_layers_text(const strategy::JobSpec& job, int stage) {
  const auto& s = job.strategy;
  std::vector<std::string> ranges;
  for (int chunk = 0; chunk < s.virtual_stages; ++chunk) {
    const auto layers =
        events::chunk_layers(job.model.total_layers(), s.pipeline_parallel, s.virtual_stages, stage, chunk);
    ranges.push_back(fmt::format("{}-{}", layers.first, layers.first + layers.count - 1));
  }
  return fmt::format("{}", fmt::join(ranges, ", "));
}

}  // namespace distsim::io
