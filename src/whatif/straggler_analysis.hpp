#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "whatif/measured_trace.hpp"

namespace distsim::whatif {

//! One step's time measured, replayed with its measured durations, and replayed ideal.
struct StepTimes {
  int step = 0;
  double measured_s = 0;
  double replayed_s = 0;
  double ideal_s = 0;
};

//! A group's share of the slowdown: the ideal replay with only the group's operations at their
//! measured durations, over the ideal replay (mean step times).
struct Attribution {
  std::string group;
  double slowdown = 0;
};

//! What-if analysis of a measured trace after Lin et al., "Understanding Stragglers in Large Model
//! Training Using What-if Analysis" (OSDI'25), docs/whatif.md. The trace is replayed through its
//! dependency graph (StepReplay) three ways: as measured, with every operation's measured duration
//! (no launch delays between operations), and ideal, with each operation type's duration replaced
//! by its mean (computations) or median (communications) over the whole trace.
struct StragglerAnalysis {
  int dp_size = 0;
  int pp_size = 0;
  std::size_t operations = 0;
  std::vector<std::string> notes;  //!< the trace's (MeasuredTrace::notes)
  std::vector<StepTimes> steps;
  double measured_s = 0;  //!< mean step time
  double replayed_s = 0;
  double ideal_s = 0;
  double launch_slowdown = 0;     //!< measured over replayed
  double straggler_slowdown = 0;  //!< replayed over ideal: the paper's Eq. 1
  //! The paper's Eqs. 2 and 4, largest first: by pipeline stage, data-parallel rank, operation type.
  std::vector<Attribution> by_stage;
  std::vector<Attribution> by_dp_rank;
  std::vector<Attribution> by_op_type;
};

//! Throws InputError for an empty trace or one StepReplay refuses.
StragglerAnalysis analyze_stragglers(const MeasuredTrace& trace);

}  // namespace distsim::whatif
