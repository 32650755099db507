#pragma once

#include "schedule/deferred_weight_schedule.hpp"

namespace distsim::schedule {

//! ZB-H2 (Qi et al., "Zero Bubble (Almost) Pipeline Parallelism", ICLR'24 §2.2): more memory
//! for a near-zero bubble. Stage s warms up with min(2(p − s) − 1, m) forwards, enough to fill
//! the time until its first B arrives; then it repeats B, the W owed, F, with its W passes 2s
//! micro-batches late, and runs the W passes still owed at the end. Each stage's own span is
//! m(T_F + T_B + T_W) plus at most (p − 1)(T_F + T_B − 2T_W) (the paper's Table 2 bubble, on
//! stage 0); stage s starts s·T_F late, which the paper overlaps with the previous iteration by
//! bypassing the optimizer's synchronization (§4) and distsim, simulating one iteration, counts.
//!
//! In flight, min(m, 2p − 1) on every stage: 2(p − s) − 1 micro-batches between F and B and 2s
//! between B and W, which the paper counts as (2p − 2s − 1)M_B + 2s·M_W; distsim holds a
//! micro-batch's activations whole until its W, an upper bound equal to the paper's peak
//! (2p − 1)M_B on stage 0.
class ZeroBubbleH2Schedule : public DeferredWeightSchedule {
 public:
  std::string_view name() const override { return "zb-h2"; }
  std::string_view description() const override;

 protected:
  int warmup_forwards(int stage, int num_stages) const override { return 2 * (num_stages - stage) - 1; }
  int weight_delay(int stage) const override { return 2 * stage; }
  bool forward_before_input() const override { return false; }
};

}  // namespace distsim::schedule
