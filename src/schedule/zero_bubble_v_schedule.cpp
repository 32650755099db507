#include "schedule/zero_bubble_v_schedule.hpp"

#include <array>
#include <deque>

#include "core/input_error.hpp"

namespace distsim::schedule {

std::string_view ZeroBubbleVSchedule::description() const {
  return "zero bubble V: two chunks per stage in a V, backward split into B and W; no bubble after the "
         "staggered start when F = B = W, 1F1B's peak memory (Qi et al. ICLR'24, NeurIPS'24)";
}

namespace {

constexpr int kUnset = -1;

//! The unit-slot greedy of ZeroBubbleVSchedule over all stages at once: when each step of each
//! stage ends, and the order in which each stage runs its steps.
class VGreedy {
 public:
  VGreedy(int num_stages, int num_microbatches)
      : stages_(num_stages),
        microbatches_(num_microbatches),
        forward_end_(slots(), kUnset),
        input_end_(slots(), kUnset),
        state_(static_cast<size_t>(num_stages)),
        order_(static_cast<size_t>(num_stages)) {}

  std::vector<std::vector<Step>> run() {
    const size_t total = 6 * static_cast<size_t>(stages_) * static_cast<size_t>(microbatches_);
    size_t placed = 0;
    std::vector<std::pair<int, Step>> ended;
    for (int slot = 0; placed < total; ++slot) {
      ended.clear();
      for (int stage = 0; stage < stages_; ++stage) {
        const auto step = choose(stage, slot);
        if (step) {
          take(stage, *step);
          ended.emplace_back(stage, *step);
          ++placed;
        }
      }
      for (const auto& [stage, step] : ended) {
        if (step.kind == StepKind::forward) forward_end_[index(stage, step.chunk, step.microbatch)] = slot + 1;
        if (step.kind == StepKind::backward_input) input_end_[index(stage, step.chunk, step.microbatch)] = slot + 1;
      }
      if (ended.empty() && slot > 8 * static_cast<int>(total)) {
        throw InternalError("the zbv greedy placed no step");
      }
    }
    return std::move(order_);
  }

 private:
  struct StageState {
    std::array<int, 2> next_forward{0, 0};
    std::array<int, 2> next_input{0, 0};
    std::deque<Step> owed_weights;
    int held = 0;  //!< chunk activations from F until W
  };

  size_t slots() const { return static_cast<size_t>(stages_) * 2 * static_cast<size_t>(microbatches_); }
  size_t index(int stage, int chunk, int microbatch) const {
    return (static_cast<size_t>(stage) * 2 + static_cast<size_t>(chunk)) * static_cast<size_t>(microbatches_) +
           static_cast<size_t>(microbatch);
  }
  bool ended_by(const std::vector<int>& ends, int stage, int chunk, int microbatch, int slot) const {
    const int end = ends[index(stage, chunk, microbatch)];
    return end != kUnset && end <= slot;
  }

  //! Whether the input of F (chunk, microbatch) on `stage` is there at `slot`: down the V from
  //! the previous stage, at its bottom from the same stage's first chunk, back up from the next.
  bool forward_ready(int stage, int chunk, int microbatch, int slot) const {
    if (chunk == 0) {
      return stage == 0 || ended_by(forward_end_, stage - 1, 0, microbatch, slot);
    }
    return stage + 1 == stages_ ? ended_by(forward_end_, stage, 0, microbatch, slot)
                                : ended_by(forward_end_, stage + 1, 1, microbatch, slot);
  }
  //! Whether B (chunk, microbatch) can run: its F is done and the output gradient has arrived,
  //! the reverse of the forward's path.
  bool input_ready(int stage, int chunk, int microbatch, int slot) const {
    if (!ended_by(forward_end_, stage, chunk, microbatch, slot)) return false;
    if (chunk == 1) {
      return stage == 0 || ended_by(input_end_, stage - 1, 1, microbatch, slot);
    }
    return stage + 1 == stages_ ? ended_by(input_end_, stage, 1, microbatch, slot)
                                : ended_by(input_end_, stage + 1, 0, microbatch, slot);
  }

  std::optional<Step> choose(int stage, int slot) const {
    const StageState& state = state_[static_cast<size_t>(stage)];
    std::optional<Step> input;
    for (int chunk : {1, 0}) {
      const int k = state.next_input[static_cast<size_t>(chunk)];
      if (k < microbatches_ && input_ready(stage, chunk, k, slot) && (!input || k < input->microbatch)) {
        input = Step{StepKind::backward_input, k, chunk};
      }
    }
    if (input) return input;
    if (state.held < 2 * stages_) {
      for (int chunk : {1, 0}) {
        const int k = state.next_forward[static_cast<size_t>(chunk)];
        if (k < microbatches_ && forward_ready(stage, chunk, k, slot)) return Step{StepKind::forward, k, chunk};
      }
    }
    if (!state.owed_weights.empty()) return state.owed_weights.front();
    return std::nullopt;
  }

  void take(int stage, const Step& step) {
    StageState& state = state_[static_cast<size_t>(stage)];
    const auto chunk = static_cast<size_t>(step.chunk);
    if (step.kind == StepKind::forward) {
      ++state.next_forward[chunk];
      ++state.held;
    } else if (step.kind == StepKind::backward_input) {
      ++state.next_input[chunk];
      state.owed_weights.push_back({StepKind::backward_weight, step.microbatch, step.chunk});
    } else {
      state.owed_weights.pop_front();
      --state.held;
    }
    order_[static_cast<size_t>(stage)].push_back(step);
  }

  int stages_;
  int microbatches_;
  std::vector<int> forward_end_;
  std::vector<int> input_end_;
  std::vector<StageState> state_;
  std::vector<std::vector<Step>> order_;
};

}  // namespace

std::vector<Step> ZeroBubbleVSchedule::steps(int stage, int num_stages, int num_microbatches, int num_chunks) const {
  auto all = all_steps(num_stages, num_microbatches, num_chunks);
  return std::move(all[static_cast<size_t>(stage)]);
}

std::vector<std::vector<Step>> ZeroBubbleVSchedule::all_steps(int num_stages, int num_microbatches,
                                                              int num_chunks) const {
  require_two_chunks(num_chunks);
  return VGreedy(num_stages, num_microbatches).run();
}

}  // namespace distsim::schedule
