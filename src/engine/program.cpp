#include "engine/program.hpp"

#include "core/input_error.hpp"

namespace distsim::engine {

TaskId Program::add_task(SimTime duration, std::span<const StreamId> streams) {
  if (duration < 0 || streams.empty()) {
    throw InternalError("a task needs a non-negative duration and at least one stream");
  }
  const auto id = static_cast<TaskId>(durations_.size());
  durations_.push_back(duration);
  stream_list_.insert(stream_list_.end(), streams.begin(), streams.end());
  stream_offsets_.push_back(static_cast<std::uint32_t>(stream_list_.size()));
  return id;
}

void Program::reserve(std::size_t tasks, std::size_t dependencies) {
  durations_.reserve(tasks);
  stream_offsets_.reserve(tasks + 1);
  stream_list_.reserve(tasks);
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
