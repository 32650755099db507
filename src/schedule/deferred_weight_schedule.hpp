#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! The family of one-chunk schedules that split the backward into B (input gradient) and W
//! (weight gradients) and run each W some micro-batches after its B (Qi et al., "Zero Bubble
//! (Almost) Pipeline Parallelism", ICLR'24). A member says only how many forwards a stage runs
//! before its first B, how many micro-batches late its W passes come, and whether the steady
//! state puts F before or after B; the step order, the W passes still owed at the end and the
//! micro-batches in flight follow from those.
class DeferredWeightSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::vector<StepKind> step_kinds() const override {
    return {StepKind::forward, StepKind::backward_input, StepKind::backward_weight};
  }
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const final;
  //! Counted from the step order: a micro-batch is held from its F until its W.
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const final;

 protected:
  //! Forwards `stage` runs before its first B (before clipping to the micro-batch count).
  virtual int warmup_forwards(int stage, int num_stages) const = 0;
  //! How many B passes of `stage` come before its first W.
  virtual int weight_delay(int stage) const = 0;
  //! Whether each steady-state round is F, B, W (1F1B's order) rather than B, W, F.
  virtual bool forward_before_input() const = 0;
};

}  // namespace distsim::schedule
