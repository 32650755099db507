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

//! How long the passes of one unit (a single pass, or an overlapped F&B) take on one device when
//! it starts on idle streams: their templates run alone on a scratch program with the same stream
//! and dependency rules as add_templates, in overlapped_order. Each pass's end is that of its last
//! template, from the unit's start; in an overlapped unit the pass that ends the order waits for
//! the others, as add_unit makes it.
std::vector<SimTime> isolated_pass_ends(const std::vector<const std::vector<events::TaskTemplate>*>& passes,
                                        schedule::Overlap hidden, const std::vector<cost::Cost>& costs, bool on_host) {
  engine::Program program;
  for (int kind = 0; kind < events::kStreamKinds; ++kind) {
    program.add_stream();
  }
  const auto host_stream = static_cast<StreamId>(StreamKind::host);
  HostThread host;
  std::vector<std::vector<size_t>> ends;
  ends.reserve(passes.size());
  for (const auto* templates : passes) ends.push_back(segment_ends(*templates, hidden));
  const auto order = overlapped_order(ends, hidden);
  std::vector<std::vector<TaskId>> created(passes.size());
  std::vector<TaskId> previous_compute(passes.size(), kNoTask);
  for (const auto& [pass, end] : order) {
    for (size_t index = created[pass].size(); index < end; ++index) {
      const auto& step = (*passes[pass])[index];
      const auto stream = static_cast<StreamId>(step.stream);
      const TaskId launch = on_host ? host.launch(costs[step.event].host_time(), program, host_stream) : kNoTask;
      const TaskId task = program.add_task(costs[step.event].duration, std::span<const StreamId>(&stream, 1));
      if (launch != kNoTask) program.add_dependency(task, launch);
      host.issued(task, step.host_waits);
      if (step.waits_for >= 0) program.add_dependency(task, created[pass][static_cast<size_t>(step.waits_for)]);
      if (step.waits_for_parameters >= 0) {
        program.add_dependency(task, created[pass][static_cast<size_t>(step.waits_for_parameters)]);
      }
      if (step.stream == StreamKind::compute) {
        previous_compute[pass] = task;
      } else if (previous_compute[pass] != kNoTask) {
        program.add_dependency(task, previous_compute[pass]);
      }
      created[pass].push_back(task);
    }
  }
  if (passes.size() > 1 && !order.empty()) {
    const auto& last_pass = created[order.back().first];
    for (const auto& other : created) {
      if (&other != &last_pass && !other.empty()) program.add_dependency(last_pass.back(), other.back());
    }
  }
  const auto times = engine::run(program);
  std::vector<SimTime> pass_ends;
  pass_ends.reserve(created.size());
  for (const auto& tasks : created) pass_ends.push_back(tasks.empty() ? 0 : times.end[tasks.back()]);
  return pass_ends;
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

//! What a unit of steps hides: what its second step overlaps (none for one step).
schedule::Overlap unit_overlap(std::span<const schedule::Step> unit) {
  return unit.size() > 1 ? unit[1].overlaps_previous : schedule::Overlap::none;
}

}  // namespace

PipelinePasses::PipelinePasses(ProgramDraft& draft, bool aggregate)
    : draft_(draft),
      // ZeRO-2's and ZeRO-3's per-layer collectives overlap compute across passes, which one task
      // per pass cannot show.
      aggregate_(aggregate && !draft.program().all_ranks && !draft.strategy().reduces_per_unit()),
      // A run starts its host thread anew, where a task per template carries it on through the
      // pass: with the host modelled the runs would not time the pass exactly.
      aggregate_runs_(aggregate && !draft.program().all_ranks && draft.strategy().reduces_per_unit() &&
                      !draft.issues_on_host()),
      kinds_(draft.schedule().step_kinds()) {
  const auto devices = static_cast<size_t>(draft_.num_devices());
  const auto slots = kinds_.size() * static_cast<size_t>(draft_.microbatches() * draft_.chunks());
  passes_.resize(devices);
  pass_index_.assign(devices, std::vector<size_t>(slots, 0));
  last_backward_.assign(devices, std::vector<std::vector<TaskId>>(static_cast<size_t>(draft_.chunks())));
  if (aggregate_) {
    aggregated_counts_.assign(devices, std::vector<PassCount>(kinds_.size() * static_cast<size_t>(draft_.chunks())));
  }
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
  const auto& steps = draft_.stage_steps(coord[ParallelDim::pp]);
  const auto last_completing = last_completing_steps(steps, draft_.chunks());
  for (size_t index = 0; index < steps.size();) {
    size_t unit_end = index + 1;
    while (unit_end < steps.size() && steps[unit_end].overlaps_previous != schedule::Overlap::none) ++unit_end;
    for (size_t i = index; i < unit_end; ++i) {
      for (int device : members) {
        pass_index_[device][pass_slot(steps[i].kind, steps[i].chunk, steps[i].microbatch)] =
            passes_[device].size() + (i - index);
      }
    }
    // A pass whose gradients are reduced as they complete keeps its tasks, so that the buckets
    // can start inside it.
    bool reduces_inside = false;
    for (size_t i = index; i < unit_end; ++i) {
      reduces_inside |=
          i == last_completing[static_cast<size_t>(steps[i].chunk)] && draft_.strategy().overlap_grad_reduce;
    }
    std::vector<OpenPass> unit;
    if (aggregate_ && !reduces_inside) {
      add_aggregated_unit(members.front(), std::span<const schedule::Step>(steps).subspan(index, unit_end - index));
    } else {
      unit = add_unit(members, steps, index, unit_end);
    }
    for (size_t i = index; i < unit_end; ++i) {
      if (i != last_completing[static_cast<size_t>(steps[i].chunk)]) continue;
      for (const OpenPass& pass : unit) {
        if (pass.step == steps[i]) {
          for (size_t m = 0; m < members.size(); ++m) {
            last_backward_[members[m]][static_cast<size_t>(steps[i].chunk)] = pass.created[m];
          }
        }
      }
    }
    index = unit_end;
  }
  if (aggregate_) {
    for (const int device : members) count_aggregated_instances(device);
  }
}

std::vector<size_t> segment_ends(const std::vector<events::TaskTemplate>& templates, schedule::Overlap hidden) {
  const auto waits_on_communication = [&](int index) {
    if (index < 0) return false;
    const StreamKind stream = templates[static_cast<size_t>(index)].stream;
    switch (hidden) {
      case schedule::Overlap::none: return false;
      case schedule::Overlap::communication: return stream != StreamKind::compute;
      case schedule::Overlap::expert_exchange: return stream == StreamKind::ep_comm || stream == StreamKind::etp_comm;
    }
    return false;
  };
  std::vector<size_t> ends;
  for (size_t i = 1; i < templates.size(); ++i) {
    const auto& step = templates[i];
    if (step.stream == StreamKind::compute &&
        (waits_on_communication(step.waits_for) || waits_on_communication(step.waits_for_parameters))) {
      ends.push_back(i);
    }
  }
  if (!templates.empty()) ends.push_back(templates.size());
  return ends;
}

std::vector<std::pair<size_t, size_t>> overlapped_order(const std::vector<std::vector<size_t>>& segment_ends,
                                                        schedule::Overlap hidden) {
  std::vector<std::pair<size_t, size_t>> forward_side;
  std::vector<std::pair<size_t, size_t>> backward_side;
  for (size_t pass = 0; pass < segment_ends.size(); ++pass) {
    for (const size_t end : segment_ends[pass]) {
      (pass == 0 ? forward_side : backward_side).emplace_back(pass, end);
    }
  }
  const bool backward_leads = hidden == schedule::Overlap::expert_exchange;
  const auto& leading = backward_leads ? backward_side : forward_side;
  const auto& following = backward_leads ? forward_side : backward_side;
  std::vector<std::pair<size_t, size_t>> order;
  order.reserve(leading.size() + following.size());
  for (size_t i = 0; i < std::max(leading.size(), following.size()); ++i) {
    if (i < leading.size()) order.push_back(leading[i]);
    if (i < following.size()) order.push_back(following[i]);
  }
  return order;
}

std::vector<PipelinePasses::OpenPass> PipelinePasses::add_unit(const std::vector<int>& members,
                                                               const std::vector<schedule::Step>& steps, size_t first,
                                                               size_t last) {
  const auto& work = draft_.work(members.front());
  std::vector<OpenPass> unit;
  std::vector<std::vector<size_t>> ends;
  const schedule::Overlap hidden = unit_overlap(std::span<const schedule::Step>(steps).subspan(first, last - first));
  for (size_t i = first; i < last; ++i) {
    const auto& templates = work.chunks[static_cast<size_t>(steps[i].chunk)].*(steps[i].kind->templates);
    unit.push_back(open_pass(members, templates, steps[i]));
    // An overlapped unit interleaves its passes' templates, which runs would reorder.
    if (aggregate_runs_ && last - first == 1) unit.back().runs = runs_of(members, templates);
    ends.push_back(segment_ends(templates, hidden));
  }
  const auto order = overlapped_order(ends, hidden);
  hosts_.assign(members.size(), HostThread{});
  for (size_t m = 0; m < members.size() && !unit.empty(); ++m) {
    hosts_[m].start = passes_[members[m]][unit.front().index[m]].arrival;
  }
  for (const auto& [pass, end] : order) {
    add_templates(unit[pass], members, end);
  }
  for (const OpenPass& pass : unit) {
    close_pass(pass, members);
  }
  // The unit ends when both sides have: the pass whose last segment ran last waits for the
  // others' last tasks (dualpipe.py waits for both halves' communication before the next phase).
  if (!order.empty()) {
    const OpenPass& final_pass = unit[order.back().first];
    for (size_t m = 0; m < members.size(); ++m) {
      const int device = members[m];
      const TaskId final_task = passes_[device][final_pass.index[m]].last;
      for (const OpenPass& pass : unit) {
        if (&pass != &final_pass) draft_.depend(final_task, passes_[device][pass.index[m]].last);
      }
      draft_.last_task[device] = final_task;
    }
  }
  return unit;
}

PipelinePasses::OpenPass PipelinePasses::open_pass(const std::vector<int>& members,
                                                   const std::vector<events::TaskTemplate>& templates,
                                                   const schedule::Step& pass) {
  OpenPass open{&templates,
                pass,
                {},
                std::vector<std::vector<TaskId>>(members.size()),
                std::vector<TaskId>(members.size(), kNoTask),
                0};
  for (int device : members) {
    open.index.push_back(passes_[device].size());
    passes_[device].push_back({draft_.last_task[device], kNoTask, kNoTask});
  }
  return open;
}

const std::vector<PipelinePasses::JoinedStep>& PipelinePasses::joined_steps(const std::vector<int>& members,
                                                                            StreamKind stream) {
  if (members != joined_members_) {
    joined_members_ = members;
    for (auto& kind : joined_steps_) kind.reset();
  }
  auto& joined = joined_steps_[static_cast<size_t>(stream)];
  if (!joined) {
    joined.emplace();
    for (auto& group : draft_.groups().step_groups(members, stream)) {
      std::vector<int> devices;
      devices.reserve(group.size());
      for (const size_t m : group) devices.push_back(members[m]);
      joined->push_back({std::move(group), draft_.streams_of(devices, stream)});
    }
  }
  return *joined;
}

//! Instantiates templates [pass.next, end) of one pass on every member.
void PipelinePasses::add_templates(OpenPass& pass, const std::vector<int>& members, size_t end) {
  for (; pass.next < end; ++pass.next) {
    if (pass.runs != nullptr && pass.runs->run_of[pass.next] >= 0) {
      add_run(pass, members, pass.runs->runs[static_cast<size_t>(pass.runs->run_of[pass.next])]);
      continue;
    }
    const auto& step = (*pass.templates)[pass.next];
    const TaskInfo info{step.event, step.phase, pass.step.microbatch, step.layer, step.label, pass.step.chunk};
    if (step.stream == StreamKind::compute) {
      for (size_t m = 0; m < members.size(); ++m) {
        const int device = members[m];
        PassTasks& tasks = passes_[device][pass.index[m]];
        const StreamId compute = draft_.stream(device, StreamKind::compute);
        const TaskId launched = launch(device, hosts_[m], step, info);
        const TaskId task = draft_.add_task(step.event, std::span<const StreamId>(&compute, 1), info);
        draft_.depend(task, launched);
        hosts_[m].issued(task, step.host_waits);
        draft_.depend(task, step.waits_for >= 0 ? pass.created[m][static_cast<size_t>(step.waits_for)] : kNoTask);
        if (step.waits_for_parameters >= 0) {
          draft_.depend(task, pass.created[m][static_cast<size_t>(step.waits_for_parameters)]);
        }
        if (pass.previous_compute[m] == kNoTask) {
          draft_.depend(task, tasks.arrival);
          // What the pass's input arrives for: its first computation's launch, which the host
          // issues once the device can start the pass (HostThread).
          tasks.first = launched != kNoTask ? launched : task;
        }
        pass.previous_compute[m] = task;
        pass.created[m].push_back(task);
      }
      continue;
    }
    TaskInfo joined_info = info;
    joined_info.group = in_pass_group(step.stream);
    for (const auto& [group, streams] : joined_steps(members, step.stream)) {
      launches_.clear();
      for (const size_t m : group) launches_.push_back(launch(members[m], hosts_[m], step, info));
      const TaskId task = draft_.add_task(step.event, streams, joined_info);
      for (const TaskId launched : launches_) draft_.depend(task, launched);
      for (size_t m : group) {
        hosts_[m].issued(task, step.host_waits);
        const int device = members[m];
        // A ZeRO-3 all-gather that opens the pass is issued when the device reaches the pass.
        const bool opens_pass = pass.previous_compute[m] == kNoTask && step.stream == StreamKind::dp_comm;
        draft_.depend(task, opens_pass ? passes_[device][pass.index[m]].arrival : pass.previous_compute[m]);
        draft_.depend(task, step.waits_for >= 0 ? pass.created[m][static_cast<size_t>(step.waits_for)] : kNoTask);
        if (reduces_after_pass(step.stream)) {
          draft_.last_reduction[device] = task;
        }
        pass.created[m].push_back(task);
      }
    }
  }
}

TaskId PipelinePasses::launch(int device, HostThread& host, const events::TaskTemplate& step, const TaskInfo& info) {
  if (!draft_.issues_on_host()) return kNoTask;
  return host.launch(
      draft_.costs()[step.event].host_time(),
      [&](SimTime duration) { return draft_.add_launch(device, duration, info); },
      [&](TaskId task, TaskId prerequisite) { draft_.depend(task, prerequisite); });
}

//! The run's task stands for each of its templates: what waits for one of them waits for the run,
//! which ends with each that anything outside it waits for (local_runs).
void PipelinePasses::add_run(OpenPass& pass, const std::vector<int>& members, const LocalRuns::Run& run) {
  const auto& templates = *pass.templates;
  const auto& first = templates[run.first];
  const TaskInfo info{first.event, first.phase, pass.step.microbatch, first.layer, first.label, pass.step.chunk};
  const std::int64_t counted = draft_.counts_microbatch(pass.step.microbatch) ? 1 : 0;
  for (size_t m = 0; m < members.size(); ++m) {
    const int device = members[m];
    const TaskId task = draft_.add_untracked_task(run.duration, draft_.stream(device, StreamKind::compute), info);
    for (const int prerequisite : {first.waits_for, first.waits_for_parameters}) {
      if (prerequisite >= 0) draft_.depend(task, pass.created[m][static_cast<size_t>(prerequisite)]);
    }
    if (pass.previous_compute[m] == kNoTask) {
      PassTasks& tasks = passes_[device][pass.index[m]];
      draft_.depend(task, tasks.arrival);
      tasks.first = task;
    }
    pass.previous_compute[m] = task;
    for (size_t index = run.first; index < run.end; ++index) {
      draft_.count_instances(templates[index].event, device, 1, counted);
      pass.created[m].push_back(task);
    }
  }
  pass.next = run.end - 1;
}

const LocalRuns* PipelinePasses::runs_of(const std::vector<int>& members,
                                         const std::vector<events::TaskTemplate>& templates) {
  auto found = local_runs_.find(&templates);
  if (found == local_runs_.end()) {
    const auto streams = local_streams(members);
    std::vector<bool> local;
    local.reserve(templates.size());
    for (const auto& step : templates) local.push_back(streams[static_cast<size_t>(step.stream)]);
    // The pass's successor and transfers wait for its last task before its trailing reductions.
    std::vector<size_t> awaited;
    for (size_t index = templates.size(); index > 0; --index) {
      if (!reduces_after_pass(templates[index - 1].stream)) {
        awaited.push_back(index - 1);
        break;
      }
    }
    found = local_runs_.emplace(&templates, local_runs(templates, local, draft_.costs(), awaited)).first;
  }
  return found->second ? &*found->second : nullptr;
}

std::array<bool, static_cast<size_t>(events::kStreamKinds)> PipelinePasses::local_streams(
    const std::vector<int>& members) {
  std::array<bool, static_cast<size_t>(events::kStreamKinds)> local{};
  local[static_cast<size_t>(StreamKind::compute)] = true;
  for (const StreamKind stream :
       {StreamKind::tp_comm, StreamKind::cp_comm, StreamKind::ep_comm, StreamKind::etp_comm}) {
    const auto& joined = joined_steps(members, stream);
    local[static_cast<size_t>(stream)] =
        std::all_of(joined.begin(), joined.end(), [](const JoinedStep& step) { return step.members.size() == 1; });
  }
  for (const auto& chunk : draft_.work(members.front()).chunks) {
    for (const StepKind kind : kinds_) {
      bool computed = false;
      for (const auto& step : chunk.*(kind->templates)) {
        computed |= step.stream == StreamKind::compute;
        const events::Event& event = draft_.program().events.at(step.event);
        if (!computed || event.crosses_nics()) {
          local[static_cast<size_t>(step.stream)] = false;
        }
      }
    }
  }
  return local;
}

//! The pass's last task, its trailing gradient reductions left out, is where its successor and
//! its transfers start from.
void PipelinePasses::close_pass(const OpenPass& pass, const std::vector<int>& members) {
  const auto& templates = *pass.templates;
  for (size_t m = 0; m < members.size(); ++m) {
    if (pass.created[m].empty()) continue;
    size_t last = pass.created[m].size() - 1;
    while (last > 0 && reduces_after_pass(templates[last].stream)) {
      --last;
    }
    passes_[members[m]][pass.index[m]].last = pass.created[m][last];
    draft_.last_task[members[m]] = pass.created[m][last];
  }
}

//! One task per pass of a unit on a symmetric device (a single pass, or an overlapped F&B), in
//! the order the passes end when the unit runs alone (isolated_pass_ends), each lasting until its
//! pass's end: a pass's transfers leave when they would in the full unit, and the unit's inputs
//! are all waited for at its start. Its events still count every instance.
void PipelinePasses::add_aggregated_unit(int device, std::span<const schedule::Step> unit) {
  auto& [hidden, templates] = unit_key_;
  templates.clear();
  for (const auto& step : unit) {
    templates.push_back(&(draft_.work(device).chunks[static_cast<size_t>(step.chunk)].*(step.kind->templates)));
  }
  hidden = unit_overlap(unit);
  auto found = unit_ends_.find(unit_key_);
  if (found == unit_ends_.end()) {
    found =
        unit_ends_.emplace(unit_key_, isolated_pass_ends(templates, hidden, draft_.costs(), draft_.issues_on_host()))
            .first;
  }
  const std::vector<SimTime>& ends = found->second;
  TaskId& last_task = draft_.last_task[device];
  const size_t first_pass = passes_[device].size();
  by_end_.clear();
  for (size_t pass = 0; pass < unit.size(); ++pass) {
    passes_[device].push_back({last_task, kNoTask, kNoTask});
    PassCount& count = aggregated_counts_[static_cast<size_t>(device)][aggregated_slot(unit[pass])];
    ++count.all;
    if (draft_.counts_microbatch(unit[pass].microbatch)) ++count.counted;
    if (!templates[pass]->empty()) by_end_.push_back(pass);
  }
  // A unit holds a pass or two: an insertion sort, stable, without std::stable_sort's buffer.
  for (size_t sorted = 1; sorted < by_end_.size(); ++sorted) {
    for (size_t i = sorted; i > 0 && ends[by_end_[i]] < ends[by_end_[i - 1]]; --i)
      std::swap(by_end_[i], by_end_[i - 1]);
  }
  TaskId unit_first = kNoTask;
  SimTime elapsed = 0;
  for (const size_t pass : by_end_) {
    const schedule::Step& step = unit[pass];
    const TaskInfo info{templates[pass]->front().event, step.kind->phase, step.microbatch, -1,
                        step.kind->pass_label,          step.chunk};
    const TaskId task =
        draft_.add_untracked_task(ends[pass] - elapsed, draft_.stream(device, StreamKind::compute), info);
    draft_.depend(task, last_task);
    if (unit_first == kNoTask) unit_first = task;
    passes_[device][first_pass + pass].last = task;
    last_task = task;
    elapsed = ends[pass];
  }
  for (size_t pass : by_end_) {
    passes_[device][first_pass + pass].first = unit_first;
  }
}

size_t PipelinePasses::UnitKeyHash::operator()(const UnitKey& key) const {
  size_t hash = std::hash<int>{}(static_cast<int>(key.first));
  for (const auto* templates : key.second) {
    hash = hash * 31 + std::hash<const void*>{}(templates);
  }
  return hash;
}

size_t PipelinePasses::aggregated_slot(const schedule::Step& step) const {
  return static_cast<size_t>(step.chunk) * kinds_.size() + kind_index(step.kind);
}

void PipelinePasses::count_aggregated_instances(int device) {
  auto& counts = aggregated_counts_[static_cast<size_t>(device)];
  for (size_t slot = 0; slot < counts.size(); ++slot) {
    PassCount& count = counts[slot];
    if (count.all == 0) continue;
    const auto& chunk = draft_.work(device).chunks[slot / kinds_.size()];
    for (const auto& step : chunk.*(kinds_[slot % kinds_.size()]->templates)) {
      draft_.count_instances(step.event, device, count.all, count.counted);
    }
    count = {};
  }
}

void PipelinePasses::unlisted_kind(StepKind kind) const {
  throw InternalError("schedule '" + std::string(draft_.schedule().name()) + "' runs a step of kind '" +
                      std::string(kind->name) + "' that its step_kinds() does not list");
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
