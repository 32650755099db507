#include "io/trace/device_timelines.hpp"

namespace distsim::io {

using strategy::ParallelDim;

DeviceTimelines::DeviceTimelines(const program::JobProgram& program)
    : offsets_(program.devices.size() + 1, 0), kinds_used_(program.devices.size(), 0) {
  const auto& tasks = program.program;
  const auto device_of = [&program](engine::StreamId stream) {
    return static_cast<std::size_t>(program.streams[stream].device);
  };
  for (engine::TaskId task = 0; task < tasks.num_tasks(); ++task) {
    for (const engine::StreamId stream : tasks.streams(task)) {
      ++offsets_[device_of(stream) + 1];
    }
  }
  for (std::size_t d = 1; d < offsets_.size(); ++d) {
    offsets_[d] += offsets_[d - 1];
  }
  activities_.resize(offsets_.back());
  std::vector<std::size_t> next(offsets_.begin(), offsets_.end() - 1);
  for (engine::TaskId task = 0; task < tasks.num_tasks(); ++task) {
    for (const engine::StreamId stream : tasks.streams(task)) {
      activities_[next[device_of(stream)]++] = {task, stream};
      kinds_used_[device_of(stream)] |= 1U << static_cast<unsigned>(program.streams[stream].kind);
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
