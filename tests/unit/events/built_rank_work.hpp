#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! One rank's work templates and the event table they index, built as the program builds them.
struct Built {
  EventTable table;
  RankWork work;

  const ChunkWork& chunk() const { return work.chunks.front(); }
  const Event& event(const TaskTemplate& step) const { return table.at(step.event); }
  std::string key(const TaskTemplate& step) const { return event(step).key(); }
  //! The event of the first chunk's step of `layer` with `label`.
  const Event& find(const std::vector<TaskTemplate>& list, std::string_view label, int layer = 0) const {
    for (const auto& step : list) {
      if (step.layer == layer && step.label == label) return event(step);
    }
    throw std::runtime_error("no step '" + std::string(label) + "' in layer " + std::to_string(layer));
  }
  const Event& forward(std::string_view label) const { return find(chunk().forward, label); }
  const Event& backward(std::string_view label) const { return find(chunk().backward, label); }
};

//! How many steps of `list` have `label`.
inline int count(const std::vector<TaskTemplate>& list, std::string_view label) {
  return static_cast<int>(std::count_if(list.begin(), list.end(), [&](const auto& t) { return t.label == label; }));
}

//! The work of the rank at `coord` (rank 0 by default) over its stage's chunk placements.
inline Built build(const strategy::JobSpec& job, const strategy::RankCoord& coord = {}) {
  Built built;
  const strategy::RankLayout layout(job.strategy, job.cluster);
  const auto chunks =
      schedule::find_schedule(job.strategy.schedule).stage_chunk_placements(job, coord[strategy::ParallelDim::pp]);
  built.work = build_rank_work(job, layout, coord, chunks, built.table);
  return built;
}

}  // namespace distsim::events
