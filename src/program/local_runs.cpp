#include "program/local_runs.hpp"

#include <algorithm>

#include "engine/engine.hpp"

namespace distsim::program {

namespace {

using engine::StreamId;
using engine::TaskId;
using events::StreamKind;

//! When each template of `run` ends, from the run's start, when it runs alone with the same stream
//! and dependency rules as PipelinePasses::add_templates (a communication also waits for the
//! computation before it).
std::vector<SimTime> run_alone(const std::vector<events::TaskTemplate>& templates, const LocalRuns::Run& run,
                               const std::vector<cost::Cost>& costs) {
  engine::Program program;
  for (int kind = 0; kind < events::kStreamKinds; ++kind) program.add_stream();
  const auto task_of = [&](std::size_t index) { return static_cast<TaskId>(index - run.first); };
  const auto inside = [&](int index) { return index >= 0 && static_cast<std::size_t>(index) >= run.first; };
  TaskId previous_compute = engine::kNoTask;
  for (std::size_t index = run.first; index < run.end; ++index) {
    const auto& step = templates[index];
    const auto stream = static_cast<StreamId>(step.stream);
    const TaskId task = program.add_task(costs[step.event].duration, std::span<const StreamId>(&stream, 1));
    for (const int prerequisite : {step.waits_for, step.waits_for_parameters}) {
      if (inside(prerequisite)) program.add_dependency(task, task_of(static_cast<std::size_t>(prerequisite)));
    }
    if (step.stream == StreamKind::compute) {
      previous_compute = task;
    } else if (previous_compute != engine::kNoTask) {
      program.add_dependency(task, previous_compute);
    }
  }
  return engine::run(program).end;
}

//! Groups the local templates from the first computation on into runs: a run ends before a
//! template that stays a task, and a new one starts at a template that waits for such a template.
LocalRuns group_runs(const std::vector<events::TaskTemplate>& templates, const std::vector<bool>& local) {
  LocalRuns grouped;
  grouped.run_of.assign(templates.size(), -1);
  const auto first_compute = std::find_if(templates.begin(), templates.end(),
                                          [](const auto& step) { return step.stream == StreamKind::compute; });
  const auto stays_a_task = [&](int index) {
    return index >= 0 && grouped.run_of[static_cast<std::size_t>(index)] < 0;
  };
  int current = -1;
  for (auto index = static_cast<std::size_t>(first_compute - templates.begin()); index < templates.size(); ++index) {
    const auto& step = templates[index];
    if (!local[index]) {
      current = -1;
      continue;
    }
    if (current < 0 || stays_a_task(step.waits_for) || stays_a_task(step.waits_for_parameters)) {
      current = static_cast<int>(grouped.runs.size());
      grouped.runs.push_back({index, index + 1, 0});
    } else {
      grouped.runs.back().end = index + 1;
    }
    grouped.run_of[index] = current;
  }
  return grouped;
}

}  // namespace

std::optional<LocalRuns> local_runs(const std::vector<events::TaskTemplate>& templates, const std::vector<bool>& local,
                                    const std::vector<cost::Cost>& costs, std::span<const std::size_t> awaited) {
  LocalRuns grouped = group_runs(templates, local);
  std::vector<SimTime> ends(templates.size(), 0);
  for (LocalRuns::Run& run : grouped.runs) {
    // A run that opens with communication would hold back computation that need not wait for it.
    if (templates[run.first].stream != StreamKind::compute) return std::nullopt;
    const std::vector<SimTime> alone = run_alone(templates, run, costs);
    std::copy(alone.begin(), alone.end(), ends.begin() + static_cast<std::ptrdiff_t>(run.first));
    run.duration = *std::max_element(alone.begin(), alone.end());
  }
  const auto ends_with_its_run = [&](int index) {
    if (index < 0) return true;
    const int run = grouped.run_of[static_cast<std::size_t>(index)];
    return run < 0 || ends[static_cast<std::size_t>(index)] == grouped.runs[static_cast<std::size_t>(run)].duration;
  };
  // The next run, and a communication outside a run, follow a run's last computation.
  for (const LocalRuns::Run& run : grouped.runs) {
    std::size_t last_compute = run.end - 1;
    while (templates[last_compute].stream != StreamKind::compute) --last_compute;
    if (ends[last_compute] != run.duration) return std::nullopt;
  }
  for (std::size_t index = 0; index < templates.size(); ++index) {
    if (grouped.run_of[index] < 0 && !ends_with_its_run(templates[index].waits_for)) return std::nullopt;
  }
  for (const std::size_t index : awaited) {
    if (!ends_with_its_run(static_cast<int>(index))) return std::nullopt;
  }
  return grouped;
}

}  // namespace distsim::program
