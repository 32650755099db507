#include "engine/engine.hpp"

#include <queue>
#include <string>

#include "core/input_error.hpp"
#include "engine/resource_sharing.hpp"

namespace distsim::engine {

namespace {

//! A task completion waiting in the engine's queue. Tasks that share resources have versions
//! from 1 on, and an entry whose version is no longer its task's is a stale prediction.
struct QueueEntry {
  SimTime time;
  std::uint64_t sequence;
  TaskId task;
  std::uint32_t version;
  bool operator>(const QueueEntry& other) const {
    return time != other.time ? time > other.time : sequence > other.sequence;
  }
};

//! Compressed adjacency lists: for each stream its tasks in order, for each task its dependents.
struct Layout {
  std::vector<std::uint32_t> stream_offsets;
  std::vector<TaskId> stream_tasks;
  std::vector<std::uint32_t> dependent_offsets;
  std::vector<TaskId> dependents;
};

Layout build_layout(const Program& program) {
  Layout layout;
  const std::size_t tasks = program.num_tasks();
  layout.stream_offsets.assign(program.num_streams() + 1, 0);
  for (TaskId task = 0; task < tasks; ++task) {
    for (StreamId stream : program.streams(task)) {
      ++layout.stream_offsets[stream + 1];
    }
  }
  for (std::size_t s = 0; s < program.num_streams(); ++s) {
    layout.stream_offsets[s + 1] += layout.stream_offsets[s];
  }
  layout.stream_tasks.resize(layout.stream_offsets.back());
  std::vector<std::uint32_t> fill(layout.stream_offsets.begin(), layout.stream_offsets.end() - 1);
  for (TaskId task = 0; task < tasks; ++task) {
    for (StreamId stream : program.streams(task)) {
      layout.stream_tasks[fill[stream]++] = task;
    }
  }
  layout.dependent_offsets.assign(tasks + 1, 0);
  for (const auto& [task, prerequisite] : program.dependencies()) {
    ++layout.dependent_offsets[prerequisite + 1];
  }
  for (std::size_t t = 0; t < tasks; ++t) {
    layout.dependent_offsets[t + 1] += layout.dependent_offsets[t];
  }
  layout.dependents.resize(layout.dependent_offsets.back());
  fill.assign(layout.dependent_offsets.begin(), layout.dependent_offsets.end() - 1);
  for (const auto& [task, prerequisite] : program.dependencies()) {
    layout.dependents[fill[prerequisite]++] = task;
  }
  return layout;
}

//! The simulation state: how many conditions each task still waits for (its dependencies plus
//! reaching the head of each of its streams), and where each stream's head is. Programs without
//! resources run the kSharing = false instance, whose loop has no sharing code at all.
template <bool kSharing>
class Simulation {
 public:
  explicit Simulation(const Program& program) : program_(program), layout_(build_layout(program)), sharing_(program) {
    const std::size_t tasks = program.num_tasks();
    times_.start.assign(tasks, 0);
    times_.end.assign(tasks, 0);
    waiting_.assign(tasks, 0);
    for (TaskId task = 0; task < tasks; ++task) {
      waiting_[task] = static_cast<std::uint32_t>(program.streams(task).size());
    }
    for (const auto& dependency : program.dependencies()) {
      ++waiting_[dependency.first];
    }
    head_.assign(layout_.stream_offsets.begin(), layout_.stream_offsets.end() - 1);
  }

  // Not inlined into engine::run: that keeps the loop's state in registers (measured with callgrind).
  [[gnu::noinline]] TaskTimes run(const std::function<void(std::size_t, std::size_t)>& progress) {
    for (StreamId stream = 0; stream < program_.num_streams(); ++stream) {
      arrive_at_head(stream, 0);
    }
    std::size_t finished = 0;
    while (!queue_.empty()) {
      const QueueEntry entry = queue_.top();
      queue_.pop();
      if constexpr (kSharing) {
        if (entry.version != 0 && !finish_sharing(entry)) {
          continue;
        }
      }
      ++finished;
      complete(entry.task, entry.time);
      if (finished % kProgressInterval == 0 && progress) {
        progress(finished, program_.num_tasks());
      }
    }
    if (progress) {
      progress(finished, program_.num_tasks());
    }
    if (finished != program_.num_tasks()) {
      throw InternalError("the task program deadlocked: " + std::to_string(program_.num_tasks() - finished) + " of " +
                          std::to_string(program_.num_tasks()) + " tasks never started");
    }
    return std::move(times_);
  }

 private:
  void release(TaskId task, SimTime now) {
    if (--waiting_[task] != 0) {
      return;
    }
    times_.start[task] = now;
    if constexpr (kSharing) {
      if (sharing_.uses_resources(task)) {
        start_sharing(task, now);
        return;
      }
    }
    if (__builtin_add_overflow(now, program_.duration(task), &times_.end[task])) {
      clock_overflow(task);
    }
    times_.makespan = std::max(times_.makespan, times_.end[task]);
    queue_.push({times_.end[task], sequence_++, task, 0});
  }

  [[noreturn, gnu::noinline]] void clock_overflow(TaskId task) const {
    throw InputError("the simulated iteration runs past the range of distsim's nanosecond clock (292 years) at task " +
                     std::to_string(task) + "; the job's sizes are beyond what it can simulate");
  }

  // Out of line, so that the loop stays tight for the tasks without resources.
  [[gnu::noinline]] void start_sharing(TaskId task, SimTime now) { enqueue(sharing_.start(task, now)); }

  //! Ends a task that shares resources, or returns false for a stale prediction. The task hands
  //! its resources back before anything else happens now, so tasks starting now see them free.
  [[gnu::noinline]] bool finish_sharing(const QueueEntry& entry) {
    if (!sharing_.is_current(entry.task, entry.version)) {
      return false;
    }
    times_.end[entry.task] = entry.time;
    times_.makespan = std::max(times_.makespan, entry.time);
    enqueue(sharing_.finish(entry.task, entry.time));
    return true;
  }

  void enqueue(std::span<const Prediction> predictions) {
    for (const Prediction& prediction : predictions) {
      queue_.push({prediction.end, sequence_++, prediction.task, prediction.version});
    }
  }

  void arrive_at_head(StreamId stream, SimTime now) {
    if (head_[stream] < layout_.stream_offsets[stream + 1]) {
      release(layout_.stream_tasks[head_[stream]], now);
    }
  }

  void complete(TaskId task, SimTime now) {
    for (StreamId stream : program_.streams(task)) {
      ++head_[stream];
      arrive_at_head(stream, now);
    }
    for (std::uint32_t i = layout_.dependent_offsets[task]; i < layout_.dependent_offsets[task + 1]; ++i) {
      release(layout_.dependents[i], now);
    }
  }

  const Program& program_;
  Layout layout_;
  ResourceSharing sharing_;
  TaskTimes times_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> head_;
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue_;
  std::uint64_t sequence_ = 0;
};

}  // namespace

TaskTimes run(const Program& program, const std::function<void(std::size_t, std::size_t)>& progress) {
  if (program.resource_uses().empty()) {
    return Simulation<false>(program).run(progress);
  }
  return Simulation<true>(program).run(progress);
}

}  // namespace distsim::engine
