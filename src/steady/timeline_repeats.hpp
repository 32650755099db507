#pragma once

#include "core/sim_time.hpp"
#include "program/job_program.hpp"

namespace distsim::steady {

//! How the whole job's timeline follows from a shorter run whose middle repeats (steady_state.hpp).
//! The tasks of the repeated micro-batches appear once more for each repeat, each time `period`
//! micro-batches and `period_time` later; the tasks of later micro-batches, and the work done once
//! per iteration after them, appear once, after every repeat; the rest appears as it ran.
struct TimelineRepeats {
  program::MicrobatchRange repeated;  //!< the shorter run's micro-batches whose tasks repeat
  int repeats = 0;
  int period = 0;           //!< micro-batches from one repeat to the next
  SimTime period_time = 0;  //!< time from one repeat to the next
  //! Work done once per iteration (no micro-batch) that starts at or after this time runs after the
  //! repeats; none runs while the repeated micro-batches do.
  SimTime later_from = 0;

  //! How much later an appearance of a task is than the task in the shorter run.
  struct Shift {
    int microbatches = 0;
    SimTime time = 0;
  };

  //! How many times a task appears in the whole job's timeline: once, or 1 + repeats.
  int appearances(const program::TaskInfo& task) const { return repeated.contains(task.microbatch) ? 1 + repeats : 1; }
  //! The shift of appearance `index` (from 0) of `task`, which started at `start` in the shorter run.
  Shift shift(const program::TaskInfo& task, SimTime start, int index) const {
    const bool after_repeats = task.microbatch >= repeated.last || (task.microbatch < 0 && start >= later_from);
    const int times = repeated.contains(task.microbatch) ? index : after_repeats ? repeats : 0;
    return {task.microbatch >= 0 ? times * period : 0, times * period_time};
  }
};

}  // namespace distsim::steady
