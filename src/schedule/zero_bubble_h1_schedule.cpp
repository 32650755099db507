#include "schedule/zero_bubble_h1_schedule.hpp"

#include <algorithm>

namespace distsim::schedule {

std::string_view ZeroBubbleH1Schedule::description() const {
  return "zero bubble H1: 1F1B with backward split into B and W, W deferred to fill the cool-down; "
         "bubble (p-1)(F+B-W), 1F1B's peak memory (Qi et al. ICLR'24)";
}

std::vector<Step> ZeroBubbleH1Schedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_one_chunk(num_chunks);
  const int warmup = std::min(num_stages - stage - 1, num_microbatches);
  std::vector<Step> steps;
  steps.reserve(3 * static_cast<size_t>(num_microbatches));
  int next_forward = 0;
  int next_input = 0;
  int next_weight = 0;
  const auto input_then_deferred_weight = [&] {
    steps.push_back({StepKind::backward_input, next_input++});
    if (next_input > stage) {
      steps.push_back({StepKind::backward_weight, next_weight++});
    }
  };
  for (; next_forward < warmup; ++next_forward) {
    steps.push_back({StepKind::forward, next_forward});
  }
  while (next_forward < num_microbatches) {
    steps.push_back({StepKind::forward, next_forward++});
    input_then_deferred_weight();
  }
  while (next_input < num_microbatches) {
    input_then_deferred_weight();
  }
  while (next_weight < num_microbatches) {
    steps.push_back({StepKind::backward_weight, next_weight++});
  }
  return steps;
}

double ZeroBubbleH1Schedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                    int num_chunks) const {
  return peak_in_flight(steps(stage, num_stages, num_microbatches, num_chunks), 1);
}

}  // namespace distsim::schedule
