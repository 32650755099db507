#pragma once

#include "compare/rank_mapping.hpp"
#include "compare/timeline.hpp"

namespace distsim::compare {

//! `measured` with the micro-batches of its passes numbered as the predicted schedule runs them,
//! for a trace whose passes are numbered by their order (Timeline::microbatches_by_order; an
//! interleaved schedule runs micro-batch 0's forward on each model chunk before micro-batch 2's).
//! On each measured rank, per compared kind and phase, the k-th distinct micro-batch of its
//! activities numbered by order (Activity::microbatch_by_order), in start order, takes the micro-batch of the k-th pass
//! of that kind and phase on the predicted rank `mapping` pairs it with, where both ranks have as many; elsewhere the
//! order stands. A timeline numbered by its trace is returned as it is.
Timeline relabel_by_predicted_order(const Timeline& predicted, Timeline measured, const RankMapping& mapping);

}  // namespace distsim::compare
