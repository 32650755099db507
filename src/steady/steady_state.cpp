#include "steady/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/checked_arithmetic.hpp"
#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::steady {

namespace {

using engine::TaskId;
using schedule::Step;

//! How many micro-batches a stage's step order may run ahead of its oldest unfinished one, at most,
//! counting each chunk of a micro-batch: one per chunk of the whole pipeline, or as many as a stage
//! holds at its peak where that is more (ZB-H2 runs 2p - 1 forwards before its first backward and
//! defers each W further).
int pipeline_depth(const strategy::Strategy& strategy, const schedule::PipelineSchedule& schedule) {
  const int chunks = schedule.chunks_per_stage(strategy.virtual_stages);
  int depth = strategy.pipeline_parallel * chunks;
  for (const double in_flight : schedule.all_stage_microbatches_in_flight(strategy)) {
    depth = std::max(depth, static_cast<int>(std::ceil(in_flight * chunks)));
  }
  return depth;
}

strategy::Strategy with_microbatches(strategy::Strategy strategy, int microbatches) {
  strategy.global_batch_size = microbatches * strategy.micro_batch_size * strategy.data_parallel;
  return strategy;
}

bool same_step_later(const Step& later, const Step& earlier, int microbatches) {
  return later.kind == earlier.kind && later.chunk == earlier.chunk &&
         later.overlaps_previous == earlier.overlaps_previous && later.microbatch == earlier.microbatch + microbatches;
}

//! Whether `longer` is `shorter` with `repeats` copies of one stretch of steps inserted at one
//! place, each copy the stretch before it for micro-batches `period` later, and the steps after the
//! insertion those of `shorter` for micro-batches repeats × period later.
bool inserts_periods(const std::vector<Step>& shorter, const std::vector<Step>& longer, int period, int repeats) {
  const std::size_t n = shorter.size();
  if (longer.size() <= n || (longer.size() - n) % static_cast<std::size_t>(repeats) != 0) return false;
  const std::size_t added = longer.size() - n;
  const std::size_t length = added / static_cast<std::size_t>(repeats);
  std::size_t prefix = 0;
  while (prefix < n && shorter[prefix] == longer[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < n && same_step_later(longer[longer.size() - 1 - suffix], shorter[n - 1 - suffix], period * repeats)) {
    ++suffix;
  }
  // Insert after the common prefix: every step before it is the same, every one after it the
  // shorter run's, later.
  const std::size_t at = prefix;
  if (at + suffix < n || at < length) return false;
  for (std::size_t i = at; i < at + added; ++i) {
    if (!same_step_later(longer[i], longer[i - length], period)) return false;
  }
  return true;
}

bool step_orders_repeat(const strategy::Strategy& strategy, const schedule::PipelineSchedule& schedule,
                        const SteadyStatePlan& plan) {
  const auto shorter = schedule.all_stage_steps(with_microbatches(strategy, plan.simulated_microbatches));
  const auto longer = schedule.all_stage_steps(strategy);
  for (size_t stage = 0; stage < shorter.size(); ++stage) {
    if (!inserts_periods(shorter[stage], longer[stage], plan.period, plan.repeats())) return false;
  }
  return true;
}

//! The tasks of each micro-batch, in the order they were added, one micro-batch after another.
class MicrobatchTasks {
 public:
  explicit MicrobatchTasks(const program::JobProgram& program)
      : offsets_(static_cast<std::size_t>(program.num_microbatches) + 1, 0) {
    for (const program::TaskInfo& task : program.tasks) {
      if (task.microbatch >= 0) ++offsets_[static_cast<std::size_t>(task.microbatch) + 1];
    }
    for (std::size_t m = 1; m < offsets_.size(); ++m) offsets_[m] += offsets_[m - 1];
    tasks_.resize(offsets_.back());
    std::vector<std::size_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (TaskId task = 0; task < program.tasks.size(); ++task) {
      const int microbatch = program.tasks[task].microbatch;
      if (microbatch >= 0) tasks_[fill[static_cast<std::size_t>(microbatch)]++] = task;
    }
  }
  int size() const { return static_cast<int>(offsets_.size()) - 1; }
  std::span<const TaskId> of(int microbatch) const {
    const auto m = static_cast<std::size_t>(microbatch);
    return {tasks_.data() + offsets_[m], offsets_[m + 1] - offsets_[m]};
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<TaskId> tasks_;
};

bool same_work(const program::JobProgram& program, TaskId a, TaskId b) {
  const program::TaskInfo& x = program.tasks[a];
  const program::TaskInfo& y = program.tasks[b];
  const auto streams_a = program.program.streams(a);
  const auto streams_b = program.program.streams(b);
  return x.event == y.event && x.phase == y.phase && x.layer == y.layer && x.chunk == y.chunk && x.label == y.label &&
         program.program.duration(a) == program.program.duration(b) &&
         std::equal(streams_a.begin(), streams_a.end(), streams_b.begin(), streams_b.end());
}

//! How much later every task of `later` runs than the same task of `earlier`, when that is one
//! positive amount; none otherwise.
std::optional<SimTime> repeat_shift(const program::JobProgram& program, const engine::TaskTimes& times,
                                    std::span<const TaskId> later, std::span<const TaskId> earlier) {
  if (later.size() != earlier.size() || later.empty()) return std::nullopt;
  const SimTime shift = times.start[later.front()] - times.start[earlier.front()];
  if (shift <= 0) return std::nullopt;
  for (std::size_t i = 0; i < later.size(); ++i) {
    const TaskId a = later[i];
    const TaskId b = earlier[i];
    if (times.start[a] - times.start[b] != shift || times.end[a] - times.end[b] != shift || !same_work(program, a, b)) {
      return std::nullopt;
    }
  }
  return shift;
}

//! A stretch of consecutive micro-batches each of which repeats the one `period` before it by one
//! time shift.
struct RepeatingStretch {
  int first = 0;  //!< the first micro-batch that repeats an earlier one
  int last = -1;
  SimTime shift = 0;
  int length() const { return last - first + 1; }
};

class RepeatFinder {
 public:
  RepeatFinder(const program::JobProgram& program, const engine::TaskTimes& times, int period)
      : program_(program), times_(times), tasks_(program), period_(period) {}

  //! How much later micro-batch `m` runs than the one a period before it, when it repeats it.
  std::optional<SimTime> shift(int m) const {
    if (m < period_ || m >= tasks_.size()) return std::nullopt;
    return repeat_shift(program_, times_, tasks_.of(m), tasks_.of(m - period_));
  }

  //! The stretch that holds micro-batch `m`, as long as it goes either way; empty when `m` does not
  //! repeat.
  RepeatingStretch around(int m) const {
    const auto at = shift(m);
    if (!at) return {};
    RepeatingStretch stretch{m, m, *at};
    while (shift(stretch.first - 1) == at) --stretch.first;
    while (shift(stretch.last + 1) == at) ++stretch.last;
    return stretch;
  }

  //! The longest stretch anywhere (the first of equal ones).
  RepeatingStretch longest() const {
    RepeatingStretch best;
    RepeatingStretch current;
    for (int m = period_; m < tasks_.size(); ++m) {
      const auto at = shift(m);
      if (!at) {
        current = {};
        continue;
      }
      if (current.length() <= 0 || current.shift != *at) current = {m, m, *at};
      current.last = m;
      if (current.length() > best.length()) best = current;
    }
    return best;
  }

  std::span<const TaskId> tasks_of(int microbatch) const { return tasks_.of(microbatch); }

 private:
  const program::JobProgram& program_;
  const engine::TaskTimes& times_;
  MicrobatchTasks tasks_;
  int period_;
};

//! Whether every task that runs in `window` belongs to a micro-batch from `first` to `last`.
bool only_microbatches_in(const program::JobProgram& program, const engine::TaskTimes& times,
                          analysis::TimeWindow window, int first, int last) {
  for (TaskId task = 0; task < program.tasks.size(); ++task) {
    if (times.end[task] <= window.begin || times.start[task] >= window.end) continue;
    const int microbatch = program.tasks[task].microbatch;
    if (microbatch < first || microbatch > last) return false;
  }
  return true;
}

}  // namespace

std::optional<SteadyStatePlan> plan_steady_state(const strategy::Strategy& strategy,
                                                 const schedule::PipelineSchedule& schedule) {
  const int microbatches = strategy.num_microbatches();
  const int depth = pipeline_depth(strategy, schedule);
  std::vector<int> periods{1, 2, strategy.pipeline_parallel, 2 * strategy.pipeline_parallel};
  std::sort(periods.begin(), periods.end());
  periods.erase(std::unique(periods.begin(), periods.end()), periods.end());
  for (int period : periods) {
    // A warm-up, a repeating stretch longer than the pipeline's depth, and a cool-down.
    const int least = 3 * depth + 2 * period;
    const int simulated = least + (microbatches - least) % period;
    if (4 * simulated > 3 * microbatches) continue;
    const SteadyStatePlan plan{microbatches, simulated, period, depth};
    if (step_orders_repeat(strategy, schedule, plan)) return plan;
  }
  return std::nullopt;
}

std::optional<SteadyStatePlan> lengthened_plan(const strategy::Strategy& strategy,
                                               const schedule::PipelineSchedule& schedule,
                                               const SteadyStatePlan& plan) {
  const int added = plan.period * ((plan.simulated_microbatches + plan.period - 1) / plan.period);
  const SteadyStatePlan longer{plan.microbatches, plan.simulated_microbatches + added, plan.period, plan.depth};
  if (4 * longer.simulated_microbatches > 3 * longer.microbatches || !step_orders_repeat(strategy, schedule, longer)) {
    return std::nullopt;
  }
  return longer;
}

strategy::JobSpec shortened_job(const strategy::JobSpec& job, const SteadyStatePlan& plan) {
  strategy::JobSpec shorter = job;
  shorter.strategy = with_microbatches(job.strategy, plan.simulated_microbatches);
  return shorter;
}

SteadyStateOutcome extend_steady_state(const strategy::JobSpec& job, const SteadyStatePlan& plan,
                                       program::JobProgram& shorter, const engine::TaskTimes& times) {
  const RepeatFinder finder(shorter, times, plan.period);
  const program::MicrobatchRange counted = plan.counted();
  // The stretch must hold the counted period, or begin right after it: it holds the micro-batch
  // after the counted ones, or ends with them.
  RepeatingStretch stretch = finder.around(counted.last);
  if (stretch.length() <= 0) stretch = finder.around(counted.last - 1);
  const auto repeats_too_little = [&] {
    return SteadyStateOutcome{std::nullopt, std::nullopt, std::max(finder.longest().length(), 0)};
  };
  if (stretch.length() < plan.depth + plan.period || shorter.counted_microbatches.first != counted.first ||
      shorter.counted_microbatches.last != counted.last || counted.first < stretch.first - plan.period ||
      counted.last > stretch.last + 1) {
    return repeats_too_little();
  }
  // One period of time late in the stretch, where the timeline repeats: every activity near it
  // belongs to the stretch (the pipeline's older micro-batches are still in flight when a new one
  // starts), so the time of one repeat is what the devices do in it.
  const int late = stretch.last - 2 * plan.period;
  if (late < stretch.first) return repeats_too_little();
  const SimTime period_time = stretch.shift;
  const SimTime begin = times.start[finder.tasks_of(late).front()];
  if (!only_microbatches_in(shorter, times, {begin - period_time, begin + 2 * period_time}, stretch.first - plan.period,
                            stretch.last)) {
    return repeats_too_little();
  }
  const SimTime repeats = plan.repeats();
  SteadyStateOutcome outcome{std::nullopt, TimelineRepeats{counted, plan.repeats(), plan.period, period_time, begin},
                             stretch.length()};
  const auto repeated = [&](SimTime total, SimTime each) {
    const auto sum = checked_multiply_add(total, repeats, each);
    if (!sum)
      throw InputError(
          clock_overflow_message("once its steady state is repeated " + std::to_string(repeats) + " times"));
    return *sum;
  };
  const SimTime iteration_time = repeated(times.makespan, period_time);
  auto [devices, one_repeat] = analysis::device_stats(shorter, times, {begin, begin + period_time});
  for (std::size_t d = 0; d < devices.size(); ++d) {
    devices[d].busy_compute = repeated(devices[d].busy_compute, one_repeat[d].busy_compute);
    devices[d].busy_communication = repeated(devices[d].busy_communication, one_repeat[d].busy_communication);
    devices[d].host_busy = repeated(devices[d].host_busy, one_repeat[d].host_busy);
    if (devices[d].last_end > begin) devices[d].last_end = repeated(devices[d].last_end, period_time);
    devices[d].idle = iteration_time - devices[d].busy_compute - devices[d].busy_communication;
  }
  for (events::EventId event = 0; event < shorter.events.size(); ++event) {
    shorter.events.add_instances(event, repeated(0, shorter.counted_instances[event]));
  }
  outcome.summary = analysis::summarize(job, shorter, iteration_time, std::move(devices));
  return outcome;
}

}  // namespace distsim::steady
