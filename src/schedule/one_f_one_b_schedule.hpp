#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! 1F1B as in PipeDream-Flush and DAPPLE (Narayanan et al. 2021; Fan et al., PPoPP'21): a
//! warm-up of min(p − stage − 1, m) forwards, then alternate one forward and one backward, then
//! drain the remaining backwards. At most p micro-batches are in flight on stage 0.
class OneFOneBSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "1f1b"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  //! min(m, p − stage): the warm-up's p − stage − 1 forwards plus the one whose backward comes
  //! next (Narayanan et al. SC'21 §2.2; Megatron-LM's warm-up count).
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  bool is_megatron_default(int num_chunks) const override { return num_chunks == 1; }
  //! Megatron-Core's forward_backward_no_pipelining: one stage only.
  bool runs_combined_1f1b(int num_stages, int /*num_chunks*/) const override { return num_stages == 1; }
};

}  // namespace distsim::schedule
