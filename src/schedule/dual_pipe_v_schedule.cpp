#include "schedule/dual_pipe_v_schedule.hpp"

#include <array>
#include <deque>

namespace distsim::schedule {

std::string_view DualPipeVSchedule::description() const {
  return "DualPipeV: DualPipe cut in half, two chunks per stage in a V, forward and backward of two "
         "micro-batches paired; bubble (PP/2-1)(F&B+B-3W), 2p+1 chunk activations (DeepSeek-V3 report, "
         "deepseek-ai/DualPipe)";
}

namespace {

//! Appends the steps of one rank as dualpipev.py's phases call them, keeping each chunk's
//! micro-batch counters and the queue of deferred W passes.
class DualPipeVOrder {
 public:
  std::vector<Step> steps;

  void forward(int chunk) { steps.push_back({StepKind::forward, next_forward_[index(chunk)]++, chunk}); }
  //! B of the chunk's next micro-batch; its W runs at once (a full backward) unless deferred.
  void backward(int chunk, bool defer_weight) {
    const Step weight{StepKind::backward_weight, next_input_[index(chunk)], chunk};
    steps.push_back({StepKind::backward_input, next_input_[index(chunk)]++, chunk});
    if (defer_weight) {
      owed_.push_back(weight);
    } else {
      steps.push_back(weight);
    }
  }
  void deferred_weight() {
    steps.push_back(owed_.front());
    owed_.pop_front();
  }

 private:
  static size_t index(int chunk) { return static_cast<size_t>(chunk); }
  std::array<int, 2> next_forward_{0, 0};
  std::array<int, 2> next_input_{0, 0};
  std::deque<Step> owed_;
};

void repeat(int times, const auto& body) {
  for (int i = 0; i < times; ++i) {
    body(i);
  }
}

}  // namespace

std::vector<Step> DualPipeVSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  require_two_chunks(num_chunks);
  const int rank = stage;
  const int ranks = num_stages;
  DualPipeVOrder order;
  repeat(2 * (ranks - rank - 1), [&](int) { order.forward(0); });
  repeat(rank + 1, [&](int) {
    order.forward(0);
    order.forward(1);
  });
  repeat(ranks - rank - 1, [&](int) {
    order.backward(1, true);
    order.deferred_weight();
    order.forward(1);
  });
  repeat(num_microbatches - 2 * ranks + rank + 1, [&](int) {
    order.forward(0);
    order.backward(1, false);
    order.forward(1);
    order.backward(0, false);
  });
  repeat(ranks - rank - 1, [&](int) {
    order.backward(1, false);
    order.forward(1);
    order.backward(0, false);
  });
  // The second half of these backwards defers W; an odd rank starts deferring one chunk earlier.
  const int pairs = rank + 1;
  bool defer = false;
  repeat(pairs, [&](int i) {
    if (i == pairs / 2 && rank % 2 == 1) defer = true;
    order.backward(1, defer);
    if (i == pairs / 2 && rank % 2 == 0) defer = true;
    order.backward(0, defer);
  });
  repeat(ranks - rank - 1, [&](int) {
    order.deferred_weight();
    order.backward(0, true);
  });
  repeat(rank + 1, [&](int) { order.deferred_weight(); });
  return std::move(order.steps);
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
