#pragma once

#include "schedule/v_shape_schedule.hpp"

namespace distsim::schedule {

//! ZBV, the V-shape zero-bubble schedule (Qi et al., "Zero Bubble (Almost) Pipeline Parallelism",
//! ICLR'24 §6, and "Pipeline Parallelism with Controllable Memory", NeurIPS'24: V-ZB): two chunks
//! per stage in a V (VShapeSchedule), backward split into B and W, at most 2p chunk activations
//! (p micro-batches, 1F1B's peak) held on a stage.
//!
//! The paper's scheduler places steps greedily with the profiled step times. distsim builds the
//! order once, for T_F = T_B = T_W, by the same kind of greedy in unit time slots: in each slot a
//! stage runs a B whose input gradient has arrived (the oldest micro-batch first, the second chunk
//! first), else an F whose input has arrived if it holds fewer than 2p chunk activations (the
//! second chunk first), else the oldest W it owes; the order is then kept whatever the step times.
class ZeroBubbleVSchedule : public VShapeSchedule {
 public:
  std::string_view name() const override { return "zbv"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  std::vector<std::vector<Step>> all_steps(int num_stages, int num_microbatches, int num_chunks) const override;
};

}  // namespace distsim::schedule
