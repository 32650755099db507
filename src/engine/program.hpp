#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/sim_time.hpp"

namespace distsim::engine {

using TaskId = std::uint32_t;
using StreamId = std::uint32_t;

//! What the engine runs: tasks of fixed duration on in-order streams, with dependencies.
//! A task runs on one stream (a kernel) or on several at once (a collective or a transfer: one
//! stream on each participant). Each stream runs its tasks one at a time in the order they were
//! added, like a CUDA stream; a task starts when it is at the head of all its streams and every
//! task it depends on has ended, and it ends at the same time on all of them.
class Program {
 public:
  StreamId add_stream() { return num_streams_++; }
  TaskId add_task(SimTime duration, std::span<const StreamId> streams);
  //! `task` may not start before `prerequisite` has ended.
  void add_dependency(TaskId task, TaskId prerequisite);

  std::uint32_t num_streams() const { return num_streams_; }
  std::size_t num_tasks() const { return durations_.size(); }
  SimTime duration(TaskId task) const { return durations_[task]; }
  std::span<const StreamId> streams(TaskId task) const {
    return {stream_list_.data() + stream_offsets_[task], stream_offsets_[task + 1] - stream_offsets_[task]};
  }
  std::span<const std::pair<TaskId, TaskId>> dependencies() const { return dependencies_; }

 private:
  std::uint32_t num_streams_ = 0;
  std::vector<SimTime> durations_;
  std::vector<std::uint32_t> stream_offsets_{0};
  std::vector<StreamId> stream_list_;
  std::vector<std::pair<TaskId, TaskId>> dependencies_;  //!< (task, prerequisite)
};

}  // namespace distsim::engine
