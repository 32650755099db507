#pragma once

#include "schedule/v_shape_schedule.hpp"

namespace distsim::schedule {

//! DualPipeV (deepseek-ai/DualPipe, dualpipev.py and its README; Sea AI Lab's "cut-in-half" of
//! DualPipe from the DeepSeek-V3 technical report, arXiv 2412.19437 §3.2.1): two chunks per stage
//! in a V (VShapeSchedule), micro-batches entering at stage 0 and coming back to it. Rank r of n
//! runs eight phases: 2(n − r − 1) forwards of chunk 0; r + 1 pairs F0 F1; n − r − 1 rounds B1 W
//! F1 with W deferred; m − 2n + r + 1 main rounds F0&B1 F1&B0, each a forward overlapped with a
//! full backward of another micro-batch; n − r − 1 rounds B1 F1&B0; r + 1 pairs B1 B0, the second
//! half with W deferred; n − r − 1 rounds W B0 (deferred); the r + 1 W still owed. W passes run in
//! the order their B ran. Needs m ≥ 2n.
//!
//! A full backward is B followed at once by W; in an overlapped pair F&B the B and W steps
//! overlap the F (Step::overlaps_previous), so the program builder interleaves their segments
//! and one side's communication (tensor collectives, expert all-to-all) runs under the other's
//! computation.
class DualPipeVSchedule : public VShapeSchedule {
 public:
  std::string_view name() const override { return "dualpipev"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
  bool overlaps_steps() const override { return true; }
  //! VShapeSchedule's rules and at least 2p micro-batches (dualpipev.py's assertion).
  void check(const strategy::JobSpec& job, std::vector<std::string>& problems) const override;
};

}  // namespace distsim::schedule
