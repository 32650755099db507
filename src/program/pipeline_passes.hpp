#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "events/job_events.hpp"
#include "program/host_issue.hpp"
#include "program/local_runs.hpp"
#include "program/program_draft.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::program {

//! Where one pass of a device starts and ends, for wiring transfers after all passes exist.
struct PassTasks {
  engine::TaskId arrival = kNoTask;  //!< the last task of the device's previous pass
  engine::TaskId first = kNoTask;
  engine::TaskId last = kNoTask;
};

//! Where one pass's templates split into segments, as the end (one past the last template) of
//! each: a segment ends before each compute template that waits for a communication template
//! that `hidden` names (any collective, all-to-all or parameter gather; or the expert-parallel
//! exchanges only), whose computation can then run while that communication is in flight. With
//! Overlap::none the pass is one segment.
std::vector<size_t> segment_ends(const std::vector<events::TaskTemplate>& templates, schedule::Overlap hidden);

//! The order in which an overlapped unit adds its passes' segments, as (pass, segment end): the
//! first pass's segments (the forward) alternate with the others' in turn (the full backward, B
//! then W), so that each side's communication runs under the other side's next segment. DualPipe's
//! pairs start with the forward's; combined 1F1B's (`hidden` expert_exchange) with the backward's,
//! as Megatron-Core's layer pair does (combine backward, attention forward, MLP backward, dispatch
//! forward, MLP weight gradients, dispatch backward, MLP forward, combine forward, attention
//! backward: models/common/model_chunk_schedule_plan.py).
std::vector<std::pair<size_t, size_t>> overlapped_order(const std::vector<std::vector<size_t>>& segment_ends,
                                                        schedule::Overlap hidden);

//! Instantiates the steps (forward, backward and any other kind a schedule defines) of every device
//! in its schedule's order and remembers where each is, for the transfers and reductions that
//! attach to them. A "pass" is one step's tasks on one device.
class PipelinePasses {
 public:
  //! With `aggregate` (symmetric mode only) each pass becomes one task, or under ZeRO-3, whose
  //! gathers overlap computation across passes, each run of local work between its gathers and
  //! reductions (LocalRuns); see build_job_program.
  PipelinePasses(ProgramDraft& draft, bool aggregate);

  //! Adds every step of a pass group's members, in schedule order, each as the templates its
  //! kind names. All members run the same templates; collectives become one task across their
  //! streams.
  void add_passes(const std::vector<int>& members);
  //! Whether each pass becomes one task.
  bool aggregates() const { return aggregate_; }

  //! The pass of `device` that runs `kind` for (`chunk`, `microbatch`).
  PassTasks& pass_of(int device, schedule::StepKind kind, int chunk, int microbatch);
  //! The tasks of the last micro-batch's step that completes the gradients of `chunk` on
  //! `device` (StepKindSpec::completes_gradients), by template index; empty for an aggregated pass.
  const std::vector<engine::TaskId>& last_backward(int device, int chunk) const {
    return last_backward_[static_cast<size_t>(device)][static_cast<size_t>(chunk)];
  }
  //! The task of last_backward(device, chunk) after which every gradient of `bucket` exists.
  engine::TaskId bucket_ready(int device, int chunk, const events::GradientBucket& bucket) const;

 private:
  //! One pass being instantiated on every member of a pass group: its tasks so far, so that an
  //! overlapped unit can add several passes' templates interleaved.
  struct OpenPass {
    const std::vector<events::TaskTemplate>* templates = nullptr;
    schedule::Step step;
    std::vector<size_t> index;                         //!< per member: the pass's index in passes_
    std::vector<std::vector<engine::TaskId>> created;  //!< per member, by template index
    std::vector<engine::TaskId> previous_compute;      //!< per member
    size_t next = 0;                                   //!< the first template not added yet
    const LocalRuns* runs = nullptr;                   //!< the runs that become one task each, if any
  };

  OpenPass open_pass(const std::vector<int>& members, const std::vector<events::TaskTemplate>& templates,
                     const schedule::Step& pass);
  //! Adds the pass's templates up to (not including) `end`.
  void add_templates(OpenPass& pass, const std::vector<int>& members, size_t end);
  //! Adds the run that starts at the pass's next template as one task on every member.
  void add_run(OpenPass& pass, const std::vector<int>& members, const LocalRuns::Run& run);
  //! The runs of one pass's `templates` on `members`, found once; none when its passes keep a
  //! task per template.
  const LocalRuns* runs_of(const std::vector<int>& members, const std::vector<events::TaskTemplate>& templates);
  //! Per stream kind, whether templates on it can belong to runs on `members`: the compute stream,
  //! and a communication stream whose templates in all of their work stay inside the scale-up
  //! domain, join no other member and come after their pass's first computation, so that no task
  //! outside a run ever uses it.
  std::array<bool, static_cast<size_t>(events::kStreamKinds)> local_streams(const std::vector<int>& members);
  //! The members (by index) that one communication step on `stream` joins, each group with its
  //! devices' streams of that kind (DeviceGroups::step_groups); found once per pass group.
  struct JoinedStep {
    std::vector<size_t> members;
    std::vector<engine::StreamId> streams;
  };
  const std::vector<JoinedStep>& joined_steps(const std::vector<int>& members, events::StreamKind stream);
  void close_pass(const OpenPass& pass, const std::vector<int>& members);
  //! The launch of `step` on `device`'s host thread `host`, or kNoTask when no event takes host
  //! time.
  engine::TaskId launch(int device, HostThread& host, const events::TaskTemplate& step, const TaskInfo& info);
  //! Steps [first, last) of the schedule as one unit: a single step, or an overlapped F&B whose
  //! steps after the first overlap the previous; the first step's segments alternate with the
  //! others' (overlapped_order), which for a single step is its templates in order.
  std::vector<OpenPass> add_unit(const std::vector<int>& members, const std::vector<schedule::Step>& steps,
                                 size_t first, size_t last);
  void add_aggregated_unit(int device, std::span<const schedule::Step> unit);
  //! Where aggregated_counts_ keeps the passes of `step`'s chunk and kind.
  size_t aggregated_slot(const schedule::Step& step) const;
  //! Counts the event instances of the aggregated passes of `device` added since the last call:
  //! each template's event once per pass, by (chunk, kind) rather than pass by pass.
  void count_aggregated_instances(int device);
  size_t pass_slot(schedule::StepKind kind, int chunk, int microbatch) const;
  //! Where `kind` is in the schedule's step kinds; looked up for every pass, so inline.
  size_t kind_index(schedule::StepKind kind) const {
    for (size_t index = 0; index < kinds_.size(); ++index) {
      if (kinds_[index] == kind) return index;
    }
    unlisted_kind(kind);
  }
  [[noreturn]] void unlisted_kind(schedule::StepKind kind) const;

  ProgramDraft& draft_;
  bool aggregate_;
  bool aggregate_runs_;  //!< ZeRO-3 in symmetric mode: each local run becomes one task
  std::unordered_map<const std::vector<events::TaskTemplate>*, std::optional<LocalRuns>> local_runs_;
  std::vector<schedule::StepKind> kinds_;  //!< the schedule's step kinds
  //! the bucket's index into the templates of the step kind that completes gradients
  int events::GradientBucket::*bucket_ready_ = &events::GradientBucket::ready_after;
  //! per unit's template lists: each pass's end when the unit runs alone (isolated_pass_ends)
  using UnitKey = std::pair<schedule::Overlap, std::vector<const std::vector<events::TaskTemplate>*>>;
  struct UnitKeyHash {
    size_t operator()(const UnitKey& key) const;
  };
  std::unordered_map<UnitKey, std::vector<SimTime>, UnitKeyHash> unit_ends_;
  UnitKey unit_key_;            //!< the key of the unit add_aggregated_unit looks up, kept to reuse its storage
  std::vector<size_t> by_end_;  //!< the unit's passes in the order they end, kept to reuse its storage
  //! Aggregated passes whose event instances are not counted yet: all of them, and those of the
  //! micro-batches ProgramDraft counts on their own.
  struct PassCount {
    std::int64_t all = 0;
    std::int64_t counted = 0;
  };
  std::vector<std::vector<PassCount>> aggregated_counts_;  //!< per device, by aggregated_slot
  std::vector<std::vector<PassTasks>> passes_;             //!< per device, per pass in schedule order
  std::vector<std::vector<size_t>> pass_index_;            //!< per device: (chunk, microbatch, kind) → pass
  std::vector<int> joined_members_;                        //!< the pass group joined_steps_ holds
  std::vector<HostThread> hosts_;                          //!< per member: its host thread in the unit being added
  std::vector<engine::TaskId> launches_;                   //!< a communication step's launches, kept to reuse
  std::array<std::optional<std::vector<JoinedStep>>, static_cast<size_t>(events::kStreamKinds)> joined_steps_;
  //! per device and chunk: the tasks of the last micro-batch's gradient-completing step
  std::vector<std::vector<std::vector<engine::TaskId>>> last_backward_;
};

}  // namespace distsim::program
