#include "schedule/pipeline_schedule.hpp"

#include <algorithm>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::schedule {

namespace {

void require_one_chunk(std::string_view schedule, int num_chunks) {
  if (num_chunks != 1) {
    throw InternalError("schedule '" + std::string(schedule) + "' runs one model chunk per stage, asked for " +
                        std::to_string(num_chunks) + " (validation should have rejected this)");
  }
}

}  // namespace

std::string_view GpipeSchedule::description() const {
  return "all forwards, then all backwards; keeps every micro-batch's activations (Huang et al., NeurIPS'19)";
}

std::vector<Step> GpipeSchedule::steps(int /*stage*/, int /*num_stages*/, int num_microbatches, int num_chunks) const {
  require_one_chunk(name(), num_chunks);
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

std::vector<Step> OneFOneBSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_one_chunk(name(), num_chunks);
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

std::string_view InterleavedSchedule::description() const {
  return "interleaved 1F1B with v model chunks per stage (--virtual-stages); bubble (p-1)/(v*m) "
         "(Narayanan et al. SC'21)";
}

namespace {

//! The k-th pass of one kind on a stage, numbered as Megatron-LM numbers "virtual micro-batches":
//! groups of p·v passes, each group covering p micro-batches once per chunk.
Step interleaved_pass(StepKind kind, int k, int num_stages, int num_chunks) {
  const int group_size = num_stages * num_chunks;
  const int in_group = k % group_size;
  int chunk = in_group / num_stages;
  if (kind == StepKind::backward) {
    chunk = num_chunks - 1 - chunk;
  }
  return {kind, (k / group_size) * num_stages + in_group % num_stages, chunk};
}

}  // namespace

std::vector<Step> InterleavedSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  const int total = num_microbatches * num_chunks;
  // Megatron runs every forward first when there are exactly as many micro-batches as stages.
  const int warmup = num_microbatches == num_stages
                         ? total
                         : std::min(2 * (num_stages - stage - 1) + (num_chunks - 1) * num_stages, total);
  std::vector<Step> steps;
  steps.reserve(2 * static_cast<size_t>(total));
  for (int k = 0; k < warmup; ++k) {
    steps.push_back(interleaved_pass(StepKind::forward, k, num_stages, num_chunks));
  }
  for (int k = 0; k + warmup < total; ++k) {
    steps.push_back(interleaved_pass(StepKind::forward, k + warmup, num_stages, num_chunks));
    steps.push_back(interleaved_pass(StepKind::backward, k, num_stages, num_chunks));
  }
  for (int k = total - warmup; k < total; ++k) {
    steps.push_back(interleaved_pass(StepKind::backward, k, num_stages, num_chunks));
  }
  return steps;
}

const std::vector<const PipelineSchedule*>& all_schedules() {
  static const GpipeSchedule gpipe;
  static const OneFOneBSchedule one_f_one_b;
  static const InterleavedSchedule interleaved;
  static const std::vector<const PipelineSchedule*> schedules{&gpipe, &one_f_one_b, &interleaved};
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
