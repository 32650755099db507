#include "program/pipeline_passes.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "core/input_error.hpp"
#include "engine/engine.hpp"

namespace distsim::program {

using engine::StreamId;
using engine::TaskId;
using events::StreamKind;
using schedule::StepKind;
using strategy::ParallelDim;

namespace {

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
    const auto stream = static_cast<StreamId>(step.stream);
    const TaskId task = program.add_task(costs[step.event].duration, std::span<const StreamId>(&stream, 1));
    if (step.waits_for >= 0) program.add_dependency(task, created[static_cast<size_t>(step.waits_for)]);
    if (step.waits_for_parameters >= 0) {
      program.add_dependency(task, created[static_cast<size_t>(step.waits_for_parameters)]);
    }
    if (step.stream == StreamKind::compute) {
      previous_compute = task;
    } else if (previous_compute != kNoTask) {
      program.add_dependency(task, previous_compute);
    }
    created.push_back(task);
  }
  if (created.empty()) return 0;
  return engine::run(program).end[created.back()];
}

//! ZeRO-3's gradient reductions after a unit's backward: the pass does not wait for them, so
//! neither its successor nor its transfers do; the optimizer step does (last_reduction).
bool reduces_after_pass(StreamKind stream) {
  return stream == StreamKind::dp_reduce || stream == StreamKind::dp_replica;
}

//! For each chunk, the index of its last step that completes gradients: the one whose end the
//! chunk's data-parallel buckets wait for. A chunk need not see every micro-batch (DualPipe sends
//! half of them each way), so it is the last such step in order, not the last micro-batch's.
std::vector<size_t> last_completing_steps(const std::vector<schedule::Step>& steps, int chunks) {
  std::vector<size_t> last(static_cast<size_t>(chunks), steps.size());
  for (size_t index = 0; index < steps.size(); ++index) {
    if (steps[index].kind->completes_gradients) {
      last[static_cast<size_t>(steps[index].chunk)] = index;
    }
  }
  return last;
}

}  // namespace

PipelinePasses::PipelinePasses(ProgramDraft& draft, bool aggregate)
    : draft_(draft),
      // ZeRO-3's per-layer collectives overlap compute across passes, which one task per pass
      // cannot show.
      aggregate_(aggregate && !draft.program().all_ranks && !draft.strategy().gathers_parameters()),
      kinds_(draft.schedule().step_kinds()) {
  const auto devices = static_cast<size_t>(draft_.num_devices());
  const auto slots = kinds_.size() * static_cast<size_t>(draft_.microbatches() * draft_.chunks());
  passes_.resize(devices);
  pass_index_.assign(devices, std::vector<size_t>(slots, 0));
  last_backward_.assign(devices, std::vector<std::vector<TaskId>>(static_cast<size_t>(draft_.chunks())));
  for (const StepKind kind : kinds_) {
    if (kind->completes_gradients) {
      bucket_ready_ = kind->bucket_ready;
    }
  }
}

TaskId PipelinePasses::bucket_ready(int device, int chunk, const events::GradientBucket& bucket) const {
  return last_backward(device, chunk).at(static_cast<size_t>(bucket.*bucket_ready_));
}

void PipelinePasses::add_passes(const std::vector<int>& members) {
  const auto& coord = draft_.coord(members.front());
  const auto steps =
      draft_.schedule().steps(coord[ParallelDim::pp], draft_.stages(), draft_.microbatches(), draft_.chunks());
  const auto last_completing = last_completing_steps(steps, draft_.chunks());
  for (size_t index = 0; index < steps.size(); ++index) {
    const auto& step = steps[index];
    for (int device : members) {
      pass_index_[device][pass_slot(step.kind, step.chunk, step.microbatch)] = passes_[device].size();
    }
    const auto& chunk = draft_.work(members.front()).chunks[static_cast<size_t>(step.chunk)];
    const bool completes_gradients = index == last_completing[static_cast<size_t>(step.chunk)];
    const auto& templates = chunk.*(step.kind->templates);
    if (aggregate_ && !(completes_gradients && draft_.strategy().overlap_grad_reduce)) {
      add_aggregated_pass(members.front(), templates, step);
      continue;
    }
    const auto created = add_pass(members, templates, step);
    if (completes_gradients) {
      for (size_t m = 0; m < members.size(); ++m) {
        last_backward_[members[m]][static_cast<size_t>(step.chunk)] = created[m];
      }
    }
  }
}

//! Instantiates `templates` for one pass on every member; returns each member's tasks, by
//! template index.
std::vector<std::vector<TaskId>> PipelinePasses::add_pass(const std::vector<int>& members,
                                                          const std::vector<events::TaskTemplate>& templates,
                                                          const schedule::Step& pass) {
  std::vector<std::vector<TaskId>> created(members.size());
  std::vector<TaskId> previous_compute(members.size(), kNoTask);
  for (int device : members) {
    passes_[device].push_back({draft_.last_task[device], kNoTask, kNoTask});
  }
  for (const auto& step : templates) {
    const TaskInfo info{step.event, step.phase, pass.microbatch, step.layer, step.label, pass.chunk};
    if (step.stream == StreamKind::compute) {
      for (size_t m = 0; m < members.size(); ++m) {
        const int device = members[m];
        const TaskId task = draft_.add_task(step.event, {draft_.stream(device, StreamKind::compute)}, info);
        draft_.depend(task, step.waits_for >= 0 ? created[m][static_cast<size_t>(step.waits_for)] : kNoTask);
        if (step.waits_for_parameters >= 0) {
          draft_.depend(task, created[m][static_cast<size_t>(step.waits_for_parameters)]);
        }
        if (previous_compute[m] == kNoTask) {
          draft_.depend(task, passes_[device].back().arrival);
          passes_[device].back().first = task;
        }
        previous_compute[m] = task;
        created[m].push_back(task);
      }
      continue;
    }
    for (const auto& group : draft_.groups().step_groups(members, step.stream)) {
      std::vector<int> joined;
      joined.reserve(group.size());
      for (size_t m : group) {
        joined.push_back(members[m]);
      }
      const TaskId task = draft_.add_task(step.event, draft_.streams_of(joined, step.stream), info);
      for (size_t m : group) {
        const int device = members[m];
        // A ZeRO-3 all-gather that opens the pass is issued when the device reaches the pass.
        const bool opens_pass = previous_compute[m] == kNoTask && step.stream == StreamKind::dp_comm;
        draft_.depend(task, opens_pass ? passes_[device].back().arrival : previous_compute[m]);
        draft_.depend(task, step.waits_for >= 0 ? created[m][static_cast<size_t>(step.waits_for)] : kNoTask);
        if (reduces_after_pass(step.stream)) {
          draft_.last_reduction[device] = task;
        }
        created[m].push_back(task);
      }
    }
  }
  for (size_t m = 0; m < members.size(); ++m) {
    size_t last = created[m].size() - 1;
    while (last > 0 && reduces_after_pass(templates[last].stream)) {
      --last;
    }
    passes_[members[m]].back().last = created[m][last];
    draft_.last_task[members[m]] = created[m][last];
  }
  return created;
}

//! One task for a whole pass on a symmetric device, lasting as long as the pass's templates
//! take alone (isolated_pass_duration). Its events still count every instance.
void PipelinePasses::add_aggregated_pass(int device, const std::vector<events::TaskTemplate>& templates,
                                         const schedule::Step& pass) {
  TaskId& last_task = draft_.last_task[device];
  if (templates.empty()) {
    passes_[device].push_back({last_task, kNoTask, kNoTask});
    return;
  }
  auto found = pass_durations_.find(&templates);
  if (found == pass_durations_.end()) {
    found = pass_durations_.emplace(&templates, isolated_pass_duration(templates, draft_.costs())).first;
  }
  for (const auto& step : templates) {
    draft_.count_instances(step.event);
  }
  const TaskInfo info{templates.front().event, pass.kind->phase, pass.microbatch, -1,
                      pass.kind->pass_label,   pass.chunk};
  const TaskId task = draft_.add_untracked_task(found->second, draft_.stream(device, StreamKind::compute), info);
  draft_.depend(task, last_task);
  passes_[device].push_back({last_task, task, task});
  last_task = task;
}

size_t PipelinePasses::kind_index(StepKind kind) const {
  const auto found = std::find(kinds_.begin(), kinds_.end(), kind);
  if (found == kinds_.end()) {
    throw InternalError("schedule '" + std::string(draft_.schedule().name()) + "' runs a step of kind '" +
                        std::string(kind->name) + "' that its step_kinds() does not list");
  }
  return static_cast<size_t>(found - kinds_.begin());
}

size_t PipelinePasses::pass_slot(StepKind kind, int chunk, int microbatch) const {
  const auto index =
      static_cast<size_t>(chunk) * static_cast<size_t>(draft_.microbatches()) + static_cast<size_t>(microbatch);
  return index * kinds_.size() + kind_index(kind);
}

PassTasks& PipelinePasses::pass_of(int device, StepKind kind, int chunk, int microbatch) {
  return passes_[device][pass_index_[device][pass_slot(kind, chunk, microbatch)]];
}

}  // namespace distsim::program
