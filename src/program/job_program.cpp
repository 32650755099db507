#include "program/job_program.hpp"

#include <string>

#include "core/input_error.hpp"

namespace distsim::program {

using events::Phase;
using events::StreamKind;
using engine::StreamId;
using engine::TaskId;

int JobProgram::device_for_rank(const strategy::RankLayout& layout, int rank) const {
  return all_ranks ? rank : layout.coord_of(rank).pp;
}

namespace {

constexpr TaskId kNoTask = ~TaskId{0};

//! Where each pass of each device starts and ends, for wiring transfers after all passes exist.
struct StepTasks {
  TaskId arrival = kNoTask;  //!< the last task of the device's previous pass
  TaskId first = kNoTask;
  TaskId last = kNoTask;
};

class ProgramBuilder {
 public:
  ProgramBuilder(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                 const cost::CostModel& costs, bool all_ranks)
      : job_(job), schedule_(schedule), costs_(costs), layout_(job.strategy, job.cluster.gpus_per_node) {
    result_.all_ranks = all_ranks;
    result_.num_microbatches = job.strategy.num_microbatches();
    result_.ranks_per_device = all_ranks ? 1 : job.strategy.tensor_parallel * job.strategy.data_parallel;
  }

  JobProgram build() {
    add_devices();
    price_events();
    for (const auto& group : tensor_groups()) {
      add_passes(group);
    }
    add_transfers();
    add_gradient_reductions();
    add_optimizer_steps();
    return std::move(result_);
  }

 private:
  const strategy::Strategy& strategy() const { return job_.strategy; }
  int microbatches() const { return result_.num_microbatches; }

  int device_of(strategy::RankCoord coord) const {
    if (result_.all_ranks) {
      return layout_.rank_of(coord);
    }
    return coord.tp == 0 && coord.dp == 0 ? coord.pp : -1;
  }

  void add_devices() {
    std::vector<strategy::RankCoord> coords;
    if (result_.all_ranks) {
      for (int rank = 0; rank < layout_.world_size(); ++rank) {
        coords.push_back(layout_.coord_of(rank));
      }
    } else {
      for (int stage = 0; stage < strategy().pipeline_parallel; ++stage) {
        coords.push_back({0, 0, stage});
      }
    }
    for (const auto& coord : coords) {
      DeviceInfo device{layout_.rank_of(coord), coord, result_.program.num_streams()};
      for (int kind = 0; kind < events::kStreamKinds; ++kind) {
        result_.program.add_stream();
      }
      result_.devices.push_back(device);
      work_.push_back(events::build_rank_work(job_, layout_, coord, result_.events));
    }
    steps_.resize(coords.size());
    pass_index_.assign(coords.size(), std::vector<size_t>(2 * static_cast<size_t>(microbatches()), 0));
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

  //! Devices that share a tensor-parallel group, i.e. the same (dp, pp); one in symmetric mode.
  std::vector<std::vector<int>> tensor_groups() const {
    std::vector<std::vector<int>> groups;
    for (int device = 0; device < static_cast<int>(result_.devices.size()); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord.tp != 0) {
        continue;
      }
      std::vector<int> members;
      for (int tp = 0; tp < (result_.all_ranks ? strategy().tensor_parallel : 1); ++tp) {
        members.push_back(device_of({tp, coord.dp, coord.pp}));
      }
      groups.push_back(std::move(members));
    }
    return groups;
  }

  TaskId add_task(events::EventId event, const std::vector<StreamId>& streams, const TaskInfo& info) {
    result_.events.add_instances(event, static_cast<std::int64_t>(streams.size()) * result_.ranks_per_device);
    const TaskId id = result_.program.add_task(result_.costs[event].duration, streams);
    result_.tasks.push_back(info);
    return id;
  }

  void depend(TaskId task, TaskId prerequisite) {
    if (prerequisite != kNoTask) {
      result_.program.add_dependency(task, prerequisite);
    }
  }

  //! Adds every forward and backward pass of a tensor group's members, in schedule order. All
  //! members run the same templates; collectives become one task across their streams.
  void add_passes(const std::vector<int>& members) {
    const auto& coord = result_.devices[members.front()].coord;
    const auto steps = schedule_.steps(coord.pp, strategy().pipeline_parallel, microbatches());
    for (const auto& step : steps) {
      for (int device : members) {
        pass_index_[device][pass_slot(step.kind, step.microbatch)] = steps_[device].size();
      }
      const bool forward = step.kind == schedule::StepKind::forward;
      const auto& templates = forward ? work_[members.front()].forward : work_[members.front()].backward;
      add_pass(members, templates, forward ? Phase::forward : Phase::backward, step.microbatch);
    }
  }

  void add_pass(const std::vector<int>& members, const std::vector<events::TaskTemplate>& templates, Phase phase,
                int microbatch) {
    std::vector<std::vector<TaskId>> created(members.size());
    std::vector<TaskId> previous_compute(members.size(), kNoTask);
    for (size_t m = 0; m < members.size(); ++m) {
      steps_[members[m]].push_back({last_task_[members[m]], kNoTask, kNoTask});
    }
    for (const auto& step : templates) {
      const TaskInfo info{step.event, phase, microbatch, step.layer, step.label};
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
      std::vector<StreamId> streams;
      for (int device : members) {
        streams.push_back(result_.devices[device].stream(step.stream));
      }
      const TaskId task = add_task(step.event, streams, info);
      for (size_t m = 0; m < members.size(); ++m) {
        depend(task, previous_compute[m]);
        created[m].push_back(task);
      }
    }
    for (size_t m = 0; m < members.size(); ++m) {
      steps_[members[m]].back().last = created[m].back();
      last_task_[members[m]] = created[m].back();
    }
  }

  //! The pass of `device` that runs `kind` for `microbatch`.
  static size_t pass_slot(schedule::StepKind kind, int microbatch) {
    return static_cast<size_t>(microbatch) * 2 + (kind == schedule::StepKind::backward ? 1 : 0);
  }

  StepTasks& pass_of(int device, schedule::StepKind kind, int microbatch) {
    return steps_[device][pass_index_[device][pass_slot(kind, microbatch)]];
  }

  //! A point-to-point transfer starts when the sender has produced the tensor and the receiver
  //! has reached the pass that needs it (DistSim's rule); the receiver's pass waits for it.
  void add_transfer(int sender, int receiver, events::EventId event, StreamKind send_stream, StreamKind recv_stream,
                    schedule::StepKind kind, int microbatch) {
    const bool forward = kind == schedule::StepKind::forward;
    const TaskInfo info{event, forward ? Phase::forward : Phase::backward, microbatch, -1,
                        forward ? "send activation" : "send gradient"};
    const TaskId task = add_task(event,
                                 {result_.devices[sender].stream(send_stream),
                                  result_.devices[receiver].stream(recv_stream)},
                                 info);
    depend(task, pass_of(sender, kind, microbatch).last);
    StepTasks& target = pass_of(receiver, kind, microbatch);
    depend(task, target.arrival);
    depend(target.first, task);
  }

  void add_transfers() {
    for (int device = 0; device < static_cast<int>(result_.devices.size()); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord.pp + 1 == strategy().pipeline_parallel) {
        continue;
      }
      const int next = device_of({coord.tp, coord.dp, coord.pp + 1});
      for (int mb = 0; mb < microbatches(); ++mb) {
        add_transfer(device, next, *work_[device].send_activation, StreamKind::pp_send_next, StreamKind::pp_recv_prev,
                     schedule::StepKind::forward, mb);
        add_transfer(next, device, *work_[next].send_gradient, StreamKind::pp_send_prev, StreamKind::pp_recv_next,
                     schedule::StepKind::backward, mb);
      }
    }
  }

  //! Data-parallel gradient buckets, then the tied-embedding reduction, on each device's DP
  //! stream once its last backward pass has ended.
  void add_gradient_reductions() {
    const int dp_members = result_.all_ranks ? strategy().data_parallel : 1;
    for (int device = 0; device < static_cast<int>(result_.devices.size()); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord.dp != 0) {
        continue;
      }
      std::vector<int> members;
      for (int dp = 0; dp < dp_members; ++dp) {
        members.push_back(device_of({coord.tp, dp, coord.pp}));
      }
      for (const events::EventId bucket : work_[device].gradient_buckets) {
        add_reduction(members, bucket, "dp gradient all_reduce");
      }
    }
    for (int device = 0; device < static_cast<int>(result_.devices.size()); ++device) {
      const auto& coord = result_.devices[device].coord;
      if (coord.pp == 0 && work_[device].embedding_reduction) {
        const int last = device_of({coord.tp, coord.dp, strategy().pipeline_parallel - 1});
        add_reduction({device, last}, *work_[device].embedding_reduction, "embedding all_reduce");
      }
    }
  }

  void add_reduction(const std::vector<int>& members, events::EventId event, std::string_view label) {
    std::vector<StreamId> streams;
    for (int device : members) {
      streams.push_back(result_.devices[device].stream(StreamKind::dp_comm));
    }
    const TaskId task = add_task(event, streams, {event, Phase::backward, -1, -1, label});
    for (int device : members) {
      depend(task, last_task_[device]);
      last_reduction_[device] = task;
    }
  }

  void add_optimizer_steps() {
    for (int device = 0; device < static_cast<int>(result_.devices.size()); ++device) {
      const events::EventId event = work_[device].optimizer_step;
      const TaskId task = add_task(event, {result_.devices[device].stream(StreamKind::compute)},
                                   {event, Phase::optimizer, -1, -1, "optimizer step"});
      depend(task, last_task_[device]);
      depend(task, last_reduction_[device]);
    }
  }

  const strategy::JobSpec& job_;
  const schedule::PipelineSchedule& schedule_;
  const cost::CostModel& costs_;
  strategy::RankLayout layout_;
  JobProgram result_;
  std::vector<events::RankWork> work_;
  std::vector<std::vector<StepTasks>> steps_;      //!< per device, per pass in schedule order
  std::vector<std::vector<size_t>> pass_index_;    //!< per device: (microbatch, kind) → pass
  std::vector<TaskId> last_task_;                  //!< per device: last task of its latest pass
  std::vector<TaskId> last_reduction_;             //!< per device: its last DP-stream task
};

}  // namespace

JobProgram build_job_program(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule,
                             const cost::CostModel& costs, bool all_ranks) {
  return ProgramBuilder(job, schedule, costs, all_ranks).build();
}

}  // namespace distsim::program
