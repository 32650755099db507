#include "program/iteration_end.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace distsim::program {

using engine::TaskId;
using events::Phase;
using events::StreamKind;
using strategy::ParallelDim;

namespace {

void add_buckets(ProgramDraft& draft, const PipelinePasses& passes, const std::vector<int>& members,
                 const events::RankWork& work) {
  const std::string_view label =
      draft.strategy().zero_stage() != strategy::Sharding::none ? kGradientReduceScatterLabel : kGradientAllReduceLabel;
  for (int chunk = draft.chunks() - 1; chunk >= 0; --chunk) {
    for (const auto& bucket : work.chunks[static_cast<size_t>(chunk)].gradient_buckets) {
      if (!bucket.reduction) continue;
      const events::EventId reduction = *bucket.reduction;
      const TaskId task = draft.add_task(reduction, draft.streams_of(members, comm_group_stream(CommGroup::gradient)),
                                         {reduction, Phase::backward, -1, -1, label, chunk, CommGroup::gradient});
      for (int device : members) {
        draft.depend(task, draft.strategy().overlap_grad_reduce ? passes.bucket_ready(device, chunk, bucket)
                                                                : draft.last_task[device]);
        draft.last_reduction[device] = task;
      }
    }
  }
}

//! A reduction across `members` after their backward passes and earlier reductions, on its group's stream.
void add_reduction(ProgramDraft& draft, const std::vector<int>& members, events::EventId event, std::string_view label,
                   CommGroup group) {
  const TaskId task = draft.add_task(event, draft.streams_of(members, comm_group_stream(group)),
                                     {event, Phase::backward, -1, -1, label, 0, group});
  for (int device : members) {
    draft.depend(task, draft.last_task[device]);
    draft.depend(task, draft.last_reduction[device]);
  }
  for (int device : members) {
    draft.last_reduction[device] = task;
  }
}

//! The expert data-parallel groups, for a job with experts; none for a dense one, which spares
//! listing every stage's ranks (its expert data-parallel group is the whole stage).
std::vector<std::vector<int>> expert_data_groups(const ProgramDraft& draft) {
  for (int device = 0; device < draft.num_devices(); ++device) {
    const auto& work = draft.work(device);
    if (work.expert_gradient_reduction || work.expert_parameter_gather) return draft.groups().expert_data_groups();
  }
  return {};
}

//! Data-parallel gradient buckets, the sequence-parallel norm reduction, the tied-embedding
//! reduction, then the sum of parameter copies' gradients between the stages that hold them. Without overlap every
//! bucket waits for the end of backward; with it a bucket starts once the last micro-batch's backward has produced its
//! gradients (Megatron-LM --overlap-grad-reduce). Chunks finish backward last to first.
void add_gradient_reductions(ProgramDraft& draft, const PipelinePasses& passes) {
  for (const auto& members : draft.groups().gradient_groups()) {
    add_buckets(draft, passes, members, draft.work(members.front()));
  }
  for (const auto& members : draft.groups().tensor_groups()) {
    if (const auto reduction = draft.work(members.front()).sequence_parallel_reduction) {
      add_reduction(draft, members, *reduction, kSequenceParallelReductionLabel, CommGroup::tensor);
    }
  }
  for (const auto& members : expert_data_groups(draft)) {
    if (const auto reduction = draft.work(members.front()).expert_gradient_reduction) {
      const std::string_view label = draft.strategy().zero_stage() != strategy::Sharding::none
                                         ? kExpertGradientReduceScatterLabel
                                         : kExpertGradientAllReduceLabel;
      add_reduction(draft, members, *reduction, label, CommGroup::expert_data);
    }
  }
  for (int device = 0; device < draft.num_devices(); ++device) {
    if (draft.coord(device)[ParallelDim::pp] == 0 && draft.work(device).embedding_reduction) {
      const int last = draft.groups().on_stage(device, draft.stages() - 1);
      add_reduction(draft, {device, last}, *draft.work(device).embedding_reduction, kEmbeddingReductionLabel,
                    CommGroup::stages);
    }
  }
  for (int device = 0; device < draft.num_devices(); ++device) {
    const auto& copies = draft.copy_reduction(device);
    if (copies && draft.coord(device)[ParallelDim::pp] < copies->stage) {
      add_reduction(draft, {device, draft.groups().on_stage(device, copies->stage)}, copies->event,
                    kCopyGradientReductionLabel, CommGroup::stages);
    }
  }
}

std::vector<TaskId> add_optimizer_steps(ProgramDraft& draft) {
  std::vector<TaskId> optimizer_task(static_cast<size_t>(draft.num_devices()), kNoTask);
  for (int device = 0; device < draft.num_devices(); ++device) {
    const events::EventId event = draft.work(device).optimizer_step;
    const engine::StreamId compute = draft.stream(device, StreamKind::compute);
    const TaskId task = draft.add_task(event, std::span<const engine::StreamId>(&compute, 1),
                                       {event, Phase::optimizer, -1, -1, kOptimizerStepLabel});
    draft.depend(task, draft.last_task[device]);
    draft.depend(task, draft.last_reduction[device]);
    optimizer_task[device] = task;
  }
  return optimizer_task;
}

//! Distributed optimizer: each rank updated its shard, so the data-parallel group all-gathers
//! the updated bf16 parameters, bucket by bucket, before the next iteration can start.
void add_parameter_gathers(ProgramDraft& draft, const std::vector<TaskId>& optimizer_task) {
  for (const auto& members : expert_data_groups(draft)) {
    if (const auto gather = draft.work(members.front()).expert_parameter_gather) {
      const TaskId task =
          draft.add_task(*gather, draft.streams_of(members, comm_group_stream(CommGroup::expert_data)),
                         {*gather, Phase::optimizer, -1, -1, kExpertParameterGatherLabel, 0, CommGroup::expert_data});
      for (int member : members) {
        draft.depend(task, optimizer_task[member]);
      }
    }
  }
  for (const auto& members : draft.groups().gradient_groups()) {
    const int device = members.front();
    for (int chunk = 0; chunk < draft.chunks(); ++chunk) {
      for (const auto& bucket : draft.work(device).chunks[static_cast<size_t>(chunk)].gradient_buckets) {
        if (!bucket.parameter_gather) {
          continue;
        }
        const events::EventId event = *bucket.parameter_gather;
        const TaskId task =
            draft.add_task(event, draft.streams_of(members, comm_group_stream(CommGroup::gradient)),
                           {event, Phase::optimizer, -1, -1, kParameterGatherLabel, chunk, CommGroup::gradient});
        for (int member : members) {
          draft.depend(task, optimizer_task[member]);
        }
      }
    }
  }
}

}  // namespace

void add_iteration_end(ProgramDraft& draft, const PipelinePasses& passes) {
  add_gradient_reductions(draft, passes);
  add_parameter_gathers(draft, add_optimizer_steps(draft));
}

}  // namespace distsim::program
