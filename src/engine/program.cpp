#include "engine/program.hpp"

#include "core/input_error.hpp"

namespace distsim::engine {

TaskId Program::add_task(SimTime duration, std::span<const StreamId> streams) {
  if (duration < 0 || streams.empty()) {
    throw InternalError("a task needs a non-negative duration and at least one stream");
  }
  const auto id = static_cast<TaskId>(durations_.size());
  durations_.push_back(duration);
  for (const StreamId stream : streams) {
    const auto slot = static_cast<std::uint32_t>(stream_list_.size());
    stream_list_.push_back(stream);
    next_on_stream_.push_back(kNoTask);
    std::uint32_t& last = last_slot_on_stream_[stream];
    if (last == kNoSlot) {
      first_on_stream_[stream] = id;
    } else {
      next_on_stream_[last] = id;
    }
    last = slot;
  }
  stream_offsets_.push_back(static_cast<std::uint32_t>(stream_list_.size()));
  return id;
}

void Program::reserve(std::size_t tasks, std::size_t dependencies) {
  durations_.reserve(tasks);
  stream_offsets_.reserve(tasks + 1);
  stream_list_.reserve(tasks);
  next_on_stream_.reserve(tasks);
  dependencies_.reserve(dependencies);
}

void Program::add_dependency(TaskId task, TaskId prerequisite) {
  if (task >= durations_.size() || prerequisite >= durations_.size() || task == prerequisite) {
    throw InternalError("dependency between unknown tasks");
  }
  dependencies_.emplace_back(task, prerequisite);
}

void Program::add_resource_use(TaskId task, ResourceId resource) {
  if (task >= durations_.size() || resource >= num_resources_) {
    throw InternalError("resource use of an unknown task or resource");
  }
  resource_uses_.emplace_back(task, resource);
}

}  // namespace distsim::engine
