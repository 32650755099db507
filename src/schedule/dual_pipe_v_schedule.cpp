#include "schedule/dual_pipe_v_schedule.hpp"

#include "schedule/paired_step_order.hpp"

namespace distsim::schedule {

std::string_view DualPipeVSchedule::description() const {
  return "DualPipeV: DualPipe cut in half, two chunks per stage in a V, forward and backward of two "
         "micro-batches paired; bubble (PP/2-1)(F&B+B-3W), 2p+1 chunk activations (DeepSeek-V3 report, "
         "deepseek-ai/DualPipe)";
}

std::vector<Step> DualPipeVSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_two_chunks(num_chunks);
  const int rank = stage;
  const int ranks = num_stages;
  PairedStepOrder order;
  repeat(2 * (ranks - rank - 1), [&] { order.forward(0); });
  repeat(rank + 1, [&] {
    order.forward(0);
    order.forward(1);
  });
  repeat(ranks - rank - 1, [&] {
    order.backward(1, true);
    order.deferred_weight();
    order.forward(1);
  });
  repeat(num_microbatches - 2 * ranks + rank + 1, [&] {
    order.overlapped(0, 1);
    order.overlapped(1, 0);
  });
  repeat(ranks - rank - 1, [&] {
    order.backward(1, false);
    order.overlapped(1, 0);
  });
  order.closing_backwards(rank + 1, 1, 0);
  repeat(ranks - rank - 1, [&] {
    order.deferred_weight();
    order.backward(0, true);
  });
  repeat(rank + 1, [&] { order.deferred_weight(); });
  return order.take();
}

void DualPipeVSchedule::check(const strategy::JobSpec& job, std::vector<std::string>& problems) const {
  VShapeSchedule::check(job, problems);
  const strategy::Strategy& s = job.strategy;
  if (s.pipeline_parallel < 2 || s.micro_batch_size <= 0 || s.data_parallel <= 0) {
    return;
  }
  const long long per_step = static_cast<long long>(s.micro_batch_size) * s.data_parallel;
  if (s.global_batch_size % per_step == 0 && s.num_microbatches() < 2 * s.pipeline_parallel) {
    problems.push_back("schedule 'dualpipev' needs at least 2 x pipeline = " + std::to_string(2 * s.pipeline_parallel) +
                       " micro-batches, got " + std::to_string(s.num_microbatches()));
  }
}

}  // namespace distsim::schedule
