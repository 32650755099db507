#pragma once

#include "compare/activity_error.hpp"
#include "compare/rank_mapping.hpp"
#include "compare/stage_error.hpp"
#include "compare/timeline.hpp"

namespace distsim::compare {

//! The DistSim paper's batch-time error: (predicted − measured) / measured iteration time.
struct BatchTimeError {
  SimTime predicted = 0;
  SimTime measured = 0;
  double error = 0;
};

//! The three metrics of the DistSim paper's evaluation (Lu et al., CF'23) for one predicted and one
//! measured iteration.
struct Comparison {
  BatchTimeError batch;
  RankMapping mapping;
  ActivityErrors activity;
  StageErrors stages;
};

//! Compares a predicted with a measured iteration of the same job. Throws InputError when the
//! measured iteration has no length or a measured rank has no predicted counterpart.
Comparison compare_timelines(const Timeline& predicted, const Timeline& measured);

}  // namespace distsim::compare
