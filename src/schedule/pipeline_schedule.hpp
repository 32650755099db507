#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distsim::schedule {

enum class StepKind { forward, backward };

//! One forward or backward pass of one micro-batch on one stage.
struct Step {
  StepKind kind = StepKind::forward;
  int microbatch = 0;
  bool operator==(const Step&) const = default;
};

//! Orders each pipeline stage's forward and backward passes. Every stage must run forwards and
//! backwards each in micro-batch order, so that transfers between stages pair up in order.
class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  virtual std::string_view name() const = 0;
  //! One line for `distsim list schedules`, with the citation.
  virtual std::string_view description() const = 0;
  //! The passes of `stage` (0-based) in execution order.
  virtual std::vector<Step> steps(int stage, int num_stages, int num_microbatches) const = 0;
};

//! GPipe (Huang et al., NeurIPS'19): all forwards, then all backwards.
class GpipeSchedule : public PipelineSchedule {
 public:
  std::string_view name() const override { return "gpipe"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches) const override;
};

//! 1F1B as in PipeDream-Flush and DAPPLE (Narayanan et al. 2021; Fan et al., PPoPP'21): a
//! warm-up of min(p − stage − 1, m) forwards, then alternate one forward and one backward, then
//! drain the remaining backwards. At most p micro-batches are in flight on stage 0.
class OneFOneBSchedule : public PipelineSchedule {
 public:
  std::string_view name() const override { return "1f1b"; }
  std::string_view description() const override;
  std::vector<Step> steps(int stage, int num_stages, int num_microbatches) const override;
};

//! The schedules distsim knows, by name.
const std::vector<const PipelineSchedule*>& all_schedules();
//! Throws InputError with the closest name when `name` is unknown.
const PipelineSchedule& find_schedule(std::string_view name);
std::vector<std::string> schedule_names();

}  // namespace distsim::schedule
