#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/sim_time.hpp"

namespace distsim::engine {

using TaskId = std::uint32_t;
using StreamId = std::uint32_t;
using ResourceId = std::uint32_t;
//! No task: past a stream's last task, or before its first.
inline constexpr TaskId kNoTask = ~TaskId{0};

//! What the engine runs: tasks on in-order streams, with dependencies, optionally sharing
//! resources. A task runs on one stream (a kernel) or on several at once (a collective or a
//! transfer: one stream on each participant). Each stream runs its tasks one at a time in the
//! order they were added, like a CUDA stream; a task starts when it is at the head of all its
//! streams and every task it depends on has ended, and it ends at the same time on all of them.
//! A resource (a link, such as a GPU's share of its node's NICs) may be used by many tasks at
//! once; a task's duration is how long it takes with its resources to itself, and it stretches
//! while it shares them (engine.hpp says how).
class Program {
 public:
  StreamId add_stream() {
    first_on_stream_.push_back(kNoTask);
    last_slot_on_stream_.push_back(kNoSlot);
    return num_streams_++;
  }
  ResourceId add_resource() { return num_resources_++; }
  TaskId add_task(SimTime duration, std::span<const StreamId> streams);
  //! `task` may not start before `prerequisite` has ended.
  void add_dependency(TaskId task, TaskId prerequisite);
  //! `task` uses `resource` while it runs; declaring the same use twice counts once.
  void add_resource_use(TaskId task, ResourceId resource);
  //! Room for `tasks` tasks and `dependencies` dependencies, so that adding them up to there
  //! never moves what was added; memory not yet written is not touched.
  void reserve(std::size_t tasks, std::size_t dependencies);

  std::uint32_t num_streams() const { return num_streams_; }
  std::uint32_t num_resources() const { return num_resources_; }
  std::size_t num_tasks() const { return durations_.size(); }
  SimTime duration(TaskId task) const { return durations_[task]; }
  //! Changes a task's duration after the program is built (a slow GPU, a sampled jitter).
  void set_duration(TaskId task, SimTime duration) { durations_[task] = duration; }
  std::span<const StreamId> streams(TaskId task) const {
    return {stream_list_.data() + stream_offsets_[task], stream_offsets_[task + 1] - stream_offsets_[task]};
  }
  //! The task after `task` on each of its streams, in the order of streams(task); kNoTask where
  //! `task` is the stream's last.
  std::span<const TaskId> next_on_streams(TaskId task) const {
    return {next_on_stream_.data() + stream_offsets_[task], stream_offsets_[task + 1] - stream_offsets_[task]};
  }
  //! The stream's first task, or kNoTask.
  TaskId first_on_stream(StreamId stream) const { return first_on_stream_[stream]; }
  std::span<const std::pair<TaskId, TaskId>> dependencies() const { return dependencies_; }
  //! (task, resource) pairs in the order they were declared.
  std::span<const std::pair<TaskId, ResourceId>> resource_uses() const { return resource_uses_; }

 private:
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  std::uint32_t num_streams_ = 0;
  std::uint32_t num_resources_ = 0;
  std::vector<SimTime> durations_;
  std::vector<std::uint32_t> stream_offsets_{0};
  std::vector<StreamId> stream_list_;
  std::vector<TaskId> next_on_stream_;  //!< beside stream_list_
  std::vector<TaskId> first_on_stream_;
  std::vector<std::uint32_t> last_slot_on_stream_;       //!< where in stream_list_ the stream's last task is
  std::vector<std::pair<TaskId, TaskId>> dependencies_;  //!< (task, prerequisite)
  std::vector<std::pair<TaskId, ResourceId>> resource_uses_;
};

}  // namespace distsim::engine
