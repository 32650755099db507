#include "schedule/pipeline_schedule.hpp"

#include <algorithm>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::schedule {

std::string_view GpipeSchedule::description() const {
  return "all forwards, then all backwards; keeps every micro-batch's activations (Huang et al., NeurIPS'19)";
}

std::vector<Step> GpipeSchedule::steps(int /*stage*/, int /*num_stages*/, int num_microbatches) const {
  std::vector<Step> steps;
  steps.reserve(2 * static_cast<size_t>(num_microbatches));
  for (int mb = 0; mb < num_microbatches; ++mb) {
    steps.push_back({StepKind::forward, mb});
  }
  for (int mb = 0; mb < num_microbatches; ++mb) {
    steps.push_back({StepKind::backward, mb});
  }
  return steps;
}

std::string_view OneFOneBSchedule::description() const {
  return "one forward one backward (PipeDream-Flush / DAPPLE); at most p micro-batches in flight "
         "(Narayanan et al. SC'21, Fan et al. PPoPP'21)";
}

std::vector<Step> OneFOneBSchedule::steps(int stage, int num_stages, int num_microbatches) const {
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

const std::vector<const PipelineSchedule*>& all_schedules() {
  static const GpipeSchedule gpipe;
  static const OneFOneBSchedule one_f_one_b;
  static const std::vector<const PipelineSchedule*> schedules{&gpipe, &one_f_one_b};
  return schedules;
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const auto* schedule : all_schedules()) {
    names.emplace_back(schedule->name());
  }
  return names;
}

const PipelineSchedule& find_schedule(std::string_view name) {
  for (const auto* schedule : all_schedules()) {
    if (schedule->name() == name) {
      return *schedule;
    }
  }
  throw InputError(unknown_name_message("schedule", name, schedule_names()));
}

}  // namespace distsim::schedule
