#pragma once

#include <string>
#include <vector>

#include "compare/timeline.hpp"

namespace distsim::io {

//! Reads distsim's own Chrome trace (`distsim simulate --trace`, docs/reference/formats.md §1) as the predicted
//! side of a comparison: ranks from pid, stream kinds from tid, phase and micro-batch from args,
//! the job and the iteration time from otherData. Throws InputError naming the file when it
//! cannot be read, is not JSON, has no traceEvents, is not a distsim trace, or an activity lacks
//! ts, dur or its phase.
compare::Timeline read_predicted_trace(const std::string& path);

//! Reads the measured traces of the job `predicted` describes, one file per rank (an Nsight
//! Systems export may hold several, one per GPU), each a CPU runner trace
//! (tools/profiler/distsim_run.py), a PyTorch profiler (Kineto) trace, a distsim trace or an Nsight
//! Systems SQLite export (docs/compare.md). Files without their own rank numbers take the next
//! ranks in file order. The set must hold every rank of the predicted job exactly once and
//! come from a job of the same size; otherwise InputError names the files and the rank.
compare::Timeline read_measured_traces(const std::vector<std::string>& paths, const compare::Timeline& predicted);

}  // namespace distsim::io
