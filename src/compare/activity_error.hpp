#pragma once

#include <string_view>
#include <vector>

#include "compare/rank_mapping.hpp"
#include "compare/timeline.hpp"

namespace distsim::compare {

//! What the activity error compares: passes (compute by phase and micro-batch, communication by
//! kind, phase and micro-batch) when the measured traces label them, else one busy span per
//! class of work (compute, communication).
enum class ActivityGranularity { passes, busy_spans };

//! "passes" or "busy spans", as the output names them.
std::string_view granularity_name(ActivityGranularity granularity);

//! The DistSim paper's per-device activity error for one measured rank: the mean absolute
//! deviation of matched activities' start and end times, as fractions of the measured iteration.
struct RankActivityError {
  int measured_rank = 0;
  int predicted_rank = 0;
  int matched = 0;
  int predicted_only = 0;  //!< predicted activities with no measured counterpart
  int measured_only = 0;   //!< measured activities with no predicted counterpart
  double start_error = 0;  //!< mean |predicted start − measured start| / measured iteration
  double end_error = 0;    //!< the same for ends
  double error = 0;        //!< (start_error + end_error) / 2: the mean over both timestamps
};

struct ActivityErrors {
  ActivityGranularity granularity = ActivityGranularity::passes;
  std::vector<RankActivityError> ranks;  //!< one per measured rank
  int ranks_with_matches = 0;            //!< ranks in the means below (those with at least one match)
  double mean_start_error = 0;
  double mean_end_error = 0;
  double mean_error = 0;
};

//! The activity error of every measured rank against its mapped predicted rank. Both sides'
//! times count from their iteration's begin; deviations are relative to the measured iteration.
ActivityErrors activity_errors(const Timeline& predicted, const Timeline& measured, const RankMapping& mapping);

}  // namespace distsim::compare
