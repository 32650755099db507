#include "schedule/zero_bubble_h2_schedule.hpp"

#include <algorithm>

namespace distsim::schedule {

std::string_view ZeroBubbleH2Schedule::description() const {
  return "zero bubble H2: backward split into B and W, 2(p-s)-1 warm-up forwards, W deferred by 2s; "
         "bubble (p-1)(F+B-2W), 2p-1 micro-batches in flight (Qi et al. ICLR'24)";
}

std::vector<Step> ZeroBubbleH2Schedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_one_chunk(num_chunks);
  const int warmup = std::min(2 * (num_stages - stage) - 1, num_microbatches);
  const int deferred = 2 * stage;
  std::vector<Step> steps;
  steps.reserve(3 * static_cast<size_t>(num_microbatches));
  int next_forward = 0;
  int next_input = 0;
  int next_weight = 0;
  const auto input_then_deferred_weight = [&] {
    steps.push_back({StepKind::backward_input, next_input++});
    if (next_input > deferred) {
      steps.push_back({StepKind::backward_weight, next_weight++});
    }
  };
  for (; next_forward < warmup; ++next_forward) {
    steps.push_back({StepKind::forward, next_forward});
  }
  while (next_forward < num_microbatches) {
    input_then_deferred_weight();
    steps.push_back({StepKind::forward, next_forward++});
  }
  while (next_input < num_microbatches) {
    input_then_deferred_weight();
  }
  while (next_weight < num_microbatches) {
    steps.push_back({StepKind::backward_weight, next_weight++});
  }
  return steps;
}

double ZeroBubbleH2Schedule::microbatches_in_flight(int stage, int num_stages, int num_microbatches,
                                                    int num_chunks) const {
  return peak_in_flight(steps(stage, num_stages, num_microbatches, num_chunks), 1);
}

}  // namespace distsim::schedule
