#pragma once

#include <functional>
#include <optional>

#include <cstdint>
#include <string_view>
#include <vector>

#include "cost/cost_model.hpp"
#include "engine/program.hpp"
#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "events/phase.hpp"
#include "program/comm_group.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/placement_classes.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::program {

//! Which ranks a program simulates.
enum class SimulatedRanks {
  //! Symmetric mode: one device per pipeline stage stands for all the stage's ranks (they do
  //! identical work in a uniform cluster).
  one_per_stage,
  //! Every rank, through one data-parallel replica per placement class (strategy::PlacementClasses):
  //! each other rank has the timeline of the rank at its place in its class's replica.
  every_rank_by_class,
  //! Every rank on a device of its own: slower and the same results as every_rank_by_class, which
  //! it checks.
  every_rank_alone,
};

//! Micro-batches [first, last).
struct MicrobatchRange {
  int first = 0;
  int last = 0;
  bool contains(int microbatch) const { return microbatch >= first && microbatch < last; }
};

//! What a task of the engine's program stands for in the job.
struct TaskInfo {
  events::EventId event = 0;
  events::Phase phase = events::Phase::forward;
  int microbatch = -1;  //!< -1 for work done once per iteration
  int layer = -1;
  std::string_view label;
  int chunk = 0;  //!< model chunk on the stage (interleaved schedule); 0 otherwise
  //! A collective's group, for each rank that joins it (comm_group_members).
  CommGroup group = CommGroup::none;
};

//! A simulated device: one rank (standing for `ranks` ranks), with its streams at first_stream + StreamKind, and the
//! two directions of its share of the node's NICs, which its inter-node communications share. Readers of a finished
//! program find a stream's device and kind in JobProgram::streams.
struct DeviceInfo {
  int rank = 0;
  strategy::RankCoord coord;
  int ranks = 1;  //!< the ranks whose timeline this device's is, its own included
  engine::StreamId first_stream = 0;
  engine::ResourceId nic_send = 0;
  engine::ResourceId nic_receive = 0;
  engine::StreamId stream(events::StreamKind kind) const { return first_stream + static_cast<engine::StreamId>(kind); }
};

//! Which simulated device an engine stream belongs to, and what kind of stream it is.
struct StreamInfo {
  int device = 0;
  events::StreamKind kind = events::StreamKind::compute;
};

//! The job turned into an engine program: its devices (SimulatedRanks) with their tasks. Collectives
//! wait for every simulated member.
struct JobProgram {
  engine::Program program;
  std::vector<TaskInfo> tasks;
  std::vector<DeviceInfo> devices;
  std::vector<StreamInfo> streams;  //!< per engine stream
  events::EventTable events;
  std::vector<cost::Cost> costs;  //!< per event
  bool all_ranks = false;         //!< every rank has a timeline of its own (not SimulatedRanks::one_per_stage)
  //! In all-ranks mode, which data-parallel replicas are simulated and which stand for which.
  std::optional<strategy::PlacementClasses> placement_classes;
  int num_microbatches = 0;
  //! The micro-batches [first, last) whose event instances `counted_instances` holds, per event: one
  //! period of a steady state (steady/steady_state.hpp), when the builder was asked to count one.
  MicrobatchRange counted_microbatches;
  std::vector<std::int64_t> counted_instances;

  //! The simulated device whose timeline rank `rank` has.
  int device_for_rank(const strategy::RankLayout& layout, int rank) const;
};

//! Builds the events, costs and task program of a validated job, simulating `ranks`. Costs come from
//! `costs`, which must price every event (see FallbackCostModel). With `aggregate_passes`
//! (symmetric mode only) each forward or backward pass becomes one task lasting as long as the
//! pass takes alone; the pipeline, transfers and reductions stay as they are. It is much faster
//! for long pipelines and loses only overlap between a pass's trailing TP collective and the next
//! pass.
//! `progress`, if set, is told (groups built, groups) after each group of devices' passes. The
//! event instances of the micro-batches in `counted` are also counted on their own
//! (JobProgram::counted_instances).
JobProgram build_job_program(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                             const cost::CostModel& costs, SimulatedRanks ranks, bool aggregate_passes = false,
                             const std::function<void(std::size_t, std::size_t)>& progress = {},
                             MicrobatchRange counted = {});

}  // namespace distsim::program
