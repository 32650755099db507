#include "events/backward_split.hpp"

#include <algorithm>
#include <string>

#include "core/input_error.hpp"

namespace distsim::events {

void split_backward(ChunkWork& work) {
  const auto& backward = work.backward;
  std::vector<int> split_index(backward.size(), -1);
  std::vector<int> weight_count_through(backward.size(), 0);  // W templates at or before each index
  work.backward_input.clear();
  work.backward_weight.clear();
  const auto weight_steps = static_cast<std::size_t>(
      std::count_if(backward.begin(), backward.end(), [](const TaskTemplate& step) { return step.weight_gradient; }));
  work.backward_weight.reserve(weight_steps);
  work.backward_input.reserve(backward.size() - weight_steps);
  for (size_t i = 0; i < backward.size(); ++i) {
    TaskTemplate step = backward[i];
    auto& list = step.weight_gradient ? work.backward_weight : work.backward_input;
    if (step.waits_for >= 0) {
      const auto target = static_cast<size_t>(step.waits_for);
      if (backward[target].weight_gradient == step.weight_gradient) {
        step.waits_for = split_index[target];
      } else if (step.weight_gradient) {
        step.waits_for = -1;
      } else {
        throw InternalError("backward template " + std::to_string(i) + " ('" + std::string(step.label) +
                            "') waits for a weight-gradient GEMM");
      }
    }
    if (step.weight_gradient) {
      step.phase = Phase::weight_gradient;
    }
    split_index[i] = static_cast<int>(list.size());
    list.push_back(step);
    weight_count_through[i] = static_cast<int>(work.backward_weight.size());
  }
  for (auto& bucket : work.gradient_buckets) {
    // A bucket whose gradients all come from B (none does in a transformer: every run of
    // parameters ends with a layer's or the head's wgrad) is ready with the first W.
    const int count = bucket.ready_after >= 0 ? weight_count_through[static_cast<size_t>(bucket.ready_after)] : 0;
    bucket.weight_ready_after = count > 0 ? count - 1 : 0;
  }
}

}  // namespace distsim::events
