#pragma once

#include <string>
#include <vector>

#include "compare/rank_mapping.hpp"
#include "compare/timeline.hpp"

namespace distsim::compare {

//! One pipeline stage's forward or backward pass of one micro-batch on both sides: from the
//! first start to the last end over the stage's ranks, in nanoseconds from each side's begin.
struct StagePassRow {
  int stage = 0;
  int microbatch = 0;
  events::Phase phase = events::Phase::forward;
  SimTime predicted_start = 0;
  SimTime predicted_end = 0;
  SimTime measured_start = 0;
  SimTime measured_end = 0;

  SimTime start_error() const { return predicted_start - measured_start; }
  SimTime end_error() const { return predicted_end - measured_end; }
};

//! The DistSim paper's per-stage forward/backward start and end errors per micro-batch.
struct StageErrors {
  bool available = false;
  std::string unavailable_reason;   //!< why not, when not available
  std::vector<StagePassRow> rows;   //!< ordered by stage, micro-batch, phase (forward first)
  int predicted_only = 0;           //!< (stage, micro-batch, phase) found only in the predicted trace
  int measured_only = 0;            //!< found only in the measured traces
  double mean_abs_start_error = 0;  //!< mean over rows of |start error| / measured iteration
  double mean_abs_end_error = 0;
  double max_abs_error = 0;  //!< the largest |start error| or |end error| / measured iteration
};

//! Compares forward and backward passes per stage and micro-batch; unavailable when the
//! measured traces do not label passes.
StageErrors stage_errors(const Timeline& predicted, const Timeline& measured, const RankMapping& mapping);

}  // namespace distsim::compare
