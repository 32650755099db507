#pragma once

#include <string>
#include <vector>

#include "whatif/operation_roles.hpp"

namespace distsim::whatif {

//! One operation of a measured step on one rank, the rank named by its data-parallel index and
//! pipeline stage (every tensor-parallel rank of a stage runs the same operations).
struct MeasuredOp {
  int step = 0;
  int dp = 0;
  int stage = 0;
  OpRole role = OpRole::forward_compute;
  int seq = 0;         //!< the micro-batch of a pipeline operation, the bucket of a collective; 0 otherwise
  double start_s = 0;  //!< from the step's first operation
  //! A computation's time; a synchronized operation's transfer alone, without its wait for the
  //! other ranks of its group, which the replay rebuilds.
  double duration_s = 0;
  double end_s() const { return start_s + duration_s; }
};

//! The operations of a measured run, each step's times from its own start.
struct MeasuredTrace {
  std::vector<MeasuredOp> ops;
  std::vector<std::string> notes;  //!< how the reader read what the trace did not say exactly
};

}  // namespace distsim::whatif
