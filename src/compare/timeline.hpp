#pragma once

#include <string>
#include <vector>

#include "compare/activity.hpp"
#include "strategy/rank_layout.hpp"
#include "strategy/strategy.hpp"

namespace distsim::compare {

//! The activities of one rank, read from one trace file.
struct RankTimeline {
  int rank = 0;
  strategy::RankCoord coord;         //!< tensor, data and pipeline position of the rank
  std::string file;                  //!< the trace it came from, for messages
  std::vector<Activity> activities;  //!< ordered by (start, end)
};

//! One side of a comparison: the ranks of one job over one training iteration. `begin` and
//! `end` bound the iteration on the traces' clock; every comparison measures times from `begin`.
struct Timeline {
  std::string format;              //!< "distsim trace", "distsim runner" or "PyTorch profiler (Kineto)"
  std::vector<std::string> files;  //!< the trace files it was read from, as given
  strategy::Strategy job;          //!< tp, pp, dp (and schedule, batches when the trace says them)
  SimTime begin = 0;
  SimTime end = 0;
  //! Whether every activity that belongs to a pass carries its phase and micro-batch; without
  //! them only whole-iteration and busy-span comparisons are possible.
  bool pass_labels = true;
  //! Whether the micro-batches of some of its passes are their order on the rank (the k-th
  //! forward pass is micro-batch k; Activity::microbatch_by_order) rather than read from the
  //! trace; the comparison then numbers them as the predicted schedule runs them
  //! (relabel_by_predicted_order).
  bool microbatches_by_order = false;
  //! How finely it tells communication apart (CommunicationDetail).
  CommunicationDetail communication = CommunicationDetail::streams;
  std::vector<RankTimeline> ranks;  //!< ordered by rank, each rank once

  SimTime iteration() const { return end - begin; }
  //! The timeline of `rank`, or nullptr when this side has none.
  const RankTimeline* find(int rank) const;
};

}  // namespace distsim::compare
