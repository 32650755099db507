#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cost/cost_model.hpp"
#include "engine/program.hpp"
#include "events/job_events.hpp"
#include "program/device_groups.hpp"
#include "program/job_program.hpp"
#include "program/parameter_copies.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_compute.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::program {

using engine::kNoTask;

//! A job program under construction: the devices, their work, the tasks added so far and where
//! each device has got to. The parts of the builder (passes, transfers, end of iteration) each
//! add their tasks to it in turn.
class ProgramDraft {
 public:
  //! The job's devices with their streams, NICs and work, every event priced by `costs`, and no
  //! task yet.
  ProgramDraft(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule, const cost::CostModel& costs,
               SimulatedRanks ranks);
  ProgramDraft(const ProgramDraft&) = delete;
  ProgramDraft& operator=(const ProgramDraft&) = delete;

  const strategy::JobSpec& job() const { return job_; }
  const strategy::Strategy& strategy() const { return job_.strategy; }
  const schedule::PipelineSchedule& schedule() const { return schedule_; }
  const DeviceGroups& groups() const { return groups_; }
  const JobProgram& program() const { return result_; }
  //! The finished program; the draft is spent.
  JobProgram take() { return std::move(result_); }
  //! Makes room for every task the passes of every device may add, one per template per
  //! micro-batch (or one per pass, when each pass is `aggregated` into one task) and its
  //! transfers, so that the program never moves while it grows.
  void reserve_for_passes(bool aggregated);

  int microbatches() const { return result_.num_microbatches; }
  int stages() const { return strategy().pipeline_parallel; }
  //! Model chunks per stage, as the schedule places them.
  int chunks() const { return schedule_.chunks_per_stage(strategy().virtual_stages); }
  int num_devices() const { return groups_.num_devices(); }
  //! The steps of stage `stage` in the schedule's order (PipelineSchedule::stage_steps), found once.
  const std::vector<schedule::Step>& stage_steps(int stage) const { return stage_steps_[static_cast<size_t>(stage)]; }
  //! Where each chunk slot's activations go and come from (PipelineSchedule::all_chunk_hops), found once.
  const schedule::ChunkHops& chunk_hops() const { return chunk_hops_; }
  const strategy::RankCoord& coord(int device) const { return groups_.coord(device); }
  const events::RankWork& work(int device) const { return work_[static_cast<size_t>(device)]; }
  //! The sum of `device`'s parameter copies' gradients with another stage's, if it holds copies.
  const std::optional<CopyReduction>& copy_reduction(int device) const {
    return copy_reductions_[static_cast<size_t>(device)];
  }
  engine::StreamId stream(int device, events::StreamKind kind) const {
    return result_.devices[static_cast<size_t>(device)].stream(kind);
  }
  std::vector<engine::StreamId> streams_of(const std::vector<int>& members, events::StreamKind kind) const;

  //! A task of `event` across `streams`, counting one instance of the event per rank it stands for.
  engine::TaskId add_task(events::EventId event, std::span<const engine::StreamId> streams, const TaskInfo& info);
  //! The launch of `info`'s event on `device`'s host thread, lasting `duration` (HostThread).
  engine::TaskId add_launch(int device, SimTime duration, const TaskInfo& info) {
    return add_untracked_task(duration, stream(device, events::StreamKind::host), info);
  }
  //! Whether some event takes time to issue, so that the passes launch their templates on the host
  //! thread; without, no host task is added.
  bool issues_on_host() const { return issues_on_host_; }
  //! A task that does not stand for one event (an aggregated pass); `info` names the task.
  engine::TaskId add_untracked_task(SimTime duration, engine::StreamId stream, const TaskInfo& info);
  //! Counts the instances of `event` that `passes` tasks of `device` added with
  //! add_untracked_task stand for, `counted_passes` of them in micro-batches counted on their own.
  void count_instances(events::EventId event, int device, std::int64_t passes, std::int64_t counted_passes);
  //! Whether the instances of `microbatch` are also counted on their own (count_microbatches).
  bool counts_microbatch(int microbatch) const { return result_.counted_microbatches.contains(microbatch); }
  //! Counts the instances of the micro-batches in `range` also on their own.
  void count_microbatches(MicrobatchRange range);
  //! `task` waits for `prerequisite`, unless there is none (kNoTask).
  void depend(engine::TaskId task, engine::TaskId prerequisite);

  const std::vector<cost::Cost>& costs() const { return result_.costs; }

  //! Per device: the last task of its latest pass, and its latest gradient reduction.
  std::vector<engine::TaskId> last_task;
  std::vector<engine::TaskId> last_reduction;

 private:
  void price_events(const cost::CostModel& costs);
  //! Instances of `event` on `ranks` ranks.
  void add_instances(events::EventId event, std::int64_t ranks, int microbatch);
  void use_network(engine::TaskId task, const events::Event& event, std::span<const engine::StreamId> streams);

  const strategy::JobSpec& job_;
  const schedule::PipelineSchedule& schedule_;
  strategy::RankLayout layout_;
  strategy::RankCompute compute_;
  DeviceGroups groups_;
  JobProgram result_;
  std::vector<std::vector<schedule::Step>> stage_steps_;  //!< per stage
  schedule::ChunkHops chunk_hops_;
  std::vector<events::RankWork> work_;                         //!< per device
  std::vector<std::optional<CopyReduction>> copy_reductions_;  //!< per device
  bool issues_on_host_ = false;
};

}  // namespace distsim::program
