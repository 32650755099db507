#pragma once

#include "schedule/deferred_weight_schedule.hpp"

namespace distsim::schedule {

//! ZB-H1 (Qi et al., "Zero Bubble (Almost) Pipeline Parallelism", ICLR'24 §2.1): 1F1B with the
//! backward split into B (input gradient, sent upstream at once) and W (weight gradients). Stage
//! s runs 1F1B's warm-up of min(p − s − 1, m) forwards, then F and B alternate as in 1F1B, but
//! its W passes start s micro-batches late: after the k-th B it runs W of micro-batch k − s (once
//! k ≥ s), and the W passes still owed run at the end, where they fill the cool-down bubble.
//! With fixed step times and free communication the bubble is (p − 1)(T_F + T_B − T_W), against
//! 1F1B's (p − 1)(T_F + T_B + T_W) (the paper's Table 2).
//!
//! In flight, min(m, p) on every stage: p − s micro-batches between F and B and s between B and W.
//! The paper counts the latter at M_W, less than a whole micro-batch's M_B (its Table 1: 32sbh
//! against sb(34h + 5as)), giving (p − s)M_B + sM_W; distsim keeps a micro-batch's activations
//! whole until its W, so its count is an upper bound that equals the paper's peak p·M_B on stage 0,
//! where 1F1B peaks too.
class ZeroBubbleH1Schedule : public DeferredWeightSchedule {
 public:
  std::string_view name() const override { return "zb-h1"; }
  std::string_view description() const override;

 protected:
  int warmup_forwards(int stage, int num_stages) const override { return num_stages - stage - 1; }
  int weight_delay(int stage) const override { return stage; }
  bool forward_before_input() const override { return true; }
};

}  // namespace distsim::schedule
