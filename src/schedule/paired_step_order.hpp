#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

#include "schedule/step_kind.hpp"

namespace distsim::schedule {

//! Builds one rank's steps of a two-chunk schedule that pairs forwards and backwards (DualPipe,
//! DualPipeV) in the order its phases call them: each chunk's forward and B counters, and the
//! queue of W passes deferred to later (run in the order their B ran).
class PairedStepOrder {
 public:
  //! `first_microbatch` is the micro-batch each chunk starts from.
  explicit PairedStepOrder(std::array<int, 2> first_microbatch = {0, 0})
      : next_forward_(first_microbatch), next_input_(first_microbatch) {}

  void forward(int chunk) { steps_.push_back({StepKind::forward, next_forward_[index(chunk)]++, chunk}); }
  //! B of the chunk's next micro-batch; its W runs at once (a full backward) unless deferred.
  void backward(int chunk, bool defer_weight) {
    const Step weight{StepKind::backward_weight, next_input_[index(chunk)], chunk};
    steps_.push_back({StepKind::backward_input, next_input_[index(chunk)]++, chunk});
    if (defer_weight) {
      owed_.push_back(weight);
    } else {
      steps_.push_back(weight);
    }
  }
  //! DualPipe's F&B: the chunk's next forward overlapped with a full backward (B and W) of
  //! `backward_chunk`'s next micro-batch.
  void overlapped(int forward_chunk, int backward_chunk) {
    forward(forward_chunk);
    const int microbatch = next_input_[index(backward_chunk)]++;
    steps_.push_back({StepKind::backward_input, microbatch, backward_chunk, Overlap::communication});
    steps_.push_back({StepKind::backward_weight, microbatch, backward_chunk, Overlap::communication});
  }
  //! The oldest deferred W.
  void deferred_weight() {
    steps_.push_back(owed_.front());
    owed_.pop_front();
  }
  //! `pairs` rounds of B on `first` then B on `second`, W deferred from the middle round on:
  //! the second half of the backwards defers W, and with an even number of rounds the first
  //! chunk of the middle round already does (dualpipe.py's and dualpipev.py's sixth phase).
  void closing_backwards(int pairs, int first, int second) {
    bool defer = false;
    const bool early = pairs % 2 == 0;
    for (int i = 0; i < pairs; ++i) {
      if (i == pairs / 2 && early) defer = true;
      backward(first, defer);
      if (i == pairs / 2 && !early) defer = true;
      backward(second, defer);
    }
  }
  std::vector<Step> take() { return std::move(steps_); }

 private:
  static size_t index(int chunk) { return static_cast<size_t>(chunk); }
  std::vector<Step> steps_;
  std::array<int, 2> next_forward_;
  std::array<int, 2> next_input_;
  std::deque<Step> owed_;
};

//! Calls `body` `times` times.
void repeat(int times, const auto& body) {
  for (int i = 0; i < times; ++i) {
    body();
  }
}

}  // namespace distsim::schedule
