#include "program/job_program.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "engine/engine.hpp"

#include "core/input_error.hpp"

namespace distsim::program {

using strategy::ParallelDim;

using events::Phase;
using events::StreamKind;
using engine::StreamId;
using engine::TaskId;
using schedule::StepKind;

int JobProgram::device_for_rank(const strategy::RankLayout& layout, int rank) const {
  return all_ranks ? rank : layout.coord_of(rank)[ParallelDim::pp];
}

namespace {

constexpr TaskId kNoTask = ~TaskId{0};

//! Where each pass of each device starts and ends, for wiring transfers after all passes exist.
struct StepTasks {
  TaskId arrival = kNoTask;  //!< the last task of the device's previous pass
  TaskId first = kNoTask;
  TaskId last = kNoTask;
};

//! One pipeline transfer: who sends which pass's tensor to whom.
struct Transfer {
  int sender = 0;
  int receiver = 0;
  int sender_chunk = 0;
  int receiver_chunk = 0;
  int microbatch = 0;
};

//! How long a pass takes on one device when it starts on idle streams: its templates run alone
//! on a scratch program with the same stream and dependency rules as add_pass. Measured to the
//! end of the last template, the point the next pass and the transfers wait for.
SimTime isolated_pass_duration(const std::vector<events::TaskTemplate>& templates,
                               const std::vector<cost::Cost>& costs) {
  engine::Program program;
  for (int kind = 0; kind < events::kStreamKinds; ++kind) {
    program.add_stream();
  }
  std::vector<TaskId> created;
  TaskId previous_compute = kNoTask;
  for (const auto& step : templates) {
    const StreamId stream = static_cast<StreamId>(step.stream);
    const TaskId task = program.add_task(costs[step.event].duration, std::span<const StreamId>(&stream, 1));
    if (step.stream == StreamKind::compute) {
      if (step.waits_for >= 0) program.add_dependency(task, created[static_cast<size_t>(step.waits_for)]);
      previous_compute = task;
    } else if (previous_compute != kNoTask) {
      program.add_dependency(task, previous_compute);
    }
    created.push_back(task);
  }
  if (created.empty()) return 0;
  return engine::run(program).end[created.back()];
}

class ProgramBuilder {
 public:
  ProgramBuilder(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                 const cost::CostModel& costs, bool all_ranks, bool aggregate_passes)
      : job_(job), schedule_(schedule), costs_(costs), layout_(job.strategy, job.cluster),
        aggregate_passes_(aggregate_passes && !all_ranks) {
    result_.all_ranks = all_ranks;
    result_.num_microbatches = job.strategy.num_microbatches();
    result_.ranks_per_device =
        all_ranks ? 1 : job.strategy.tensor_parallel * job.strategy.context_parallel * job.strategy.data_parallel;
  }

  JobProgram build() {
    add_devices();
    price_events();
    for (const auto& group : pass_groups()) {
      add_passes(group);
    }
    add_transfers();
    add_gradient_reductions();
    add_optimizer_steps();
    add_parameter_gathers();
    return std::move(result_);
  }

 private:
  const strategy::Strategy& strategy() const { return job_.strategy; }
  int microbatches() const { return result_.num_microbatches; }
  int stages() const { return strategy().pipeline_parallel; }
  int chunks() const { return strategy().virtual_stages; }
  int num_devices() const { return static_cast<int>(result_.devices.size()); }

  int device_of(strategy::RankCoord coord) const {
    if (result_.all_ranks) {
      return layout_.rank_of(coord);
    }
    const bool first_of_stage = coord == strategy::RankCoord{{ParallelDim::pp, coord[ParallelDim::pp]}};
    return first_of_stage ? coord[ParallelDim::pp] : -1;
  }

  void add_devices() {
    std::vector<strategy::RankCoord> coords;
    if (result_.all_ranks) {
      for (int rank = 0; rank < layout_.world_size(); ++rank) {
        coords.push_back(layout_.coord_of(rank));
      }
    } else {
      for (int stage = 0; stage < stages(); ++stage) {
        coords.push_back(strategy::RankCoord{{ParallelDim::pp, stage}});
      }
    }
    for (const auto& coord : coords) {
      DeviceInfo device{layout_.rank_of(coord), coord, result_.program.num_streams()};
      for (int kind = 0; kind < events::kStreamKinds; ++kind) {
        result_.program.add_stream();
      }
      device.nic_send = result_.program.add_resource();
      device.nic_receive = result_.program.add_resource();
      result_.devices.push_back(device);
      work_.push_back(events::build_rank_work(job_, layout_, coord, result_.events));
    }
    steps_.resize(coords.size());
    pass_index_.assign(coords.size(), std::vector<size_t>(2 * static_cast<size_t>(microbatches() * chunks()), 0));
    last_backward_.assign(coords.size(), std::vector<std::vector<TaskId>>(static_cast<size_t>(chunks())));
    last_task_.assign(coords.size(), kNoTask);
    last_reduction_.assign(coords.size(), kNoTask);
  }

  void price_events() {
    for (events::EventId id = 0; id < result_.events.size(); ++id) {
      const auto found = costs_.try_cost(result_.events.at(id));
      if (!found) {
        throw InputError("no cost model can price event '" + result_.events.at(id).key() + "'");
      }
      result_.costs.push_back(*found);
    }
  }

  //! Simulated members of the tensor and of the context groups: every rank in all-ranks mode, one
  //! device in symmetric mode.
  int tensor_members() const { return result_.all_ranks ? strategy().tensor_parallel : 1; }
  int context_members() const { return result_.all_ranks ? strategy().context_parallel : 1; }

  //! Devices that share a tensor-parallel group, i.e. the same (cp, dp, pp); one in symmetric mode.
  std::vector<std::vector<int>> tensor_groups() const {
    std::vector<std::vector<int>> groups;
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord[ParallelDim::tp] != 0) {
        continue;
      }
      std::vector<int> members;
      for (int tp = 0; tp < tensor_members(); ++tp) {
        members.push_back(device_of(coord.with(ParallelDim::tp, tp)));
      }
      groups.push_back(std::move(members));
    }
    return groups;
  }

  //! Devices whose passes are built together because their collectives couple them: the tensor
  //! and context ranks of one (dp, pp), context-major (member c·t + tp); one in symmetric mode.
  std::vector<std::vector<int>> pass_groups() const {
    std::vector<std::vector<int>> groups;
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord[ParallelDim::tp] != 0 || coord[ParallelDim::cp] != 0) {
        continue;
      }
      std::vector<int> members;
      for (int cp = 0; cp < context_members(); ++cp) {
        for (int tp = 0; tp < tensor_members(); ++tp) {
          members.push_back(device_of(coord.with(ParallelDim::tp, tp).with(ParallelDim::cp, cp)));
        }
      }
      groups.push_back(std::move(members));
    }
    return groups;
  }

  //! The members of a pass group (by index) that one communication step on `stream` joins: each
  //! context ring for a CP exchange, each tensor group for a TP collective.
  std::vector<std::vector<size_t>> step_groups(size_t group_size, StreamKind stream) const {
    const auto tensor = static_cast<size_t>(tensor_members());
    const size_t context = group_size / tensor;
    const bool ring = stream == StreamKind::cp_comm;
    std::vector<std::vector<size_t>> groups(ring ? tensor : context);
    for (size_t c = 0; c < context; ++c) {
      for (size_t t = 0; t < tensor; ++t) {
        groups[ring ? t : c].push_back(c * tensor + t);
      }
    }
    return groups;
  }

  //! The simulated devices that reduce gradients with coord (same tp and pp, every cp and dp, in
  //! rank order); one in symmetric mode.
  std::vector<int> gradient_group(strategy::RankCoord coord) const {
    std::vector<int> members;
    for (int dp = 0; dp < (result_.all_ranks ? strategy().data_parallel : 1); ++dp) {
      for (int cp = 0; cp < context_members(); ++cp) {
        members.push_back(device_of(coord.with(ParallelDim::dp, dp).with(ParallelDim::cp, cp)));
      }
    }
    return members;
  }

  TaskId add_task(events::EventId event, const std::vector<StreamId>& streams, const TaskInfo& info) {
    result_.events.add_instances(event, static_cast<std::int64_t>(streams.size()) * result_.ranks_per_device);
    const TaskId id = result_.program.add_task(result_.costs[event].duration, streams);
    result_.tasks.push_back(info);
    use_network(id, result_.events.at(event), streams);
    return id;
  }

  //! An inter-node communication crosses the NIC share of every device it involves (the cost
  //! model prices it with that share to itself, so concurrent ones share it in the engine). A
  //! pipeline transfer sends on the sender's NICs and receives on the receiver's; a collective
  //! or ring exchange does both on every member. NICs are full duplex, so a transfer forward
  //! and one back do not slow each other.
  void use_network(TaskId task, const events::Event& event, const std::vector<StreamId>& streams) {
    if (!event.is_communication() || event.intra_node) {
      return;
    }
    const bool one_way = event.collective == events::Collective::send_recv && streams.size() == 2;
    for (size_t i = 0; i < streams.size(); ++i) {
      const DeviceInfo& device = result_.devices[streams[i] / events::kStreamKinds];
      if (!one_way || i == 0) result_.program.add_resource_use(task, device.nic_send);
      if (!one_way || i == 1) result_.program.add_resource_use(task, device.nic_receive);
    }
  }

  std::vector<StreamId> streams_of(const std::vector<int>& members, StreamKind kind) const {
    std::vector<StreamId> streams;
    for (int device : members) {
      streams.push_back(result_.devices[device].stream(kind));
    }
    return streams;
  }

  void depend(TaskId task, TaskId prerequisite) {
    if (prerequisite != kNoTask) {
      result_.program.add_dependency(task, prerequisite);
    }
  }

  //! Adds every forward and backward pass of a pass group's members, in schedule order. All
  //! members run the same templates; collectives become one task across their streams.
  void add_passes(const std::vector<int>& members) {
    const auto& coord = result_.devices[members.front()].coord;
    for (const auto& step : schedule_.steps(coord[ParallelDim::pp], stages(), microbatches(), chunks())) {
      for (int device : members) {
        pass_index_[device][pass_slot(step.kind, step.chunk, step.microbatch)] = steps_[device].size();
      }
      const auto& chunk = work_[members.front()].chunks[static_cast<size_t>(step.chunk)];
      const bool forward = step.kind == StepKind::forward;
      const bool last_backward = !forward && step.microbatch + 1 == microbatches();
      const auto& templates = forward ? chunk.forward : chunk.backward;
      if (aggregate_passes_ && !(last_backward && strategy().overlap_grad_reduce)) {
        add_aggregated_pass(members.front(), templates, step);
        continue;
      }
      const auto created = add_pass(members, templates, step);
      if (last_backward) {
        for (size_t m = 0; m < members.size(); ++m) {
          last_backward_[members[m]][static_cast<size_t>(step.chunk)] = created[m];
        }
      }
    }
  }

  //! Instantiates `templates` for one pass on every member; returns each member's tasks, by
  //! template index.
  std::vector<std::vector<TaskId>> add_pass(const std::vector<int>& members,
                                            const std::vector<events::TaskTemplate>& templates,
                                            const schedule::Step& pass) {
    std::vector<std::vector<TaskId>> created(members.size());
    std::vector<TaskId> previous_compute(members.size(), kNoTask);
    for (size_t m = 0; m < members.size(); ++m) {
      steps_[members[m]].push_back({last_task_[members[m]], kNoTask, kNoTask});
    }
    for (const auto& step : templates) {
      const TaskInfo info{step.event, step.phase, pass.microbatch, step.layer, step.label, pass.chunk};
      if (step.stream == StreamKind::compute) {
        for (size_t m = 0; m < members.size(); ++m) {
          const int device = members[m];
          const TaskId task = add_task(step.event, {result_.devices[device].stream(StreamKind::compute)}, info);
          depend(task, step.waits_for >= 0 ? created[m][static_cast<size_t>(step.waits_for)] : kNoTask);
          if (previous_compute[m] == kNoTask) {
            depend(task, steps_[device].back().arrival);
            steps_[device].back().first = task;
          }
          previous_compute[m] = task;
          created[m].push_back(task);
        }
        continue;
      }
      for (const auto& group : step_groups(members.size(), step.stream)) {
        std::vector<int> joined;
        for (size_t m : group) {
          joined.push_back(members[m]);
        }
        const TaskId task = add_task(step.event, streams_of(joined, step.stream), info);
        for (size_t m : group) {
          depend(task, previous_compute[m]);
          created[m].push_back(task);
        }
      }
    }
    for (size_t m = 0; m < members.size(); ++m) {
      steps_[members[m]].back().last = created[m].back();
      last_task_[members[m]] = created[m].back();
    }
    return created;
  }

  //! One task for a whole pass on a symmetric device, lasting as long as the pass's templates
  //! take alone (isolated_pass_duration). Its events still count every instance.
  void add_aggregated_pass(int device, const std::vector<events::TaskTemplate>& templates,
                           const schedule::Step& pass) {
    if (templates.empty()) {
      steps_[device].push_back({last_task_[device], kNoTask, kNoTask});
      return;
    }
    auto found = pass_durations_.find(&templates);
    if (found == pass_durations_.end()) {
      found = pass_durations_.emplace(&templates, isolated_pass_duration(templates, result_.costs)).first;
    }
    for (const auto& step : templates) {
      result_.events.add_instances(step.event, result_.ranks_per_device);
    }
    const bool forward = pass.kind == StepKind::forward;
    const TaskInfo info{templates.front().event, forward ? Phase::forward : Phase::backward, pass.microbatch, -1,
                        forward ? "forward pass" : "backward pass", pass.chunk};
    const TaskId task = result_.program.add_task(found->second, std::vector<StreamId>{
                                                                    result_.devices[device].stream(StreamKind::compute)});
    result_.tasks.push_back(info);
    depend(task, last_task_[device]);
    steps_[device].push_back({last_task_[device], task, task});
    last_task_[device] = task;
  }

  //! The pass of a device that runs `kind` for (`chunk`, `microbatch`).
  size_t pass_slot(StepKind kind, int chunk, int microbatch) const {
    return (static_cast<size_t>(chunk) * static_cast<size_t>(microbatches()) + static_cast<size_t>(microbatch)) * 2 +
           (kind == StepKind::backward ? 1 : 0);
  }

  StepTasks& pass_of(int device, StepKind kind, int chunk, int microbatch) {
    return steps_[device][pass_index_[device][pass_slot(kind, chunk, microbatch)]];
  }

  //! A point-to-point transfer starts when the sender has produced the tensor and the receiver
  //! has reached the pass that needs it (DistSim's rule); the receiver's pass waits for it.
  void add_transfer(const Transfer& transfer, events::EventId event, StepKind kind) {
    const bool forward = kind == StepKind::forward;
    TaskInfo info{event, forward ? Phase::forward : Phase::backward, transfer.microbatch, -1,
                  forward ? "send activation" : "send gradient"};
    info.chunk = transfer.sender_chunk;
    const StreamKind send = forward ? StreamKind::pp_send_next : StreamKind::pp_send_prev;
    const StreamKind receive = forward ? StreamKind::pp_recv_prev : StreamKind::pp_recv_next;
    const TaskId task = add_task(
        event, {result_.devices[transfer.sender].stream(send), result_.devices[transfer.receiver].stream(receive)},
        info);
    depend(task, pass_of(transfer.sender, kind, transfer.sender_chunk, transfer.microbatch).last);
    StepTasks& target = pass_of(transfer.receiver, kind, transfer.receiver_chunk, transfer.microbatch);
    depend(task, target.arrival);
    depend(target.first, task);
  }

  //! The transfers `sender` makes in direction `kind`, in the order its schedule runs the passes
  //! that produce them, which is also the order in which the receiver consumes them. Chunk c
  //! of the last stage feeds chunk c + 1 of stage 0, and back.
  std::vector<Transfer> transfers_from(int sender, StepKind kind) const {
    const auto& coord = result_.devices[sender].coord;
    const bool forward = kind == StepKind::forward;
    const int peer_stage = (coord[ParallelDim::pp] + (forward ? 1 : stages() - 1)) % stages();
    const bool wraps = forward ? coord[ParallelDim::pp] + 1 == stages() : coord[ParallelDim::pp] == 0;
    const int receiver = device_of(coord.with(ParallelDim::pp, peer_stage));
    std::vector<Transfer> transfers;
    for (const auto& step : schedule_.steps(coord[ParallelDim::pp], stages(), microbatches(), chunks())) {
      const auto& chunk = work_[sender].chunks[static_cast<size_t>(step.chunk)];
      if (step.kind != kind || !(forward ? chunk.send_activation : chunk.send_gradient)) {
        continue;
      }
      const int receiver_chunk = wraps ? step.chunk + (forward ? 1 : -1) : step.chunk;
      transfers.push_back({sender, receiver, step.chunk, receiver_chunk, step.microbatch});
    }
    return transfers;
  }

  //! For each link between a stage and the next, its activations forward and gradients back,
  //! alternating, so that each stream receives its transfers in execution order.
  void add_transfers() {
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (stages() == 1 || (coord[ParallelDim::pp] + 1 == stages() && chunks() == 1)) {
        continue;
      }
      const int next = device_of(coord.with(ParallelDim::pp, (coord[ParallelDim::pp] + 1) % stages()));
      const auto activations = transfers_from(device, StepKind::forward);
      const auto gradients = transfers_from(next, StepKind::backward);
      for (size_t i = 0; i < std::max(activations.size(), gradients.size()); ++i) {
        if (i < activations.size()) {
          const auto& chunk = work_[device].chunks[static_cast<size_t>(activations[i].sender_chunk)];
          add_transfer(activations[i], *chunk.send_activation, StepKind::forward);
        }
        if (i < gradients.size()) {
          const auto& chunk = work_[next].chunks[static_cast<size_t>(gradients[i].sender_chunk)];
          add_transfer(gradients[i], *chunk.send_gradient, StepKind::backward);
        }
      }
    }
  }

  //! Data-parallel gradient buckets, the sequence-parallel norm reduction, then the
  //! tied-embedding reduction. Without overlap every bucket waits for the end of backward;
  //! with it a bucket starts once the last micro-batch's backward has produced its gradients
  //! (Megatron-LM --overlap-grad-reduce). Chunks finish backward last to first.
  void add_gradient_reductions() {
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord[ParallelDim::dp] == 0 && coord[ParallelDim::cp] == 0) {
        add_buckets(gradient_group(coord), work_[device]);
      }
    }
    for (const auto& members : tensor_groups()) {
      if (const auto reduction = work_[members.front()].sequence_parallel_reduction) {
        add_reduction(members, *reduction, StreamKind::tp_comm, "tp sequence-parallel grads all_reduce");
      }
    }
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord[ParallelDim::pp] == 0 && work_[device].embedding_reduction) {
        const int last = device_of(coord.with(ParallelDim::pp, stages() - 1));
        add_reduction({device, last}, *work_[device].embedding_reduction, StreamKind::dp_comm, "embedding all_reduce");
      }
    }
  }

  void add_buckets(const std::vector<int>& members, const events::RankWork& work) {
    const std::string_view label = strategy().distributed_optimizer ? "dp gradient reduce_scatter"
                                                                     : "dp gradient all_reduce";
    for (int chunk = chunks() - 1; chunk >= 0; --chunk) {
      for (const auto& bucket : work.chunks[static_cast<size_t>(chunk)].gradient_buckets) {
        const TaskId task = add_task(bucket.reduction, streams_of(members, StreamKind::dp_comm),
                                     {bucket.reduction, Phase::backward, -1, -1, label, chunk});
        for (int device : members) {
          const auto& produced = last_backward_[device][static_cast<size_t>(chunk)];
          depend(task, strategy().overlap_grad_reduce ? produced[static_cast<size_t>(bucket.ready_after)]
                                                      : last_task_[device]);
          last_reduction_[device] = task;
        }
      }
    }
  }

  //! A reduction across `members` after their backward passes and earlier reductions.
  void add_reduction(const std::vector<int>& members, events::EventId event, StreamKind stream,
                     std::string_view label) {
    const TaskId task = add_task(event, streams_of(members, stream), {event, Phase::backward, -1, -1, label});
    for (int device : members) {
      depend(task, last_task_[device]);
      depend(task, last_reduction_[device]);
    }
    for (int device : members) {
      last_reduction_[device] = task;
    }
  }

  void add_optimizer_steps() {
    optimizer_task_.assign(result_.devices.size(), kNoTask);
    for (int device = 0; device < num_devices(); ++device) {
      const events::EventId event = work_[device].optimizer_step;
      const TaskId task = add_task(event, {result_.devices[device].stream(StreamKind::compute)},
                                   {event, Phase::optimizer, -1, -1, "optimizer step"});
      depend(task, last_task_[device]);
      depend(task, last_reduction_[device]);
      optimizer_task_[device] = task;
    }
  }

  //! Distributed optimizer: each rank updated its shard, so the data-parallel group all-gathers
  //! the updated bf16 parameters, bucket by bucket, before the next iteration can start.
  void add_parameter_gathers() {
    for (int device = 0; device < num_devices(); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord[ParallelDim::dp] != 0 || coord[ParallelDim::cp] != 0) {
        continue;
      }
      const auto members = gradient_group(coord);
      for (int chunk = 0; chunk < chunks(); ++chunk) {
        for (const auto& bucket : work_[device].chunks[static_cast<size_t>(chunk)].gradient_buckets) {
          if (!bucket.parameter_gather) {
            continue;
          }
          const events::EventId event = *bucket.parameter_gather;
          const TaskId task = add_task(event, streams_of(members, StreamKind::dp_comm),
                                       {event, Phase::optimizer, -1, -1, "dp parameter all_gather", chunk});
          for (int member : members) {
            depend(task, optimizer_task_[member]);
          }
        }
      }
    }
  }

  const strategy::JobSpec& job_;
  const schedule::PipelineSchedule& schedule_;
  const cost::CostModel& costs_;
  strategy::RankLayout layout_;
  bool aggregate_passes_;
  std::map<const std::vector<events::TaskTemplate>*, SimTime> pass_durations_;
  JobProgram result_;
  std::vector<events::RankWork> work_;
  std::vector<std::vector<StepTasks>> steps_;      //!< per device, per pass in schedule order
  std::vector<std::vector<size_t>> pass_index_;    //!< per device: (chunk, microbatch, kind) → pass
  //! per device and chunk: the tasks of the last micro-batch's backward pass, by template index
  std::vector<std::vector<std::vector<TaskId>>> last_backward_;
  std::vector<TaskId> last_task_;                  //!< per device: last task of its latest pass
  std::vector<TaskId> last_reduction_;             //!< per device: its latest gradient reduction
  std::vector<TaskId> optimizer_task_;             //!< per device
};

}  // namespace

JobProgram build_job_program(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                             const cost::CostModel& costs, bool all_ranks, bool aggregate_passes) {
  return ProgramBuilder(job, schedule, costs, all_ranks, aggregate_passes).build();
}

}  // namespace distsim::program
