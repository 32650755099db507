#include "engine/engine.hpp"

#include <algorithm>
#include <memory>
#include <queue>
#include <string>

#include "core/input_error.hpp"
#include "engine/resource_sharing.hpp"

namespace distsim::engine {

//! What each task waits for before it starts: its dependents, one list after another, and how
//! many conditions it has (its dependencies plus reaching the head of each of its streams). Found
//! once per program, for each of its runs.
struct TaskConditions {
  std::vector<std::uint32_t> offsets;
  std::vector<TaskId> dependents;
  std::vector<std::uint32_t> count;

  explicit TaskConditions(const Program& program) : offsets(program.num_tasks() + 1, 0), count(program.num_tasks(), 0) {
    const std::size_t tasks = program.num_tasks();
    for (const auto& [task, prerequisite] : program.dependencies()) {
      ++offsets[prerequisite + 1];
      ++count[task];
    }
    for (std::size_t t = 0; t < tasks; ++t) {
      offsets[t + 1] += offsets[t];
      count[t] += static_cast<std::uint32_t>(program.streams(static_cast<TaskId>(t)).size());
    }
    dependents.resize(offsets.back());
    std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for (const auto& [task, prerequisite] : program.dependencies()) {
      dependents[fill[prerequisite]++] = task;
    }
  }
};

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

//! The simulation state: how many conditions each task still waits for (its dependencies plus
//! reaching the head of each of its streams) and the latest time one of them was met. A task
//! without resources ends its duration after its last condition, so it ends as soon as that is
//! known, whatever else happens meanwhile; only the tasks that share resources go through the
//! time-ordered queue (those `sharing` gives slots). Programs without resources, and a
//! program's run that leaves its resources out, use the kSharing = false instance, which has no
//! queue at all.
template <bool kSharing>
class Simulation {
 public:
  Simulation(const Program& program, const TaskConditions& conditions,
             const std::function<void(std::size_t, std::size_t)>& progress, ResourceSharing sharing)
      : program_(program),
        progress_(progress),
        conditions_(conditions),
        sharing_(std::move(sharing)),
        waiting_(conditions.count) {}

  // Not inlined into engine::run: that keeps the loop's state in registers (measured with callgrind).
  [[gnu::noinline]] TaskTimes run() {
    times_.start.assign(program_.num_tasks(), 0);
    times_.end.assign(program_.num_tasks(), 0);
    for (StreamId stream = 0; stream < program_.num_streams(); ++stream) {
      if (program_.first_on_stream(stream) != kNoTask) {
        meet_condition(program_.first_on_stream(stream), 0);
      }
    }
    return finish();
  }

  //! Goes on from `alone` where it still holds: every task that ended by `settled_until` there
  //! keeps its times and has met its successors' conditions (all that task needed ended before it
  //! started, so it is settled too); the others run from those conditions.
  [[gnu::noinline]] TaskTimes resume(TaskTimes alone, SimTime settled_until) {
    times_ = std::move(alone);
    times_.makespan = 0;
    const auto settled = [&](TaskId task) { return times_.end[task] <= settled_until; };
    for (TaskId task = 0; task < program_.num_tasks(); ++task) {
      if (settled(task)) {
        times_.makespan = std::max(times_.makespan, times_.end[task]);
        ++finished_;
      } else {
        times_.start[task] = 0;
      }
    }
    const auto meet = [&](TaskId next, SimTime time) {
      if (next == kNoTask || settled(next)) return;
      --waiting_[next];
      times_.start[next] = std::max(times_.start[next], time);
    };
    for (StreamId stream = 0; stream < program_.num_streams(); ++stream) meet(program_.first_on_stream(stream), 0);
    for (TaskId task = 0; task < program_.num_tasks(); ++task) {
      if (!settled(task)) continue;
      for (const TaskId next : program_.next_on_streams(task)) meet(next, times_.end[task]);
      for (std::uint32_t i = conditions_.offsets[task]; i < conditions_.offsets[task + 1]; ++i) {
        meet(conditions_.dependents[i], times_.end[task]);
      }
    }
    std::vector<TaskId> ready;
    for (TaskId task = 0; task < program_.num_tasks(); ++task) {
      if (!settled(task) && waiting_[task] == 0) ready.push_back(task);
    }
    for (const TaskId task : ready) release(task);
    return finish();
  }

 private:
  TaskTimes finish() {
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
    if (--waiting_[task] == 0) {
      release(task);
    }
  }

  //! `task` has met all its conditions: its end is known, or it waits in the queue to start.
  void release(TaskId task) {
    const SimTime start = times_.start[task];
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
    throw InputError(clock_overflow_message("at task " + std::to_string(task)));
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
    for (std::uint32_t i = conditions_.offsets[task]; i < conditions_.offsets[task + 1]; ++i) {
      meet_condition(conditions_.dependents[i], now);
    }
    if (++finished_ % kProgressInterval == 0 && progress_) {
      progress_(finished_, program_.num_tasks());
    }
  }

  const Program& program_;
  const std::function<void(std::size_t, std::size_t)>& progress_;
  const TaskConditions& conditions_;
  ResourceSharing sharing_;
  std::vector<std::uint32_t> waiting_;
  TaskTimes times_;
  std::vector<TaskId> ready_;  //!< tasks without resources whose end is known and not yet passed on
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue_;
  std::size_t finished_ = 0;
};

//! Sorts `users` by `earlier`. Each stream's tasks run in order, so the users of one resource come
//! as a few ascending runs (one per stream they arrive on); merging neighbouring runs until one
//! is left costs n log(runs) instead of a sort's n log n.
template <typename Earlier>
void sort_runs(std::span<TaskId> users, Earlier earlier) {
  std::vector<std::size_t> bounds{0};
  for (std::size_t i = 1; i < users.size(); ++i) {
    if (earlier(users[i], users[i - 1])) bounds.push_back(i);
  }
  bounds.push_back(users.size());
  while (bounds.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t k = 0; k + 2 < bounds.size(); k += 2) {
      std::inplace_merge(users.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                         users.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                         users.begin() + static_cast<std::ptrdiff_t>(bounds[k + 2]), earlier);
      merged.push_back(bounds[k + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());
    bounds = std::move(merged);
  }
}

//! The first instant at which two tasks that use one resource run at once in `times`, or
//! kLatestTime. Each resource's users are swept in order of start; a task of no duration holds
//! nothing.
SimTime first_contention(const Program& program, const TaskTimes& times) {
  const auto uses = program.resource_uses();
  std::vector<std::uint32_t> offsets(program.num_resources() + std::size_t{1}, 0);
  for (const auto& use : uses) ++offsets[use.second + 1];
  for (std::size_t r = 0; r < program.num_resources(); ++r) offsets[r + 1] += offsets[r];
  std::vector<TaskId> users(uses.size());
  std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
  for (const auto& [task, resource] : uses) users[fill[resource]++] = task;
  const auto starts_earlier = [&](TaskId a, TaskId b) { return times.start[a] < times.start[b]; };
  SimTime first = kLatestTime;
  for (std::size_t r = 0; r < program.num_resources(); ++r) {
    const auto begin = users.begin() + offsets[r];
    const auto end = users.begin() + offsets[r + 1];
    sort_runs({begin, end}, starts_earlier);
    SimTime busy_until = 0;
    for (auto user = begin; user != end && times.start[*user] < first; ++user) {
      if (times.start[*user] == times.end[*user]) continue;
      if (times.start[*user] < busy_until) {
        first = times.start[*user];
        break;
      }
      busy_until = std::max(busy_until, times.end[*user]);
    }
  }
  return first;
}

//! Whether a run without sharing is likely to pay for itself: each task it settles skips the
//! queue, which costs about 14 times a task's plain handling (measured: DeepSeek-V3 on 2,048
//! H100, 7 % of whose tasks use resources, ran as fast either way), so it is tried when at least
//! one task in eight uses resources (aggregated pipelines: one in two).
bool worth_running_alone_first(const Program& program) {
  constexpr std::size_t kTasksPerUser = 8;
  std::size_t users = 0;
  TaskId previous = kNoTask;
  for (const auto& use : program.resource_uses()) {
    users += use.first != previous;
    previous = use.first;
  }
  return users * kTasksPerUser >= program.num_tasks();
}

TaskTimes run_with(const Program& program, const TaskConditions& conditions,
                   const std::function<void(std::size_t, std::size_t)>& progress) {
  if (program.resource_uses().empty()) {
    return Simulation<false>(program, conditions, progress, ResourceSharing::unused(program)).run();
  }
  if (!worth_running_alone_first(program)) {
    return Simulation<true>(program, conditions, progress, ResourceSharing(program)).run();
  }
  TaskTimes alone = Simulation<false>(program, conditions, {}, ResourceSharing::unused(program)).run();
  const SimTime contended_from = first_contention(program, alone);
  if (contended_from == kLatestTime) {
    if (progress) progress(program.num_tasks(), program.num_tasks());
    return alone;
  }
  ResourceSharing sharing(program, alone.end, contended_from);
  return Simulation<true>(program, conditions, progress, std::move(sharing)).resume(std::move(alone), contended_from);
}

}  // namespace

TaskTimes run(const Program& program, const std::function<void(std::size_t, std::size_t)>& progress) {
  return run_with(program, TaskConditions(program), progress);
}

RepeatedRuns::RepeatedRuns(const Program& program)
    : program_(program), conditions_(std::make_unique<const TaskConditions>(program)) {}

RepeatedRuns::~RepeatedRuns() = default;

TaskTimes RepeatedRuns::run() const { return run_with(program_, *conditions_, {}); }

TaskTimes run_sharing_throughout(const Program& program) {
  const TaskConditions conditions(program);
  if (program.resource_uses().empty()) {
    return Simulation<false>(program, conditions, {}, ResourceSharing::unused(program)).run();
  }
  return Simulation<true>(program, conditions, {}, ResourceSharing(program)).run();
}

}  // namespace distsim::engine
