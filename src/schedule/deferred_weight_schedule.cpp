#include "schedule/deferred_weight_schedule.hpp"

#include <algorithm>

namespace distsim::schedule {

std::vector<Step> DeferredWeightSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_one_chunk(num_chunks);
  const int warmup = std::min(warmup_forwards(stage, num_stages), num_microbatches);
  const int delay = weight_delay(stage);
  std::vector<Step> steps;
  steps.reserve(3 * static_cast<size_t>(num_microbatches));
  int next_forward = 0;
  int next_input = 0;
  int next_weight = 0;
  const auto input_then_deferred_weight = [&] {
    steps.push_back({StepKind::backward_input, next_input++});
    if (next_input > delay) {
      steps.push_back({StepKind::backward_weight, next_weight++});
    }
  };
  for (; next_forward < warmup; ++next_forward) {
    steps.push_back({StepKind::forward, next_forward});
  }
  while (next_forward < num_microbatches) {
    if (forward_before_input()) {
      steps.push_back({StepKind::forward, next_forward++});
      input_then_deferred_weight();
    } else {
      input_then_deferred_weight();
      steps.push_back({StepKind::forward, next_forward++});
    }
  }
  while (next_input < num_microbatches) {
    input_then_deferred_weight();
  }
  while (next_weight < num_microbatches) {
    steps.push_back({StepKind::backward_weight, next_weight++});
  }
  return steps;
}

double DeferredWeightSchedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                      int num_chunks) const {
  return peak_in_flight(steps(stage, num_stages, num_microbatches, num_chunks), 1);
}

}  // namespace distsim::schedule
