#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distsim::schedule {

enum class StepKind { forward, backward };

//! One forward or backward pass of one micro-batch through one model chunk of a stage.
struct Step {
  StepKind kind = StepKind::forward;
  int microbatch = 0;
  int chunk = 0;  //!< model chunk on this stage: 0 unless the schedule is interleaved
  bool operator==(const Step&) const = default;
};

//! Orders each pipeline stage's forward and backward passes. Every stage must run the forwards
//! of each chunk in micro-batch order, and likewise the backwards, so that transfers between
//! stages pair up in order.
class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  virtual std::string_view name() const = 0;
  //! One line for `distsim list schedules`, with the citation.
  virtual std::string_view description() const = 0;
  //! The passes of `stage` (0-based) in execution order, when each stage holds `num_chunks`
  //! model chunks. Only the interleaved schedule accepts more than one chunk.
  virtual std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const = 0;
  //! The passes of `stage` with one model chunk per stage.
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches) const {
    return steps(stage, num_stages, num_microbatches, 1);
  }
};

//! GPipe (Huang et al., NeurIPS'19): all forwards, then all backwards.
class GpipeSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "gpipe"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
};

//! 1F1B as in PipeDream-Flush and DAPPLE (Narayanan et al. 2021; Fan et al., PPoPP'21): a
//! warm-up of min(p − stage − 1, m) forwards, then alternate one forward and one backward, then
//! drain the remaining backwards. At most p micro-batches are in flight on stage 0.
class OneFOneBSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "1f1b"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
};

//! Interleaved 1F1B (Narayanan et al., SC'21 §2.2; Megatron-LM's
//! forward_backward_pipelining_with_interleaving): each stage holds v model chunks (stage s
//! holds chunks s, s + p, s + 2p, ...), which shrinks the bubble to (p − 1)/(v·m) of the ideal
//! time. The m·v passes of a stage run in groups of p micro-batches: forward through chunk 0 for
//! p micro-batches, then chunk 1 for the same ones, and so on; backwards visit the chunks in
//! reverse. Warm-up is 2(p − stage − 1) + (v − 1)p forwards (all of them when m = p), then one
//! forward and one backward alternate. Requires m to be a multiple of p.
class InterleavedSchedule : public PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "interleaved"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches, int num_chunks) const override;
};

//! The schedules distsim knows, by name.
const std::vector<const PipelineSchedule*>& all_schedules();
//! Throws InputError with the closest name when `name` is unknown.
const PipelineSchedule& find_schedule(std::string_view name);
std::vector<std::string> schedule_names();

}  // namespace distsim::schedule
