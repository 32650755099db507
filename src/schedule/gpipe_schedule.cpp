#include "schedule/gpipe_schedule.hpp"

namespace distsim::schedule {

std::string_view GpipeSchedule::description() const {
  return "all forwards, then all backwards; keeps every micro-batch's activations (Huang et al., NeurIPS'19)";
}

std::vector<Step> GpipeSchedule::steps(int /*stage*/, int /*num_stages*/, int num_microbatches, int num_chunks) const {
  require_one_chunk(num_chunks);
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

double GpipeSchedule::microbatches_in_flight(int /*stage*/, int /*num_stages*/, int num_microbatches,
                                             int /*num_chunks*/) const {
  return num_microbatches;
}

}  // namespace distsim::schedule
