#pragma once

#include "schedule/schedule.hpp"

namespace distsim::schedule {

//! GPipe (Huang et al., NeurIPS'19): all forwards, then all backwards, so every micro-batch's
//! activations are held at once.
class GpipeSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "gpipe"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  //! m: every forward runs before the first backward.
  double microbatches_in_flight(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
};

}  // namespace distsim::schedule
