#include "program/program_draft.hpp"

#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "events/gpu_type_work.hpp"
#include "events/layer_memo.hpp"

namespace distsim::program {

using engine::StreamId;
using engine::TaskId;

ProgramDraft::ProgramDraft(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                           const cost::CostModel& costs, SimulatedRanks ranks)
    : job_(job),
      schedule_(schedule),
      layout_(job.strategy, job.cluster),
      compute_(job),
      groups_(layout_, ranks, job.strategy.unit_shard_data_parallel(), &compute_) {
  result_.all_ranks = ranks != SimulatedRanks::one_per_stage;
  result_.placement_classes = groups_.placement_classes();
  result_.num_microbatches = job.strategy.num_microbatches();
  groups_.add_devices(result_);
  const auto placements = schedule_.all_stage_chunk_placements(job_.model, job_.strategy);
  stage_steps_ = schedule_.all_stage_steps(job_.strategy);
  chunk_hops_ = schedule_.all_chunk_hops(stages(), chunks());
  events::LayerMemo layers(result_.events);
  const auto split = schedule::defers_weight_gradients(schedule_) ? events::BackwardSplit::input_and_weight
                                                                  : events::BackwardSplit::none;
  for (int device = 0; device < num_devices(); ++device) {
    const auto& chunks = placements[static_cast<size_t>(coord(device)[strategy::ParallelDim::pp])];
    work_.push_back(events::build_rank_work(job_, layout_, coord(device), chunks, result_.events, &layers, split));
    events::run_on_gpu_type(work_.back(), result_.events,
                            compute_.gpus().type_of_rank(result_.devices[static_cast<size_t>(device)].rank));
    copy_reductions_.push_back(
        program::copy_reduction(job_, layout_, coord(device), placements, work_.back(), result_.events));
  }
  last_task.assign(static_cast<size_t>(num_devices()), kNoTask);
  last_reduction.assign(static_cast<size_t>(num_devices()), kNoTask);
  price_events(costs);
}

void ProgramDraft::price_events(const cost::CostModel& costs) {
  for (events::EventId id = 0; id < result_.events.size(); ++id) {
    const auto found = costs.try_cost(result_.events.at(id));
    if (!found) {
      throw InputError("no cost model can price event '" + result_.events.at(id).key() + "'");
    }
    result_.costs.push_back(*found);
    issues_on_host_ |= found->host_time() > 0;
  }
}

std::vector<StreamId> ProgramDraft::streams_of(const std::vector<int>& members, events::StreamKind kind) const {
  std::vector<StreamId> streams;
  streams.reserve(members.size());
  for (int device : members) {
    streams.push_back(stream(device, kind));
  }
  return streams;
}

void ProgramDraft::reserve_for_passes(bool aggregated) {
  constexpr std::size_t kTransfersPerMicrobatch = 4;  // activation and gradient, each way
  constexpr std::size_t kDependenciesPerTask = 3;
  std::size_t tasks = 0;
  for (const auto& work : work_) {
    for (const auto& chunk : work.chunks) {
      const auto tasks_of = [aggregated](const std::vector<events::TaskTemplate>& pass) {
        return aggregated ? std::size_t{!pass.empty()} : pass.size();
      };
      const std::size_t per_microbatch = tasks_of(chunk.forward) + tasks_of(chunk.backward) +
                                         tasks_of(chunk.backward_input) + tasks_of(chunk.backward_weight) +
                                         kTransfersPerMicrobatch;
      tasks += per_microbatch * static_cast<std::size_t>(microbatches()) + chunk.gradient_buckets.size();
    }
  }
  result_.program.reserve(tasks, kDependenciesPerTask * tasks);
  result_.tasks.reserve(tasks);
}

void ProgramDraft::count_microbatches(MicrobatchRange range) {
  result_.counted_microbatches = range;
  result_.counted_instances.assign(range.last > range.first ? result_.events.size() : 0, 0);
}

void ProgramDraft::add_instances(events::EventId event, std::int64_t ranks, int microbatch) {
  result_.events.add_instances(event, ranks);
  if (result_.counted_microbatches.contains(microbatch)) result_.counted_instances[event] += ranks;
}

void ProgramDraft::count_instances(events::EventId event, int device, std::int64_t passes,
                                   std::int64_t counted_passes) {
  const std::int64_t ranks = result_.devices[static_cast<size_t>(device)].ranks;
  result_.events.add_instances(event, ranks * passes);
  if (counted_passes > 0) result_.counted_instances[event] += ranks * counted_passes;
}

TaskId ProgramDraft::add_task(events::EventId event, std::span<const StreamId> streams, const TaskInfo& info) {
  std::int64_t ranks = 0;
  for (const StreamId stream : streams) {
    ranks += result_.devices[static_cast<size_t>(result_.streams[stream].device)].ranks;
  }
  add_instances(event, ranks, info.microbatch);
  const TaskId id = result_.program.add_task(result_.costs[event].duration, streams);
  result_.tasks.push_back(info);
  use_network(id, result_.events.at(event), streams);
  return id;
}

TaskId ProgramDraft::add_untracked_task(SimTime duration, StreamId stream, const TaskInfo& info) {
  const TaskId id = result_.program.add_task(duration, std::span<const StreamId>(&stream, 1));
  result_.tasks.push_back(info);
  return id;
}

void ProgramDraft::depend(TaskId task, TaskId prerequisite) {
  if (prerequisite != kNoTask) {
    result_.program.add_dependency(task, prerequisite);
  }
}

//! A communication that leaves its scale-up domain crosses the NIC share of every device it involves (the cost
//! model prices it with that share to itself, so concurrent ones share it in the engine). A
//! pipeline transfer sends on the sender's NICs and receives on the receiver's; a collective
//! or ring exchange does both on every member. NICs are full duplex, so a transfer forward
//! and one back do not slow each other.
void ProgramDraft::use_network(TaskId task, const events::Event& event, std::span<const StreamId> streams) {
  if (!event.crosses_nics()) {
    return;
  }
  const bool one_way = event.collective == events::Collective::send_recv && streams.size() == 2;
  for (size_t i = 0; i < streams.size(); ++i) {
    const DeviceInfo& device = result_.devices[static_cast<size_t>(result_.streams[streams[i]].device)];
    if (!one_way || i == 0) result_.program.add_resource_use(task, device.nic_send);
    if (!one_way || i == 1) result_.program.add_resource_use(task, device.nic_receive);
  }
}

}  // namespace distsim::program
