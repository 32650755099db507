#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/activity.hpp"
#include "whatif/measured_trace.hpp"

namespace distsim::whatif {

//! One device activity of a simulated iteration as distsim's trace writes it (`simulate --trace`):
//! where it ran, on which stream, its phase and micro-batch, its task label and its times.
struct SimulatedActivity {
  int dp = 0;
  int stage = 0;
  int tp = 0;
  compare::ActivityKind kind = compare::ActivityKind::compute;
  std::optional<events::Phase> phase;
  int microbatch = -1;
  std::string label;
  SimTime start = 0;
  SimTime end = 0;
};

//! The job around a simulated trace, as far as the replay needs it.
struct SimulatedJob {
  int data_parallel = 1;  //!< the job's, which a trace of one replica holds only part of
  int context_parallel = 1;
  int virtual_stages = 1;
};

//! The operations of a Megatron step (docs/whatif.md) that a simulated iteration's activities
//! make, on each (data-parallel rank, stage) of its lowest tensor-parallel rank, as step 0:
//! - a micro-batch's forward (or backward, with its recomputation) is one computation from its
//!   first activity's start to its last one's end, over the compute stream and the collectives
//!   inside the pass (tensor, context, expert parallel), as Megatron's timers take a pass;
//! - each pipeline transfer is the send or receive of its micro-batch (the stream says which);
//! - the iteration end's tasks by their labels (program/iteration_end.hpp): the gradient buckets'
//!   reductions as reduce-scatters in their order, the sequence-parallel norms' all-reduce, the
//!   tied embedding's all-reduce, the optimizer step and the parameter all-gathers.
//! Throws InputError, its message starting with `where`, for what the replay does not model: virtual
//! pipeline stages, context parallelism, split weight-gradient passes (zero-bubble schedules),
//! sharded parameters gathered inside the passes, hierarchical data-parallel groups, expert
//! data-parallel reductions and gradients summed between stages holding a parameter's copies.
MeasuredTrace simulated_operations(const SimulatedJob& job, const std::vector<SimulatedActivity>& activities,
                                   const std::string& where);

}  // namespace distsim::whatif
