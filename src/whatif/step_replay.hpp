#pragma once

#include <optional>
#include <span>
#include <vector>

#include "whatif/measured_trace.hpp"

namespace distsim::whatif {

//! The dependency graph of a measured trace's operations (docs/whatif.md), built once and replayed
//! with any durations. On each rank (data-parallel index, stage) of each step:
//! - the forward and backward computations run one after another in their measured order;
//! - each pipeline transfer type (forward or backward, send or receive) runs its micro-batches in
//!   order; a send waits for the computation of its micro-batch, a computation for the receive of
//!   its micro-batch, and a receive for the computation of the micro-batch before (the first
//!   backward send and receive also for the computation two before the first backward: Megatron
//!   posts them batched with the last warm-up forward's transfer);
//! - the parameter all-gathers and gradient reduce-scatters run in their measured order, and the
//!   first forward waits for the first all-gather;
//! - after the computation that ends last: gc, the layer-norm gradients' all-reduce, the embedding
//!   gradients' all-reduce (where the rank has one), the gradient reduce-scatters, the clipping's
//!   all-reduce and the optimizer, in that order.
//! An operation starts when what it waits for has ended (a step's first ones at 0). A synchronized
//! operation (OpSync) ends its transfer after the last member of its group has started: each
//! member at that instant plus its own transfer. Steps do not wait for each other.
class StepReplay {
 public:
  //! Throws InputError when an operation appears twice on a rank or the dependencies form a cycle.
  explicit StepReplay(const MeasuredTrace& trace);

  //! The steps of the trace, ascending.
  const std::vector<int>& steps() const { return steps_; }
  //! Each step's time (its last end, from 0) replaying the operations with `durations` (one per
  //! operation of the trace, in its order).
  std::vector<double> step_times(std::span<const double> durations) const;

 private:
  enum class EventKind { start, group_ready, end };
  struct Event {
    EventKind kind;
    int index;  //!< the operation, or the group
  };

  void order_events();

  std::vector<int> steps_;
  std::vector<int> step_of_op_;                  //!< index into steps_
  std::vector<std::vector<int>> prerequisites_;  //!< per operation
  std::vector<int> group_of_op_;                 //!< -1: none
  std::vector<std::vector<int>> group_members_;
  std::vector<Event> order_;  //!< every event, each after the ones it needs
};

}  // namespace distsim::whatif
