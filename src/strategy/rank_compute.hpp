#pragma once

#include <vector>

#include "strategy/gpu_placement.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::strategy {

//! How each rank computes besides where it sits: the GPU type it runs on (GpuPlacement) and the
//! slowdown `--slow-ranks` gives it by its rank or host (Variability::factor; a stage's slowdown
//! is the same for every replica and sets no rank apart from the others of its stage). Ranks that
//! compute differently cannot stand for each other (PlacementClasses).
class RankCompute {
 public:
  //! Expects a job without gpu_placement_problems.
  explicit RankCompute(const JobSpec& job);

  const GpuPlacement& gpus() const { return gpus_; }
  //! Whether some ranks of one stage compute differently from others: GPU types mixed, or a slow
  //! rank or host.
  bool varies() const { return gpus_.mixed() || !slowdown_kinds_.empty(); }
  //! A number for how `rank` computes: the same for ranks of one GPU type and rank or host slowdown.
  int kind_of_rank(int rank) const;

 private:
  GpuPlacement gpus_;
  std::vector<int> slowdown_kinds_;  //!< per rank, its slowdown's number (1 counts as 0); empty when none
  int slowdowns_ = 1;                //!< distinct slowdowns
};

}  // namespace distsim::strategy
