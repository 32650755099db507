#include "engine/engine.hpp"

#include <queue>
#include <string>

#include "core/input_error.hpp"
#include "engine/resource_sharing.hpp"

namespace distsim::engine {

namespace {

//! A start or a predicted end of a task that shares resources, waiting in the engine's queue.
//! Predicted ends have versions from 1 on, and one whose version is no longer its task's is
//! stale; a start has version 0 and comes after the ends at its instant, so that tasks ending
//! then have handed their resources back.
struct QueueEntry {
  SimTime time;
  TaskId task;
  std::uint32_t version;
  bool is_start() const { return version == 0; }
  bool operator>(const QueueEntry& other) const {
    return time != other.time ? time > other.time : is_start() && !other.is_start();
  }
};

//! Each task's dependents, one list after another.
struct Dependents {
  std::vector<std::uint32_t> offsets;
  std::vector<TaskId> tasks;
};

Dependents dependents_of(const Program& program) {
  Dependents dependents;
  const std::size_t tasks = program.num_tasks();
  dependents.offsets.assign(tasks + 1, 0);
  for (const auto& [task, prerequisite] : program.dependencies()) {
    ++dependents.offsets[prerequisite + 1];
  }
  for (std::size_t t = 0; t < tasks; ++t) {
    dependents.offsets[t + 1] += dependents.offsets[t];
  }
  dependents.tasks.resize(dependents.offsets.back());
  std::vector<std::uint32_t> fill(dependents.offsets.begin(), dependents.offsets.end() - 1);
  for (const auto& [task, prerequisite] : program.dependencies()) {
    dependents.tasks[fill[prerequisite]++] = task;
  }
  return dependents;
}

//! The simulation state: how many conditions each task still waits for (its dependencies plus
//! reaching the head of each of its streams) and the latest time one of them was met. A task
//! without resources ends its duration after its last condition, so it ends as soon as that is
//! known, whatever else happens meanwhile; only the tasks that share resources go through the
//! time-ordered queue. Programs without resources run the kSharing = false instance, which has
//! no queue at all.
template <bool kSharing>
class Simulation {
 public:
  Simulation(const Program& program, const std::function<void(std::size_t, std::size_t)>& progress)
      : program_(program), progress_(progress), dependents_(dependents_of(program)), sharing_(program) {
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
  }

  // Not inlined into engine::run: that keeps the loop's state in registers (measured with callgrind).
  [[gnu::noinline]] TaskTimes run() {
    for (StreamId stream = 0; stream < program_.num_streams(); ++stream) {
      if (program_.first_on_stream(stream) != kNoTask) {
        meet_condition(program_.first_on_stream(stream), 0);
      }
    }
    complete_ready_tasks();
    if constexpr (kSharing) {
      run_shared_tasks();
    }
    if (progress_) {
      progress_(finished_, program_.num_tasks());
    }
    if (finished_ != program_.num_tasks()) {
      throw InternalError("the task program deadlocked: " + std::to_string(program_.num_tasks() - finished_) + " of " +
                          std::to_string(program_.num_tasks()) + " tasks never started");
    }
    return std::move(times_);
  }

 private:
  void run_shared_tasks() {
    while (!queue_.empty()) {
      const QueueEntry entry = queue_.top();
      queue_.pop();
      if (entry.is_start()) {
        enqueue(sharing_.start(entry.task, entry.time));
        continue;
      }
      if (!sharing_.is_current(entry.task, entry.version)) {
        continue;
      }
      times_.end[entry.task] = entry.time;
      times_.makespan = std::max(times_.makespan, entry.time);
      // The task hands its resources back before its successors start, so they see them free.
      enqueue(sharing_.finish(entry.task, entry.time));
      complete(entry.task);
      complete_ready_tasks();
    }
  }

  //! One of `task`'s conditions is met at `time`.
  void meet_condition(TaskId task, SimTime time) {
    SimTime& start = times_.start[task];
    start = std::max(start, time);
    if (--waiting_[task] != 0) {
      return;
    }
    if constexpr (kSharing) {
      if (sharing_.uses_resources(task)) {
        queue_.push({start, task, 0});
        return;
      }
    }
    if (__builtin_add_overflow(start, program_.duration(task), &times_.end[task])) {
      clock_overflow(task);
    }
    times_.makespan = std::max(times_.makespan, times_.end[task]);
    ready_.push_back(task);
  }

  [[noreturn, gnu::noinline]] void clock_overflow(TaskId task) const {
    throw InputError("the simulated iteration runs past the range of distsim's nanosecond clock (292 years) at task " +
                     std::to_string(task) + "; the job's sizes are beyond what it can simulate");
  }

  void complete_ready_tasks() {
    while (!ready_.empty()) {
      const TaskId task = ready_.back();
      ready_.pop_back();
      complete(task);
    }
  }

  void enqueue(std::span<const Prediction> predictions) {
    for (const Prediction& prediction : predictions) {
      queue_.push({prediction.end, prediction.task, prediction.version});
    }
  }

  //! `task` has ended: the next task on each of its streams and its dependents are told.
  void complete(TaskId task) {
    const SimTime now = times_.end[task];
    for (const TaskId next : program_.next_on_streams(task)) {
      if (next != kNoTask) {
        meet_condition(next, now);
      }
    }
    for (std::uint32_t i = dependents_.offsets[task]; i < dependents_.offsets[task + 1]; ++i) {
      meet_condition(dependents_.tasks[i], now);
    }
    if (++finished_ % kProgressInterval == 0 && progress_) {
      progress_(finished_, program_.num_tasks());
    }
  }

  const Program& program_;
  const std::function<void(std::size_t, std::size_t)>& progress_;
  Dependents dependents_;
  ResourceSharing sharing_;
  TaskTimes times_;
  std::vector<std::uint32_t> waiting_;
  std::vector<TaskId> ready_;  //!< tasks without resources whose end is known and not yet passed on
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue_;
  std::size_t finished_ = 0;
};

}  // namespace

TaskTimes run(const Program& program, const std::function<void(std::size_t, std::size_t)>& progress) {
  if (program.resource_uses().empty()) {
    return Simulation<false>(program, progress).run();
  }
  return Simulation<true>(program, progress).run();
}

}  // namespace distsim::engine
