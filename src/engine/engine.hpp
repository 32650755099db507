#pragma once

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

//! A discrete-event simulation of a Program. Pending task completions wait in a queue ordered
//! by (time, insertion sequence), so equal times resolve in insertion order and every run gives
//! the same result. Throws InternalError if the program deadlocks (a cycle between stream order
//! and dependencies).
TaskTimes run(const Program& program);

}  // namespace distsim::engine
