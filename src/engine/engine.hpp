#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/sim_time.hpp"
#include "engine/program.hpp"

namespace distsim::engine {

//! Start and end of every task of a program, indexed by TaskId.
struct TaskTimes {
  std::vector<SimTime> start;
  std::vector<SimTime> end;
  SimTime makespan = 0;
};

//! A discrete-event simulation of a Program. A task starts when its last condition is met and
//! a task without resources ends its duration later; it is passed on as soon as its end is known,
//! since nothing else can change it. Tasks with resources share them fluidly (ResourceSharing):
//! while k tasks use a resource each runs at 1/k of its stand-alone speed, a task runs at the
//! rate of its most crowded resource, and every start or end re-predicts the ends of the tasks on
//! its resources, to the nearest ns. Their starts and predicted ends wait in a queue ordered by
//! time, ends before starts at one instant: tasks ending then hand their resources to those
//! starting then. The order in which simultaneous starts or ends are handled changes no time,
//! so every run gives the same result. Sharing only slows tasks whose resources are crowded, so
//! a program first runs as if it had no resources; when no two users of a resource overlap in
//! that run it is the result; otherwise the tasks that ended by the instant two users first
//! overlapped keep their times (they ran alone in both runs), and the simulation goes on from
//! there with sharing. Throws
//! InternalError if the program deadlocks (a cycle between stream order and dependencies).
//! `progress`, when set, is told (tasks finished, tasks in all) every kProgressInterval tasks and
//! at the end; it does not change the result.
TaskTimes run(const Program& program, const std::function<void(std::size_t, std::size_t)>& progress = {});
//! The same times as run(), with every task that uses resources going through the queue from the
//! start: the plain form of the simulation, which tests compare run() with.
TaskTimes run_sharing_throughout(const Program& program);

struct TaskConditions;

//! Runs one program again and again after its durations change (Program::set_duration), without
//! finding again what each task waits for: the sampled iterations of kernel jitter. The program
//! must outlive it and keep its tasks, streams and dependencies.
class RepeatedRuns {
 public:
  explicit RepeatedRuns(const Program& program);
  ~RepeatedRuns();
  RepeatedRuns(const RepeatedRuns&) = delete;
  RepeatedRuns& operator=(const RepeatedRuns&) = delete;
  //! run() of the program as its durations are now.
  TaskTimes run() const;

 private:
  const Program& program_;
  std::unique_ptr<const TaskConditions> conditions_;
};

//! How many finished tasks apart run() reports progress.
inline constexpr std::size_t kProgressInterval = std::size_t{1} << 16;

}  // namespace distsim::engine
