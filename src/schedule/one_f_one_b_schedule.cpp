#include "schedule/one_f_one_b_schedule.hpp"

#include <algorithm>

namespace distsim::schedule {

std::string_view OneFOneBSchedule::description() const {
  return "one forward one backward (PipeDream-Flush / DAPPLE); at most p micro-batches in flight "
         "(Narayanan et al. SC'21, Fan et al. PPoPP'21)";
}

std::vector<Step> OneFOneBSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_one_chunk(num_chunks);
  const int warmup = std::min(num_stages - stage - 1, num_microbatches);
  std::vector<Step> steps;
  steps.reserve(2 * static_cast<size_t>(num_microbatches));
  int next_forward = 0;
  int next_backward = 0;
  for (; next_forward < warmup; ++next_forward) {
    steps.push_back({StepKind::forward, next_forward});
  }
  while (next_forward < num_microbatches) {
    steps.push_back({StepKind::forward, next_forward++});
    steps.push_back({StepKind::backward, next_backward++});
  }
  while (next_backward < num_microbatches) {
    steps.push_back({StepKind::backward, next_backward++});
  }
  return steps;
}

double OneFOneBSchedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                int /*num_chunks*/) const {
  return std::min(num_microbatches, num_stages - stage);
}

}  // namespace distsim::schedule
