#include "io/trace/device_timelines.hpp"

#include <algorithm>

namespace distsim::io {

using strategy::ParallelDim;

namespace {

int appearances(const api::Simulation& simulation, engine::TaskId task) {
  return simulation.repeats ? simulation.repeats->appearances(simulation.program.tasks[task]) : 1;
}

Activity appearance(const api::Simulation& simulation, engine::TaskId task, engine::StreamId stream, int index) {
  const program::TaskInfo& info = simulation.program.tasks[task];
  const SimTime start = simulation.times.start[task];
  const auto shift =
      simulation.repeats ? simulation.repeats->shift(info, start, index) : steady::TimelineRepeats::Shift{};
  return {task,
          stream,
          index,
          info.microbatch >= 0 ? info.microbatch + shift.microbatches : info.microbatch,
          start + shift.time,
          simulation.times.end[task] + shift.time};
}

}  // namespace

DeviceTimelines::DeviceTimelines(const api::Simulation& simulation)
    : offsets_(simulation.program.devices.size() + 1, 0),
      kinds_used_(simulation.program.devices.size(), 0),
      tasks_(simulation.program.program.num_tasks()) {
  const auto& program = simulation.program;
  const auto& tasks = program.program;
  const auto device_of = [&program](engine::StreamId stream) {
    return static_cast<std::size_t>(program.streams[stream].device);
  };
  for (engine::TaskId task = 0; task < tasks.num_tasks(); ++task) {
    for (const engine::StreamId stream : tasks.streams(task)) {
      offsets_[device_of(stream) + 1] += static_cast<std::size_t>(appearances(simulation, task));
    }
  }
  for (std::size_t d = 1; d < offsets_.size(); ++d) {
    offsets_[d] += offsets_[d - 1];
  }
  activities_.resize(offsets_.back());
  std::vector<std::size_t> next(offsets_.begin(), offsets_.end() - 1);
  for (engine::TaskId task = 0; task < tasks.num_tasks(); ++task) {
    const int count = appearances(simulation, task);
    for (const engine::StreamId stream : tasks.streams(task)) {
      kinds_used_[device_of(stream)] |= 1U << static_cast<unsigned>(program.streams[stream].kind);
      for (int index = 0; index < count; ++index) {
        activities_[next[device_of(stream)]++] = appearance(simulation, task, stream, index);
      }
    }
  }
  // A stream runs its tasks in the order they were added, so task order is run order; the
  // repeats' appearances are put in place by time, and a stream runs one task at a time.
  if (simulation.repeats) {
    for (std::size_t d = 0; d + 1 < offsets_.size(); ++d) {
      std::stable_sort(activities_.begin() + static_cast<std::ptrdiff_t>(offsets_[d]),
                       activities_.begin() + static_cast<std::ptrdiff_t>(offsets_[d + 1]),
                       [](const Activity& a, const Activity& b) { return a.start < b.start; });
    }
  }
}

std::vector<int> shown_ranks(const strategy::RankLayout& layout, bool every_rank) {
  std::vector<int> ranks;
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    if (every_rank || layout.coord_of(rank)[ParallelDim::dp] == 0) {
      ranks.push_back(rank);
    }
  }
  return ranks;
}

}  // namespace distsim::io
